package sqlutil

import (
	"fmt"
	"strings"

	"github.com/shlyuz/shlyuz"
)

// Scanner is one result row: a *sql.Row, *sql.Rows, pgx.Row or
// pgx.CollectableRow.
type Scanner interface{ Scan(dest ...any) error }

// The columns each table is read and written by, in the order the Scan and
// Args functions below expect them. They are the same in every dialect.
const (
	KeyColumns        = `id, account_id, name, hash, label, spend_limit, limit_reset, expires_at, revoked_at, created_at, rate_rpm, rate_tpm, management, allowed_models, web_chat, disabled, updated_at`
	BalanceColumns    = `account_id, package_credits, package_expires_at, bought_credits, epoch`
	EntryColumns      = `id, account_id, key_id, kind, package_delta, bought_delta, package_expires_at, epoch, created_at`
	GenerationColumns = `id, account_id, key_id, model, upstream, attempts, streamed,
	prompt_tokens, completion_tokens, credits, latency_ms, status, finish_reason, created_at, usage_estimated, billing, end_user`
	PlanColumns     = `id, name, price_rubles, package_credits, period`
	SettingsColumns = `rate, k, updated_at`
)

// ScanKey reads a row of KeyColumns.
func ScanKey(row Scanner) (shlyuz.Key, error) {
	var k shlyuz.Key
	var reset string
	var expires, revoked *int64
	var created int64
	var rpm, tpm *int64
	var allowed string
	var updated *int64
	if err := row.Scan(&k.ID, &k.AccountID, &k.Name, &k.Hash, &k.Label, &k.Limit, &reset, &expires, &revoked, &created, &rpm, &tpm, &k.Management, &allowed,
		&k.WebChat, &k.Disabled, &updated); err != nil {
		return shlyuz.Key{}, err
	}
	if allowed != "" {
		k.AllowedModels = strings.Split(allowed, "\n")
	}
	if rpm != nil || tpm != nil {
		k.RateLimit = &shlyuz.RateLimit{}
		if rpm != nil {
			k.RateLimit.RequestsPerMinute = *rpm
		}
		if tpm != nil {
			k.RateLimit.TokensPerMinute = *tpm
		}
	}
	k.LimitReset = shlyuz.LimitReset(reset)
	k.ExpiresAt = TimePtr(expires)
	k.RevokedAt = TimePtr(revoked)
	k.CreatedAt = Time(created)
	k.UpdatedAt = TimePtr(updated)
	return k, nil
}

// KeyArgs are the values of KeyColumns for k.
func KeyArgs(k shlyuz.Key) []any {
	var rpm, tpm *int64
	if rl := k.RateLimit; rl != nil {
		if rl.RequestsPerMinute > 0 {
			rpm = &rl.RequestsPerMinute
		}
		if rl.TokensPerMinute > 0 {
			tpm = &rl.TokensPerMinute
		}
	}
	return []any{k.ID, k.AccountID, k.Name, k.Hash, k.Label, k.Limit, string(k.LimitReset),
		MicrosPtr(k.ExpiresAt), MicrosPtr(k.RevokedAt), Micros(k.CreatedAt), rpm, tpm, k.Management,
		strings.Join(k.AllowedModels, "\n"), // entries hold no whitespace, so a newline separates them
		k.WebChat, k.Disabled, MicrosPtr(k.UpdatedAt)}
}

// ScanBalance reads a row of BalanceColumns.
func ScanBalance(row Scanner) (shlyuz.Balance, error) {
	var b shlyuz.Balance
	var expires int64
	if err := row.Scan(&b.AccountID, &b.PackageCredits, &expires, &b.BoughtCredits, &b.Epoch); err != nil {
		return shlyuz.Balance{}, err
	}
	b.PackageExpiresAt = Time(expires)
	return b, nil
}

// ScanEntry reads a row of EntryColumns.
func ScanEntry(row Scanner) (shlyuz.LedgerEntry, error) {
	var e shlyuz.LedgerEntry
	var kind string
	var expires, created int64
	if err := row.Scan(&e.ID, &e.AccountID, &e.KeyID, &kind, &e.PackageDelta, &e.BoughtDelta, &expires, &e.Epoch, &created); err != nil {
		return shlyuz.LedgerEntry{}, err
	}
	e.Kind = shlyuz.EntryKind(kind)
	e.PackageExpiresAt = Time(expires)
	e.CreatedAt = Time(created)
	return e, nil
}

