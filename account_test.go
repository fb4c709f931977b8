package shlyuz

import (
	"testing"
	"time"
)

func TestBalanceSplit(t *testing.T) {
	exp := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	before, after := exp.Add(-time.Nanosecond), exp.Add(time.Hour)
	tests := []struct {
		name                string
		pkg, bought, amount Credits
		now                 time.Time
		wantPkg, wantBought Credits
	}{
		{"package covers it", 1000, 500, 300, before, -300, 0},
		{"package exactly covers it", 1000, 500, 1000, before, -1000, 0},
		{"package first, rest from bought", 1000, 500, 1200, before, -1000, -200},
		{"no package", 0, 500, 200, before, 0, -200},
		{"expired package is skipped", 1000, 500, 200, after, 0, -200},
		{"package gone at exactly expires_at", 1000, 500, 200, exp, 0, -200},
		{"zero amount", 1000, 500, 0, before, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Balance{PackageCredits: tt.pkg, PackageExpiresAt: exp, BoughtCredits: tt.bought}
			p, bo := b.Split(tt.amount, tt.now)
			if p != tt.wantPkg || bo != tt.wantBought {
				t.Errorf("Split(%d) = (%d, %d), want (%d, %d)", tt.amount, p, bo, tt.wantPkg, tt.wantBought)
			}
			if p+bo != -tt.amount {
				t.Errorf("deltas sum to %d, want %d", p+bo, -tt.amount)
			}
		})
	}
}

func TestBalanceAvailable(t *testing.T) {
	exp := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		now       time.Time
		live      bool
		available Credits
	}{
		{"before expiry", exp.Add(-time.Nanosecond), true, 1500},
		{"exactly at PackageExpiresAt", exp, false, 500},
		{"after expiry", exp.Add(time.Hour), false, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Balance{PackageCredits: 1000, PackageExpiresAt: exp, BoughtCredits: 500}
			if got := b.PackageLive(tt.now); got != tt.live {
				t.Errorf("PackageLive = %v, want %v", got, tt.live)
			}
			if got := b.Available(tt.now); got != tt.available {
				t.Errorf("Available = %d, want %d", got, tt.available)
			}
			// Total counts the package live or not, as the ledger does until
			// the package_expired entry is written.
			if got := b.Total(); got != 1500 {
				t.Errorf("Total = %d, want 1500", got)
			}
		})
	}
}

func TestBalanceApply(t *testing.T) {
	exp := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	next := exp.AddDate(0, 1, 0)
	b := &Balance{PackageCredits: 1000, PackageExpiresAt: exp, BoughtCredits: 500}
	b.Apply(&LedgerEntry{Kind: EntryCharge, PackageDelta: -300, BoughtDelta: -100})
	if b.PackageCredits != 700 || b.BoughtCredits != 400 || !b.PackageExpiresAt.Equal(exp) {
		t.Errorf("after a charge: %+v", b)
	}
	b.Apply(&LedgerEntry{Kind: EntryPackageGranted, PackageDelta: 300, PackageExpiresAt: next})
	if b.PackageCredits != 1000 || !b.PackageExpiresAt.Equal(next) {
		t.Errorf("after a grant: %+v", b)
	}
}

func TestBalanceExpirePackage(t *testing.T) {
	exp := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		pkg    Credits
		now    time.Time
		expire bool
	}{
		{"before expiry", 1000, exp.Add(-time.Nanosecond), false},
		{"exactly at expiry", 1000, exp, true},
		{"after expiry", 1000, exp.Add(time.Hour), true},
		{"nothing left to expire", 0, exp.Add(time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Balance{AccountID: "acc1", PackageCredits: tt.pkg, PackageExpiresAt: exp, BoughtCredits: 500}
			e := b.ExpirePackage(tt.now)
			if (e != nil) != tt.expire {
				t.Fatalf("ExpirePackage = %+v, want an entry: %v", e, tt.expire)
			}
			if e == nil {
				return
			}
			if e.Kind != EntryPackageExpired || e.AccountID != "acc1" || e.PackageDelta != -tt.pkg || e.BoughtDelta != 0 || !e.CreatedAt.Equal(tt.now) {
				t.Errorf("entry = %+v", e)
			}
			if e.ID == "" || e.ID != b.ExpirePackage(tt.now.Add(time.Minute)).ID {
				t.Errorf("entry id %q is not stable for one package", e.ID)
			}
			before := b.Total()
			b.Apply(e)
			if b.PackageCredits != 0 || b.BoughtCredits != 500 {
				t.Errorf("after expiry: %+v", b)
			}
			if b.Total() != before+e.Amount() {
				t.Errorf("Total moved by %d, want %d", b.Total()-before, e.Amount())
			}
			if again := b.ExpirePackage(tt.now); again != nil {
				t.Errorf("second ExpirePackage = %+v, want nil", again)
			}
		})
	}
}
