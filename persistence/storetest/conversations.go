package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// testConversations: a conversation is stored with its messages (text as
// given, Unicode and markup included), replaced, listed newest first without
// messages, deleted; another account's conversation is ErrNoRows to every method.
func testConversations(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	msgs := []shlyuz.ConversationMessage{{Role: "user", Content: "Привет, <b>мир</b> \"и\" `код`\n"}, {Role: "assistant", Content: "**Здравствуйте!** 🙂"}}
	one := shlyuz.Conversation{ID: "conv-1", AccountID: "acct-1", Title: "Привет", Model: "test/model", Messages: msgs, CreatedAt: at(0), UpdatedAt: at(0)}
	two := shlyuz.Conversation{ID: "conv-2", AccountID: "acct-1", Title: "Second", Model: "test/other", CreatedAt: at(time.Second), UpdatedAt: at(time.Second)}
	for _, c := range []shlyuz.Conversation{one, two} {
		if err := s.CreateConversation(ctx, c, 10); err != nil {
			t.Fatalf("CreateConversation(%s): %v", c.ID, err)
		}
	}
	if err := s.CreateConversation(ctx, one, 10); !errors.Is(err, shlyuz.ErrDuplicate) {
		t.Errorf("CreateConversation twice = %v; want ErrDuplicate", err)
	}
	if err := s.CreateConversation(ctx, shlyuz.Conversation{ID: "conv-x", AccountID: "nobody", CreatedAt: at(0), UpdatedAt: at(0)}, 10); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Errorf("CreateConversation(nobody) = %v; want ErrNoRows", err)
	}
	got, err := s.Conversation(ctx, "acct-1", "conv-1")
	if err != nil || got.Title != "Привет" || got.Model != "test/model" || !slices.Equal(got.Messages, msgs) ||
		!got.CreatedAt.Equal(norm(one.CreatedAt)) || got.CreatedAt.Location() != time.UTC || got.AccountID != "acct-1" {
		t.Fatalf("Conversation = %+v %v", got, err)
	}
	if got, err := s.Conversation(ctx, "acct-1", "conv-2"); err != nil || got.Messages == nil || len(got.Messages) != 0 {
		t.Errorf("a conversation without messages = %+v %v; want an empty list", got, err)
	}

	// Another account sees none of it and changes none of it.
	_, err = s.Conversation(ctx, "acct-2", "conv-1")
	wantNoRows(t, "Conversation of another account", err)
	wantNoRows(t, "UpdateConversation of another account", s.UpdateConversation(ctx, shlyuz.Conversation{ID: "conv-1", AccountID: "acct-2", UpdatedAt: at(time.Hour)}))
	wantNoRows(t, "DeleteConversation of another account", s.DeleteConversation(ctx, "acct-2", "conv-1"))
	if list, err := s.ConversationsOf(ctx, "acct-2", 10); err != nil || len(list) != 0 {
		t.Errorf("ConversationsOf(acct-2) = %+v %v; want none", list, err)
	}
	_, err = s.Conversation(ctx, "acct-1", "nothing")
	wantNoRows(t, "Conversation(nothing)", err)

	// The update moves conv-1 to the top of the list.
	more := append(slices.Clone(msgs), shlyuz.ConversationMessage{Role: "user", Content: "Ещё"}, shlyuz.ConversationMessage{Role: "assistant", Content: ""})
	one.Title, one.Model, one.Messages, one.UpdatedAt = "Renamed", "test/other", more, at(time.Minute)
	if err := s.UpdateConversation(ctx, one); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Conversation(ctx, "acct-1", "conv-1"); err != nil || got.Title != "Renamed" || got.Model != "test/other" ||
		!slices.Equal(got.Messages, more) || !got.UpdatedAt.Equal(norm(at(time.Minute))) || !got.CreatedAt.Equal(norm(at(0))) {
		t.Fatalf("Conversation after update = %+v %v", got, err)
	}
	list, err := s.ConversationsOf(ctx, "acct-1", 10)
	if err != nil || len(list) != 2 || list[0].ID != "conv-1" || list[1].ID != "conv-2" || list[0].Messages != nil ||
		list[0].Title != "Renamed" || !list[0].UpdatedAt.Equal(norm(at(time.Minute))) {
		t.Fatalf("ConversationsOf = %+v %v; want conv-1 then conv-2, without messages", list, err)
	}
	if list, _ := s.ConversationsOf(ctx, "acct-1", 1); len(list) != 1 {
		t.Errorf("ConversationsOf(limit 1) = %d", len(list))
	}

	if err := s.DeleteConversation(ctx, "acct-1", "conv-1"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Conversation(ctx, "acct-1", "conv-1")
	wantNoRows(t, "Conversation after delete", err)
	wantNoRows(t, "DeleteConversation twice", s.DeleteConversation(ctx, "acct-1", "conv-1"))
	wantNoRows(t, "UpdateConversation after delete", s.UpdateConversation(ctx, one))
}

// testConversationLimit: an account holds at most max conversations, even
// when many are created at once; another account is not counted.
func testConversationLimit(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	const max, tries = 3, 12
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created int
		start   = make(chan struct{})
	)
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c := shlyuz.Conversation{ID: fmt.Sprintf("conv-%02d", i), AccountID: "acct-1", Title: "t", Model: "m", CreatedAt: at(0), UpdatedAt: at(0)}
			err := s.CreateConversation(ctx, c, max)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created++
			case !errors.Is(err, shlyuz.ErrLimitReached):
				t.Errorf("CreateConversation(%s) = %v; want nil or ErrLimitReached", c.ID, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if list, err := s.ConversationsOf(ctx, "acct-1", 100); err != nil || created != max || len(list) != max {
		t.Fatalf("%d created, %d listed (%v); want %d", created, len(list), err, max)
	}
	if err := s.CreateConversation(ctx, shlyuz.Conversation{ID: "other", AccountID: "acct-2", CreatedAt: at(0), UpdatedAt: at(0)}, max); err != nil {
		t.Fatalf("another account's first conversation: %v", err)
	}
	list, _ := s.ConversationsOf(ctx, "acct-1", 100)
	if err := s.DeleteConversation(ctx, "acct-1", list[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateConversation(ctx, shlyuz.Conversation{ID: "again", AccountID: "acct-1", CreatedAt: at(0), UpdatedAt: at(0)}, max); err != nil {
		t.Fatalf("after a delete, room for one more: %v", err)
	}
}
