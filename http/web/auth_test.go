package web

import (
	"strings"
	"testing"
	"time"
)

func TestPasswordHash(t *testing.T) {
	h := hashPassword("correct horse battery")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not argon2id in PHC form", h)
	}
	if h == hashPassword("correct horse battery") {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for _, tc := range []struct {
		hash, password string
		want           bool
	}{
		{h, "correct horse battery", true},
		{h, "correct horse batterY", false},
		{h, "", false},
		{"$argon2id$v=19$m=19456,t=2,p=1$bad", "correct horse battery", false},
		{"plain", "plain", false},
	} {
		if got := checkPassword(tc.hash, tc.password); got != tc.want {
			t.Errorf("checkPassword(%q, %q) = %v", tc.hash, tc.password, got)
		}
	}
}

func TestSignedLinks(t *testing.T) {
	s := signer{[]byte("secret")}
	now := time.Unix(1_700_000_000, 0)
	exp, sig := s.sign("confirm", "acc-1", "", time.Hour, now)
	for _, tc := range []struct {
		name, purpose, subject, extra, exp, sig string
		at                                      time.Time
		want                                    bool
	}{
		{"good", "confirm", "acc-1", "", exp, sig, now, true},
		{"expired", "confirm", "acc-1", "", exp, sig, now.Add(2 * time.Hour), false},
		{"other account", "confirm", "acc-2", "", exp, sig, now, false},
		{"other purpose", "reset", "acc-1", "", exp, sig, now, false},
		{"other extra", "confirm", "acc-1", "x", exp, sig, now, false},
		{"longer life", "confirm", "acc-1", "", exp + "0", sig, now, false},
		{"tampered", "confirm", "acc-1", "", exp, "A" + sig[1:], now, false},
		{"garbage expiry", "confirm", "acc-1", "", "soon", sig, now, false},
	} {
		if got := s.verify(tc.purpose, tc.subject, tc.extra, tc.exp, tc.sig, tc.at); got != tc.want {
			t.Errorf("%s: verify = %v", tc.name, got)
		}
	}
	if (signer{[]byte("other")}).verify("confirm", "acc-1", "", exp, sig, now) {
		t.Error("a link signed with another secret verifies")
	}
}

func TestThrottle(t *testing.T) {
	th := newThrottle(time.Minute)
	now := time.Unix(1000, 0)
	for i := range 3 {
		if b, _ := th.blocked("k", 3, now); b {
			t.Fatalf("blocked after %d failures", i)
		}
		th.fail("k", now.Add(time.Duration(i)*time.Second))
	}
	b, wait := th.blocked("k", 3, now.Add(3*time.Second))
	if !b || wait != 57*time.Second {
		t.Fatalf("after 3 failures: blocked %v, wait %v", b, wait)
	}
	if b, _ := th.blocked("k", 3, now.Add(61*time.Second)); b {
		t.Fatal("still blocked after the window")
	}
	th.fail("j", now)
	th.reset("j")
	if b, _ := th.blocked("j", 1, now); b {
		t.Fatal("blocked after reset")
	}
}
