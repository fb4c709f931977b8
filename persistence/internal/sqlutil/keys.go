package sqlutil

import "github.com/shlyuz/shlyuz"

// The key queries both stores share, with "?" placeholders.
const (
	InsertKey = `INSERT INTO api_keys (` + KeyColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// CountKeys counts the keys of an account that count toward its cap.
	CountKeys = `SELECT count(*) FROM api_keys WHERE account_id = ? AND revoked_at IS NULL`
	// WebChatKey is the account's web chat key that is not revoked, the newest first.
	WebChatKey = `SELECT ` + KeyColumns + ` FROM api_keys WHERE account_id = ? AND web_chat AND revoked_at IS NULL
		ORDER BY created_at DESC, id DESC LIMIT 1`
	UpdateKey = `UPDATE api_keys SET name = ?, spend_limit = ?, limit_reset = ?, disabled = ?, updated_at = ? WHERE id = ?`
	apiKeys   = `SELECT ` + KeyColumns + ` FROM api_keys WHERE account_id = ? AND NOT management AND NOT web_chat AND revoked_at IS NULL`
	liveKeys  = ` AND NOT disabled AND (expires_at IS NULL OR expires_at > ?)`
	keyOrder  = ` ORDER BY created_at, id LIMIT ? OFFSET ?`
)

// APIKeys is the query of a page of an account's API keys and its arguments.
func APIKeys(accountID string, p shlyuz.KeyPage) (string, []any) {
	limit := p.Limit
	if limit <= 0 {
		limit = 100
	}
	if p.LiveAt.IsZero() {
		return apiKeys + keyOrder, []any{accountID, limit, max(p.Offset, 0)}
	}
	return apiKeys + liveKeys + keyOrder, []any{accountID, Micros(p.LiveAt), limit, max(p.Offset, 0)}
}

// UpdateKeyArgs are UpdateKey's arguments for k.
func UpdateKeyArgs(k shlyuz.Key) []any {
	return []any{k.Name, k.Limit, string(k.LimitReset), k.Disabled, MicrosPtr(k.UpdatedAt), k.ID}
}
