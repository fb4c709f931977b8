package shlyuz

import "time"

// Account is a customer: its keys, the web chat and its balance belong to it.
type Account struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"created_at"`
}

// Balance is what an account can spend: the subscription package (spent first,
// gone at PackageExpiresAt) and bought credits (never expire). Epoch fences
// activations: only the newest holder of an account may commit its entries.
type Balance struct {
	AccountID        string    `json:"account_id"`
	PackageCredits   Credits   `json:"package_credits"`
	PackageExpiresAt time.Time `json:"package_expires_at"`
	BoughtCredits    Credits   `json:"bought_credits"`
	Epoch            int64     `json:"epoch"`
}

// PackageLive reports whether the package may still be spent at now.
func (b *Balance) PackageLive(now time.Time) bool {
	return b.PackageCredits > 0 && now.Before(b.PackageExpiresAt)
}

// Available is what may be spent at now.
func (b *Balance) Available(now time.Time) Credits {
	if b.PackageLive(now) {
		return b.PackageCredits + b.BoughtCredits
	}
	return b.BoughtCredits
}

// Total is package plus bought credits, live or not: what the ledger adds up to.
func (b *Balance) Total() Credits { return b.PackageCredits + b.BoughtCredits }

// Split says how a spend of amount at now divides between the package and the
// bought credits, package first. It returns negative deltas ready for a ledger
// entry; it does not check that the amount is available.
func (b *Balance) Split(amount Credits, now time.Time) (packageDelta, boughtDelta Credits) {
	fromPackage := Credits(0)
	if b.PackageLive(now) {
		fromPackage = min(amount, b.PackageCredits)
	}
	return -fromPackage, -(amount - fromPackage)
}

// Apply adds an entry's deltas to the balance.
func (b *Balance) Apply(e *LedgerEntry) {
	b.PackageCredits += e.PackageDelta
	b.BoughtCredits += e.BoughtDelta
	if !e.PackageExpiresAt.IsZero() {
		b.PackageExpiresAt = e.PackageExpiresAt
	}
}

// ExpirePackage returns the entry that zeroes an expired package, or nil when
// there is nothing to expire at now.
func (b *Balance) ExpirePackage(now time.Time) *LedgerEntry {
	if b.PackageCredits <= 0 || now.Before(b.PackageExpiresAt) {
		return nil
	}
	return &LedgerEntry{
		ID:           "exp-" + b.AccountID + "-" + b.PackageExpiresAt.UTC().Format("20060102T150405.000000000"),
		AccountID:    b.AccountID,
		Kind:         EntryPackageExpired,
		PackageDelta: -b.PackageCredits,
		CreatedAt:    now,
	}
}
