package shlyuz

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

func TestKeyExpired(t *testing.T) {
	exp := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		expiresAt *time.Time
		now       time.Time
		want      bool
	}{
		{"no expiry", nil, exp.AddDate(100, 0, 0), false},
		{"exactly at expires_at", &exp, exp, true},
		{"1ns before", &exp, exp.Add(-time.Nanosecond), false},
		{"1ns after", &exp, exp.Add(time.Nanosecond), true},
		{"same instant in another zone", &exp, exp.In(time.FixedZone("MSK", 3*3600)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := &Key{ExpiresAt: tt.expiresAt}
			if got := k.Expired(tt.now); got != tt.want {
				t.Errorf("Expired(%v) = %v, want %v", tt.now, got, tt.want)
			}
		})
	}
}

func TestKeyUsable(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	tests := []struct {
		name     string
		key      Key
		wantCode string // "" for usable
	}{
		{"fresh", Key{}, ""},
		{"not yet expired", Key{ExpiresAt: &future}, ""},
		{"expired", Key{ExpiresAt: &now}, ErrKeyExpired().Code},
		{"revoked", Key{RevokedAt: &past}, ErrKeyRevoked().Code},
		{"revoked wins over expired", Key{RevokedAt: &past, ExpiresAt: &past}, ErrKeyRevoked().Code},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.key.Usable(now)
			switch {
			case tt.wantCode == "" && err != nil:
				t.Errorf("Usable = %v, want nil", err)
			case tt.wantCode != "" && (err == nil || err.Code != tt.wantCode):
				t.Errorf("Usable = %v, want code %q", err, tt.wantCode)
			}
		})
	}
}

func TestNewKeySecret(t *testing.T) {
	plain, hash := NewKeySecret()
	if !strings.HasPrefix(plain, KeyPrefix) {
		t.Fatalf("key %q lacks the prefix %q", plain, KeyPrefix)
	}
	secret := strings.TrimPrefix(plain, KeyPrefix)
	if len(secret) != 64 {
		t.Errorf("secret has %d characters, want 64", len(secret))
	}
	if _, err := hex.DecodeString(secret); err != nil || strings.ToLower(secret) != secret {
		t.Errorf("secret %q is not lower-case hex", secret)
	}
	if !LooksLikeKey(plain) {
		t.Errorf("LooksLikeKey(%q) = false", plain)
	}
	if hash != HashKey(plain) {
		t.Errorf("returned hash %q differs from HashKey %q", hash, HashKey(plain))
	}
	other, otherHash := NewKeySecret()
	if other == plain || otherHash == hash {
		t.Errorf("two keys are equal: %q", plain)
	}
}

func TestHashKey(t *testing.T) {
	const plain = KeyPrefix + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	h := HashKey(plain)
	if h != HashKey(plain) {
		t.Errorf("HashKey is not deterministic")
	}
	if h == plain || strings.Contains(h, strings.TrimPrefix(plain, KeyPrefix)) {
		t.Errorf("HashKey leaks the key: %q", h)
	}
	if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
		t.Errorf("HashKey = %q, want 64 hex characters", h)
	}
	if HashKey(plain+"0") == h {
		t.Errorf("different keys hash the same")
	}
	// SHA-256 of the empty string pins the algorithm.
	if got := HashKey(""); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("HashKey(\"\") = %q", got)
	}
}

func TestLooksLikeKey(t *testing.T) {
	valid := KeyPrefix + strings.Repeat("a", 64)
	tests := []struct {
		in   string
		want bool
	}{
		{valid, true},
		{valid[:len(valid)-1], false},
		{valid + "a", false},
		{"sk-or-v1-" + strings.Repeat("a", 64), false},
		{"", false},
	}
	for _, tt := range tests {
		if got := LooksLikeKey(tt.in); got != tt.want {
			t.Errorf("LooksLikeKey(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestMaskKey(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{KeyPrefix + "ab12" + strings.Repeat("0", 56) + "ef89", KeyPrefix + "ab12...ef89"},
		{KeyPrefix + "12345678", KeyPrefix + "1234...5678"},
		{KeyPrefix + "1234567", KeyPrefix + "..."},
		{"short", KeyPrefix + "..."},
		{"", KeyPrefix + "..."},
	}
	for _, tt := range tests {
		if got := MaskKey(tt.in); got != tt.want {
			t.Errorf("MaskKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	plain, _ := NewKeySecret()
	if m := MaskKey(plain); strings.Contains(m, plain[len(KeyPrefix)+4:len(plain)-4]) {
		t.Errorf("MaskKey(%q) = %q shows the middle of the secret", plain, m)
	}
}