// AppendEntryArgs appends the values of EntryColumns for e (EntryArity of them).
func AppendEntryArgs(dst []any, e *shlyuz.LedgerEntry) []any {
	return append(dst, e.ID, e.AccountID, e.KeyID, string(e.Kind), e.PackageDelta, e.BoughtDelta,
		Micros(e.PackageExpiresAt), e.Epoch, Micros(e.CreatedAt))
}

// ScanGeneration reads a row of GenerationColumns. An error decoding the
// attempts is returned as DecodeAttempts words it.
func ScanGeneration(row Scanner) (shlyuz.Generation, error) {
	var g shlyuz.Generation
	var attempts, billing, user string
	var created int64
	err := row.Scan(&g.ID, &g.AccountID, &g.KeyID, &g.Model, &g.Upstream, &attempts, &g.Streamed,
		&g.PromptTokens, &g.CompletionTokens, &g.Credits, &g.LatencyMS, &g.Status, &g.FinishReason, &created, &g.Estimated, &billing, &user)
	if err != nil {
		return shlyuz.Generation{}, err
	}
	if g.Attempts, err = DecodeAttempts(attempts); err != nil {
		return shlyuz.Generation{}, err
	}
	if err := decodeBilling(billing, &g); err != nil {
		return shlyuz.Generation{}, err
	}
	if user != "" { // records made before the column carry it in billing only
		g.User = user
	}
	g.CreatedAt = Time(created)
	return g, nil
}

// AppendGenerationArgs appends the values of GenerationColumns for g
// (GenerationArity of them).
func AppendGenerationArgs(dst []any, g *shlyuz.Generation) []any {
	return append(dst, g.ID, g.AccountID, g.KeyID, g.Model, g.Upstream, EncodeAttempts(g.Attempts), g.Streamed,
		g.PromptTokens, g.CompletionTokens, g.Credits, g.LatencyMS, g.Status, g.FinishReason, Micros(g.CreatedAt), g.Estimated,
		encodeBilling(g), g.User)
}

// ScanPlan reads a row of PlanColumns. A price it cannot parse is an error
// naming the plan.
func ScanPlan(row Scanner) (shlyuz.Plan, error) {
	var p shlyuz.Plan
	var price, period string
	if err := row.Scan(&p.ID, &p.Name, &price, &p.PackageCredits, &period); err != nil {
		return p, err
	}
	p.Period = shlyuz.LimitReset(period)
	var err error
	if p.PriceRubles, err = Decimal("price_rubles", price); err != nil {
		return p, fmt.Errorf("plan %s: %w", p.ID, err)
	}
	return p, nil
}

// PlanArgs are the values of PlanColumns for p.
func PlanArgs(p shlyuz.Plan) []any {
	return []any{p.ID, p.Name, p.PriceRubles.String(), p.PackageCredits, string(p.Period)}
}

// ScanModelOverride reads a row of (id, model). A model it cannot decode is
// an error naming the override.
func ScanModelOverride(row Scanner) (shlyuz.Model, error) {
	var id, doc string
	if err := row.Scan(&id, &doc); err != nil {
		return shlyuz.Model{}, err
	}
	m, err := DecodeModel(doc)
	if err != nil {
		return shlyuz.Model{}, fmt.Errorf("model override %s: %w", id, err)
	}
	return m, nil
}

// ScanSettings reads a row of SettingsColumns. The scan's own error (no rows
// among them) is returned as it is.
func ScanSettings(row Scanner) (shlyuz.Settings, error) {
	var rate, k string
	var updated int64
	if err := row.Scan(&rate, &k, &updated); err != nil {
		return shlyuz.Settings{}, err
	}
	var st shlyuz.Settings
	var err error
	if st.Pricing.Rate, err = Decimal("rate", rate); err != nil {
		return shlyuz.Settings{}, err
	}
	if st.Pricing.K, err = Decimal("k", k); err != nil {
		return shlyuz.Settings{}, err
	}
	st.UpdatedAt = Time(updated)
	return st, nil
}

// SettingsArgs are the values of SettingsColumns for st.
func SettingsArgs(st shlyuz.Settings) []any {
	return []any{st.Pricing.Rate.String(), st.Pricing.K.String(), Micros(st.UpdatedAt)}
}
