package websql

import (
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// microsPerDay divides a created_at (microseconds since the epoch) into UTC days.
const microsPerDay = 86_400_000_000

// The sums of OpenRouter's account endpoints (shlyuz.UsageStore).
const (
	AccountSpend = `SELECT CAST(COALESCE(SUM(package_delta + bought_delta), 0) AS BIGINT) FROM ledger_entries
		WHERE account_id = ? AND kind = ? AND created_at >= ?`
	Activity = `SELECT CAST(created_at / 86400000000 AS BIGINT) AS day, model, upstream, end_user, CAST(COUNT(*) AS BIGINT),
		CAST(SUM(prompt_tokens) AS BIGINT), CAST(SUM(completion_tokens) AS BIGINT), CAST(SUM(credits) AS BIGINT)
		FROM generations WHERE account_id = ? AND created_at >= ? AND status <> ?
		GROUP BY day, model, upstream, end_user ORDER BY day, model, upstream, end_user`
)

// AccountSpendArgs are AccountSpend's arguments; the sum it reads is negative.
func AccountSpendArgs(accountID string, since time.Time) []any {
	return []any{accountID, string(shlyuz.EntryCharge), sqlutil.Since(since)}
}

// ActivityArgs are Activity's arguments.
func ActivityArgs(accountID string, since time.Time) []any {
	return []any{accountID, sqlutil.Micros(since), shlyuz.GenerationFailed}
}

// ScanActivity reads an Activity row.
func ScanActivity(row sqlutil.Scanner) (shlyuz.ActivityRow, error) {
	var r shlyuz.ActivityRow
	var day int64
	if err := row.Scan(&day, &r.Model, &r.Upstream, &r.User, &r.Requests, &r.PromptTokens, &r.CompletionTokens, &r.Credits); err != nil {
		return r, err
	}
	r.Day = time.UnixMicro(day * microsPerDay).UTC()
	return r, nil
}
