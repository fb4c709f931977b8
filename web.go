package shlyuz

import (
	"context"
	"time"
)

// WebLogin is how an account signs in to the web account area: its password
// (an argon2id hash in PHC form, never the password) and when its email was confirmed.
type WebLogin struct {
	AccountID    string     `json:"account_id"`
	PasswordHash string     `json:"-"`
	ConfirmedAt  *time.Time `json:"confirmed_at"`
}

// WebSession is a signed-in browser. ID is the hash of the cookie's secret,
// so a stolen database does not sign anybody in; CSRF is the token every form
// of the session must carry.
type WebSession struct {
	ID        string    `json:"-"`
	AccountID string    `json:"account_id"`
	CSRF      string    `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// PaymentKind says what a payment buys.
type PaymentKind string

// The kinds of payments.
const (
	PaymentTopUp PaymentKind = "topup" // bought credits
	PaymentPlan  PaymentKind = "plan"  // a plan's package
)

// Payment statuses, as the acquirer (YooKassa) names them.
const (
	PaymentPending   = "pending"
	PaymentSucceeded = "succeeded"
	PaymentCanceled  = "canceled"
)

// What became of a payment's 54-FZ receipt: none (receipts are off), unsent
// (to be registered after the payment, retried until it is), pending at the
// acquirer, succeeded (registered), canceled (the acquirer could not register
// it; the operator issues one by hand).
const (
	ReceiptNone      = ""
	ReceiptUnsent    = "unsent"
	ReceiptPending   = "pending"
	ReceiptSucceeded = "succeeded"
	ReceiptCanceled  = "canceled"
)

// Payment is one purchase through the acquirer. ID is the gateway's own id
// (also the acquirer's Idempotence-Key); ExternalID is the acquirer's payment id.
// Credits are what a top-up adds; a plan purchase adds the plan's package.
// Receipt is what became of its receipt (Receipt* constants).
type Payment struct {
	ID          string      `json:"id"`
	ExternalID  string      `json:"external_id"`
	AccountID   string      `json:"account_id"`
	Kind        PaymentKind `json:"kind"`
	PlanID      string      `json:"plan_id,omitempty"`
	AmountRub   Decimal     `json:"amount_rubles"`
	Credits     Credits     `json:"credits"`
	Status      string      `json:"status"`
	CreatedAt   time.Time   `json:"created_at"`
	CompletedAt *time.Time  `json:"completed_at,omitempty"`
	Receipt     string      `json:"receipt,omitempty"`
}

// GenerationFilter selects an account's generations, newest first.
type GenerationFilter struct {
	AccountID string
	KeyID     string // "" = every key
	Model     string // "" = every model
	User      string // the end user (the request's "user"); "" = every one
	Since     time.Time
	Limit     int // 0 = 50
	Offset    int
}

// WebStore keeps what the web account area needs beside the rest of the Store.
type WebStore interface {
	// SaveLogin creates or replaces the web login of an account.
	SaveLogin(ctx context.Context, l WebLogin) error
	// LoginByEmail finds an account by its email (lowercase) and its web login;
	// ErrNoRows when there is no account or it has no web login.
	LoginByEmail(ctx context.Context, email string) (Account, WebLogin, error)
	Login(ctx context.Context, accountID string) (WebLogin, error)
	Accounts(ctx context.Context, limit, offset int) ([]Account, error)

	CreateSession(ctx context.Context, s WebSession) error
	Session(ctx context.Context, id string) (WebSession, error) // ErrNoRows when absent
	DeleteSession(ctx context.Context, id string) error         // absent: no error
	DeleteSessionsOf(ctx context.Context, accountID string) error

	// CreatePayment stores a new payment; ErrDuplicate for a taken id.
	CreatePayment(ctx context.Context, p Payment) error
	// UpdatePayment replaces the payment's external id, status, completion and receipt status.
	UpdatePayment(ctx context.Context, p Payment) error
	Payment(ctx context.Context, id string) (Payment, error)
	PaymentByExternalID(ctx context.Context, externalID string) (Payment, error)
	PaymentsOf(ctx context.Context, accountID string, limit int) ([]Payment, error)

	// Generations lists an account's generations, newest first.
	Generations(ctx context.Context, f GenerationFilter) ([]Generation, error)
}
