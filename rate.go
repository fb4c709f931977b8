package shlyuz

import (
	"context"
	"time"
)

// Who changed the exchange rate.
const (
	RateByCBR      = "cbr"      // the Central Bank's daily feed
	RateByOperator = "operator" // the operator pinned a rate: the feed no longer moves it
	RateByUnpin    = "unpin"    // the operator let the feed move the rate again
)

// RateChange is one change of the exchange rate (rubles per US dollar): who, when, from what to what.
type RateChange struct {
	ID  string    `json:"id"`
	At  time.Time `json:"at"`
	By  string    `json:"by"`
	Old Decimal   `json:"old"`
	New Decimal   `json:"new"`
}

// Pinned reports whether the latest change (nil: none) keeps the feed from moving the rate.
func Pinned(latest *RateChange) bool { return latest != nil && latest.By == RateByOperator }

// RateStore keeps the history of the exchange rate.
type RateStore interface {
	RecordRateChange(ctx context.Context, c RateChange) error
	// RateChanges lists the changes, newest first.
	RateChanges(ctx context.Context, limit int) ([]RateChange, error)
}
