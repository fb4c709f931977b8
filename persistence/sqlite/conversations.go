package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/websql"
)

// CreateConversation stores a new conversation unless its account has max already.
func (s *Store) CreateConversation(ctx context.Context, c shlyuz.Conversation, max int) error {
	args, err := websql.ConversationArgs(c)
	if err != nil {
		return fmt.Errorf("sqlite: create %w", err)
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, websql.CountConversations, c.AccountID).Scan(&n); err != nil {
			return fmt.Errorf("sqlite: count conversations of %s: %w", c.AccountID, err)
		}
		if n >= max {
			return fmt.Errorf("sqlite: create conversation: %s has %d: %w", c.AccountID, n, shlyuz.ErrLimitReached)
		}
		_, err := tx.ExecContext(ctx, websql.InsertConversation, args...)
		switch {
		case isUniqueViolation(err):
			return fmt.Errorf("sqlite: create conversation %s: %w", c.ID, shlyuz.ErrDuplicate)
		case isForeignKeyViolation(err):
			return fmt.Errorf("sqlite: create conversation of %s: %w", c.AccountID, shlyuz.ErrNoRows)
		case err != nil:
			return fmt.Errorf("sqlite: create conversation %s: %w", c.ID, err)
		}
		return nil
	})
}

// UpdateConversation replaces a conversation's title, model, messages and update time.
func (s *Store) UpdateConversation(ctx context.Context, c shlyuz.Conversation) error {
	args, err := websql.UpdateConversationArgs(c)
	if err != nil {
		return fmt.Errorf("sqlite: update %w", err)
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, websql.UpdateConversation, args...)
		return touchedOne(res, err, "update conversation "+c.ID)
	})
}

// Conversation returns the account's conversation with the id, or shlyuz.ErrNoRows.
func (s *Store) Conversation(ctx context.Context, accountID, id string) (shlyuz.Conversation, error) {
	c, err := websql.ScanConversation(s.db.QueryRowContext(ctx, websql.Conversation, id, accountID))
	if err != nil {
		return shlyuz.Conversation{}, notFound(err, "conversation "+id)
	}
	return c, nil
}

// ConversationsOf lists the account's conversations without messages, the most recently updated first.
func (s *Store) ConversationsOf(ctx context.Context, accountID string, limit int) ([]shlyuz.Conversation, error) {
	return query(s, ctx, "conversations of "+accountID, websql.ScanConversationHead, websql.ConversationsOf, accountID, limit)
}

// DeleteConversation removes the account's conversation; shlyuz.ErrNoRows when it has none with the id.
func (s *Store) DeleteConversation(ctx context.Context, accountID, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, websql.DeleteConversation, id, accountID)
		return touchedOne(res, err, "delete conversation "+id)
	})
}
