package shlyuz

import (
	"context"
	"errors"
	"time"
)

// ErrNoRows is what a Store returns for a lookup that finds nothing.
var ErrNoRows = errors.New("not found")

// ErrDuplicate is what a Store returns when a unique value (an email) is taken.
var ErrDuplicate = errors.New("already exists")

// ErrLimitReached is what a Store returns when a bounded collection (an
// account's conversations, its keys) is full.
var ErrLimitReached = errors.New("limit reached")

// Settings are the operator's money settings.
type Settings struct {
	Pricing   Pricing   `json:"pricing"`
	UpdatedAt time.Time `json:"updated_at"`
}

// CommitResult says which entries of a batch were applied. An entry is skipped
// when its ID already exists (a replay) or its epoch is older than the account's
// (a fenced, stale activation).
type CommitResult struct {
	Applied   []string
	Duplicate []string
	Fenced    []string
}

// Batch is what the journal writes in one transaction.
type Batch struct {
	Entries     []LedgerEntry
	Generations []Generation
}

// KeyPage selects a page of an account's API keys.
type KeyPage struct {
	Offset, Limit int
	// LiveAt, when not zero, leaves out the keys disabled or expired at
	// that instant.
	LiveAt time.Time
}

// Store is the durable state of the gateway. Every method is safe for concurrent use.
// Two implementations (persistence/sqlite and persistence/cockroach) pass one contract suite.
type Store interface {
	// Accounts.
	CreateAccount(ctx context.Context, a Account) error // ErrDuplicate for a taken email
	Account(ctx context.Context, id string) (Account, error)

	// Keys.
	// CreateKey stores a new key unless its account has max keys that are
	// not revoked already (ErrLimitReached), judged in the same transaction;
	// max 0: no cap.
	CreateKey(ctx context.Context, k Key, max int) error
	KeyByHash(ctx context.Context, hash string) (Key, error)
	Key(ctx context.Context, id string) (Key, error)
	// KeysOf lists every key of the account, oldest first (the account's
	// key cap bounds them).
	KeysOf(ctx context.Context, accountID string) ([]Key, error)
	// APIKeys reads one page of the account's API keys that are not revoked
	// (neither management keys nor the web chat's), oldest first, then by id.
	APIKeys(ctx context.Context, accountID string, q KeyPage) ([]Key, error)
	// WebChatKey is the account's web chat key that is not revoked (ErrNoRows: none).
	WebChatKey(ctx context.Context, accountID string) (Key, error)
	RevokeKey(ctx context.Context, id string, at time.Time) error
	// SetKeyLimit changes a key's ceiling (nil: none), keeping its period.
	SetKeyLimit(ctx context.Context, id string, limit *Credits) error
	// UpdateKey writes k's name, ceiling, period, disabled flag and
	// UpdatedAt over the stored key with k's id (ErrNoRows: none).
	UpdateKey(ctx context.Context, k Key) error
	// KeySpend is what the key's charges add up to since the instant (inclusive).
	KeySpend(ctx context.Context, keyID string, since time.Time) (Credits, error)

	// Balances and the ledger. ClaimBalance raises the account's epoch and returns
	// the balance with the new epoch: from then on entries with an older epoch are fenced.
	ClaimBalance(ctx context.Context, accountID string) (Balance, error)
	Balance(ctx context.Context, accountID string) (Balance, error)
	// Commit writes entries and generation records in one transaction. Each new
	// entry's deltas are applied to its account's balance in that same transaction.
	Commit(ctx context.Context, b Batch) (CommitResult, error)
	Entry(ctx context.Context, id string) (LedgerEntry, error)
	// Reconcile lists the accounts whose balance differs from the sum of their entries.
	Reconcile(ctx context.Context) ([]string, error)

	// Generations.
	Generation(ctx context.Context, id string) (Generation, error)

	// Operator settings, plans and model overrides.
	Settings(ctx context.Context) (Settings, bool, error) // false when never saved
	SaveSettings(ctx context.Context, s Settings) error
	// ReplaceSettings saves next only while the stored settings are still prev
	// (none stored when prev is nil) and reports whether it did: a writer that
	// read, then decided, never overwrites a change made in between.
	ReplaceSettings(ctx context.Context, prev *Settings, next Settings) (bool, error)
	Plans(ctx context.Context) ([]Plan, error)
	SavePlan(ctx context.Context, p Plan) error
	DeletePlan(ctx context.Context, id string) error
	ModelOverrides(ctx context.Context) ([]Model, error)
	SaveModelOverride(ctx context.Context, m Model) error

	VideoStore        // video jobs (video.go)
	WebStore          // the web account area (web.go)
	ConversationStore // the web chat's history (conversation.go)
	RateStore         // the exchange rate's history (rate.go)
	ClusterStore      // membership leases and lease-gated claims
	UsageStore        // spend and activity sums (usage.go)

	Close() error
}
