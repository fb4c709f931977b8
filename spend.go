package shlyuz

import (
	"context"
	"time"
)

// ActivityRow is what an account's generations of one UTC day, model and
// upstream add up to (GET /api/v1/activity).
type ActivityRow struct {
	Day              time.Time // the UTC day's midnight
	Model            string
	Upstream         string
	User             string // the end user (the requests' "user"); "" for none
	Requests         int64
	PromptTokens     int64
	CompletionTokens int64
	Credits          Credits
}

// UsageStore sums what accounts spent, for OpenRouter's account endpoints.
type UsageStore interface {
	// AccountSpend is what the account's charges add up to since the instant (inclusive).
	AccountSpend(ctx context.Context, accountID string, since time.Time) (Credits, error)
	// Activity sums the account's generations that did not fail, since the
	// instant, per UTC day, model and upstream, oldest day first.
	Activity(ctx context.Context, accountID string, since time.Time) ([]ActivityRow, error)
}
