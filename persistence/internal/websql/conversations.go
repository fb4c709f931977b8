package websql

import (
	"encoding/json"
	"fmt"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// The web chat's conversations. Every statement names the account, so no
// account reaches another's conversation.
const (
	conversationHead   = `id, account_id, title, model, created_at, updated_at`
	CountConversations = `SELECT COUNT(*) FROM web_conversations WHERE account_id = ?`
	InsertConversation = `INSERT INTO web_conversations (id, account_id, title, model, messages, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`
	UpdateConversation = `UPDATE web_conversations SET title = ?, model = ?, messages = ?, updated_at = ? WHERE id = ? AND account_id = ?`
	Conversation       = `SELECT ` + conversationHead + `, messages FROM web_conversations WHERE id = ? AND account_id = ?`
	ConversationsOf    = `SELECT ` + conversationHead + ` FROM web_conversations WHERE account_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?`
	DeleteConversation = `DELETE FROM web_conversations WHERE id = ? AND account_id = ?`
)

// ConversationArgs are InsertConversation's arguments.
func ConversationArgs(c shlyuz.Conversation) ([]any, error) {
	msgs, err := messagesJSON(c)
	if err != nil {
		return nil, err
	}
	return []any{c.ID, c.AccountID, c.Title, c.Model, msgs, sqlutil.Micros(c.CreatedAt), sqlutil.Micros(c.UpdatedAt)}, nil
}

// UpdateConversationArgs are UpdateConversation's arguments.
func UpdateConversationArgs(c shlyuz.Conversation) ([]any, error) {
	msgs, err := messagesJSON(c)
	if err != nil {
		return nil, err
	}
	return []any{c.Title, c.Model, msgs, sqlutil.Micros(c.UpdatedAt), c.ID, c.AccountID}, nil
}

func messagesJSON(c shlyuz.Conversation) (string, error) {
	if c.Messages == nil {
		return "[]", nil
	}
	b, err := json.Marshal(c.Messages)
	if err != nil {
		return "", fmt.Errorf("conversation %s: %w", c.ID, err)
	}
	return string(b), nil
}

// ScanConversationHead reads a ConversationsOf row: a conversation without its messages.
func ScanConversationHead(row sqlutil.Scanner) (shlyuz.Conversation, error) {
	var c shlyuz.Conversation
	var created, updated int64
	err := row.Scan(&c.ID, &c.AccountID, &c.Title, &c.Model, &created, &updated)
	c.CreatedAt, c.UpdatedAt = sqlutil.Time(created), sqlutil.Time(updated)
	return c, err
}

// ScanConversation reads a Conversation row, messages and all.
func ScanConversation(row sqlutil.Scanner) (shlyuz.Conversation, error) {
	var c shlyuz.Conversation
	var created, updated int64
	var msgs string
	if err := row.Scan(&c.ID, &c.AccountID, &c.Title, &c.Model, &created, &updated, &msgs); err != nil {
		return c, err
	}
	c.CreatedAt, c.UpdatedAt = sqlutil.Time(created), sqlutil.Time(updated)
	c.Messages = []shlyuz.ConversationMessage{}
	if err := json.Unmarshal([]byte(msgs), &c.Messages); err != nil {
		return c, fmt.Errorf("web_conversations.messages of %s: %w", c.ID, err)
	}
	return c, nil
}
