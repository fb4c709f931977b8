package cockroach

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/websql"
)

// CreateConversation stores a new conversation unless its account has max
// already; the count and the insert share one serializable transaction.
func (s *Store) CreateConversation(ctx context.Context, c shlyuz.Conversation, max int) error {
	args, err := websql.ConversationArgs(c)
	if err != nil {
		return fmt.Errorf("cockroach: create %w", err)
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, rebind(websql.CountConversations), c.AccountID).Scan(&n); err != nil {
			return fmt.Errorf("cockroach: count conversations of %s: %w", c.AccountID, err)
		}
		if n >= max {
			return fmt.Errorf("cockroach: create conversation: %s has %d: %w", c.AccountID, n, shlyuz.ErrLimitReached)
		}
		_, err := tx.Exec(ctx, rebind(websql.InsertConversation), args...)
		switch {
		case isUniqueViolation(err):
			return fmt.Errorf("cockroach: create conversation %s: %w", c.ID, shlyuz.ErrDuplicate)
		case isForeignKeyViolation(err):
			return fmt.Errorf("cockroach: create conversation of %s: %w", c.AccountID, shlyuz.ErrNoRows)
		case err != nil:
			return fmt.Errorf("cockroach: create conversation %s: %w", c.ID, err)
		}
		return nil
	})
}

// UpdateConversation replaces a conversation's title, model, messages and update time.
func (s *Store) UpdateConversation(ctx context.Context, c shlyuz.Conversation) error {
	args, err := websql.UpdateConversationArgs(c)
	if err != nil {
		return fmt.Errorf("cockroach: update %w", err)
	}
	return s.touchOne(ctx, "update conversation "+c.ID, websql.UpdateConversation, args...)
}

// Conversation returns the account's conversation with the id, or shlyuz.ErrNoRows.
func (s *Store) Conversation(ctx context.Context, accountID, id string) (shlyuz.Conversation, error) {
	return one(s, ctx, "conversation "+id, websql.ScanConversation, websql.Conversation, id, accountID)
}

// ConversationsOf lists the account's conversations without messages, the most recently updated first.
func (s *Store) ConversationsOf(ctx context.Context, accountID string, limit int) ([]shlyuz.Conversation, error) {
	return query(s, ctx, "conversations of "+accountID, websql.ScanConversationHead, websql.ConversationsOf, accountID, limit)
}

// DeleteConversation removes the account's conversation; shlyuz.ErrNoRows when it has none with the id.
func (s *Store) DeleteConversation(ctx context.Context, accountID, id string) error {
	return s.touchOne(ctx, "delete conversation "+id, websql.DeleteConversation, id, accountID)
}
