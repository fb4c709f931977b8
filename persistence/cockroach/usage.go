package cockroach

import (
	"context"
	"fmt"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/websql"
)

// AccountSpend is what the account's charges add up to since the instant, inclusive.
func (s *Store) AccountSpend(ctx context.Context, accountID string, since time.Time) (shlyuz.Credits, error) {
	var sum int64
	err := s.read(ctx, func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, rebind(websql.AccountSpend), websql.AccountSpendArgs(accountID, since)...).Scan(&sum)
	})
	if err != nil {
		return 0, fmt.Errorf("cockroach: spend of account %s: %w", accountID, err)
	}
	return -sum, nil
}

// Activity sums the account's generations per UTC day, model and upstream.
func (s *Store) Activity(ctx context.Context, accountID string, since time.Time) ([]shlyuz.ActivityRow, error) {
	return query(s, ctx, "activity of "+accountID, websql.ScanActivity, websql.Activity, websql.ActivityArgs(accountID, since)...)
}
