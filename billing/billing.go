// Package billing takes money for credits: a checkout starts a payment at the
// acquirer (payments/yookassa) with its 54-FZ receipt, and a payment is
// confirmed with the acquirer's API and credited once per payment, through the
// account actor's ledger (actors.Gateway), never by writing balances itself.
// Refunds debit once per refund id and carry their refund receipts. The web
// area and the operator API call it; they hold no payment state of their own.
package billing

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/payments/yookassa"
)

// MaxTopUpKopecks bounds one top-up (1,000,000 ₽).
const MaxTopUpKopecks = 100_000_000

// Config tunes the service.
type Config struct {
	// YooKassa is the acquirer; nil: payments are off.
	YooKassa *yookassa.Client
	// Receipts are the 54-FZ receipt settings.
	Receipts Receipts
	// PublicURL is where the payer comes back to (/account/payments/<id>).
	PublicURL string
	// MinTopUpKopecks is the smallest top-up; default 10 ₽.
	MinTopUpKopecks int64
	Log             *slog.Logger
	Now             func() time.Time
}

// Service is checkout, confirmation and refunds over one acquirer.
type Service struct {
	gw    *actors.Gateway
	store shlyuz.Store
	yk    *yookassa.Client
	cfg   Config
	log   *slog.Logger
}

// New builds the service; a receipt setting out of range is an error naming it.
func New(gw *actors.Gateway, cfg Config) (*Service, error) {
	if cfg.MinTopUpKopecks <= 0 {
		cfg.MinTopUpKopecks = 1000
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	var err error
	if cfg.Receipts, err = cfg.Receipts.withDefaults(); err != nil {
		return nil, err
	}
	return &Service{gw: gw, store: gw.Store(), yk: cfg.YooKassa, cfg: cfg, log: cfg.Log}, nil
}

// On reports whether payments are taken.
func (s *Service) On() bool { return s != nil && s.yk != nil }

// TopUpLimits are the smallest and largest top-up, in kopecks.
func (s *Service) TopUpLimits() (minKop, maxKop int64) { return s.cfg.MinTopUpKopecks, MaxTopUpKopecks }

// ReceiptMode is how receipts go (with the payment, after it, or off).
func (s *Service) ReceiptMode() string { return s.cfg.Receipts.Mode }

// The errors a caller tells its user about by kind.
var (
	// ErrOff: no acquirer is configured.
	ErrOff = errors.New("billing: payments are off")
	// ErrAmount: a top-up outside TopUpLimits.
	ErrAmount = errors.New("billing: amount out of range")
	// ErrNotFound: no such plan or payment (or not the account's).
	ErrNotFound = errors.New("billing: not found")
	// ErrAcquirer: the acquirer refused or could not be reached; nothing was credited.
	ErrAcquirer = errors.New("billing: the acquirer refused")
)

func acquirerError(what string, err error) *shlyuz.Error {
	return &shlyuz.Error{Status: 502, Type: shlyuz.TypeUpstream, Code: "upstream_error",
		Message: fmt.Sprintf("YooKassa did not confirm the %s; it will be checked again.", what), Cause: err}
}

func (s *Service) now() time.Time { return s.cfg.Now().UTC() }
