package shlyuz

import (
	"context"
	"time"
)

// ConversationMessage is one turn of a web chat conversation.
type ConversationMessage struct {
	Role    string `json:"role"` // "user" or "assistant"
	Content string `json:"content"`
}

// Conversation is a web chat conversation kept for its account on the server,
// so that it follows the account to every browser. Model is the one last used.
type Conversation struct {
	ID        string                `json:"id"`
	AccountID string                `json:"-"`
	Title     string                `json:"title"`
	Model     string                `json:"model"`
	Messages  []ConversationMessage `json:"messages,omitempty"`
	CreatedAt time.Time             `json:"created_at"`
	UpdatedAt time.Time             `json:"updated_at"`
}

// ConversationStore keeps the web chat's conversations. Every lookup and
// change names the account, so one account never reaches another's: another
// account's conversation is ErrNoRows, as a missing one is.
type ConversationStore interface {
	// CreateConversation stores a new conversation unless its account already
	// has max of them (ErrLimitReached), judged in the same transaction.
	// A taken id is ErrDuplicate; an unknown account ErrNoRows.
	CreateConversation(ctx context.Context, c Conversation, max int) error
	// UpdateConversation replaces the title, model, messages and update time.
	UpdateConversation(ctx context.Context, c Conversation) error
	Conversation(ctx context.Context, accountID, id string) (Conversation, error)
	// ConversationsOf lists an account's conversations without their
	// messages, the most recently updated first.
	ConversationsOf(ctx context.Context, accountID string, limit int) ([]Conversation, error)
	DeleteConversation(ctx context.Context, accountID, id string) error
}
