package shlyuz

import "time"

// EntryKind says why a balance changed.
type EntryKind string

// The kinds of ledger entries.
const (
	EntryTopUp          EntryKind = "topup"           // bought credits added
	EntryPackageGranted EntryKind = "package_granted" // a plan's package (replaces the old one)
	EntryPackageExpired EntryKind = "package_expired" // an expired package zeroed
	EntryCharge         EntryKind = "charge"          // a request paid for
	EntryAdjustment     EntryKind = "adjustment"      // an operator's correction
)

// LedgerEntry is one change of one account's balance. Entries are append-only
// and their IDs unique: committing an entry whose ID exists changes nothing.
// The sum of an account's entries is its balance, always.
type LedgerEntry struct {
	ID               string    `json:"id"`
	AccountID        string    `json:"account_id"`
	KeyID            string    `json:"key_id,omitempty"`
	Kind             EntryKind `json:"kind"`
	PackageDelta     Credits   `json:"package_delta"`
	BoughtDelta      Credits   `json:"bought_delta"`
	PackageExpiresAt time.Time `json:"package_expires_at,omitzero"` // set by EntryPackageGranted
	Epoch            int64     `json:"epoch"`                       // the writer's claim on the account; 0 = unfenced
	CreatedAt        time.Time `json:"created_at"`
}

// Amount is the entry's total change.
func (e *LedgerEntry) Amount() Credits { return e.PackageDelta + e.BoughtDelta }
