package web

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// The web chat's history is kept per account on the server, within bounds.
const (
	maxConversations     = 100       // per account
	maxConversationBytes = 256 << 10 // a conversation as saved: the request's body
	maxTitleRunes        = 80
)

// conversationBody is what the chat sends to be answered, and saves after each exchange.
type conversationBody struct {
	Model    string                       `json:"model"`
	Messages []shlyuz.ConversationMessage `json:"messages"`
}

// csrfHeader refuses a script's request whose X-CSRF-Token is not the session's.
func (w *Web) csrfHeader(c *fiber.Ctx) error {
	s := sessionOf(c)
	if s == nil || subtle.ConstantTimeCompare([]byte(c.Get("X-CSRF-Token")), []byte(s.ws.CSRF)) != 1 {
		return &shlyuz.Error{Status: fiber.StatusForbidden, Type: shlyuz.TypePermission, Code: "csrf", Message: w.t(c, "csrf")}
	}
	return c.Next()
}

// conversations is GET /account/chat/conversations: the account's, newest first, without messages.
func (w *Web) conversations(c *fiber.Ctx) error {
	list, err := w.store.ConversationsOf(w.ctx(c), sessionOf(c).account.ID, maxConversations)
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	if list == nil {
		list = []shlyuz.Conversation{}
	}
	return c.JSON(fiber.Map{"data": list})
}

// conversation is GET /account/chat/conversations/:id, messages and all.
func (w *Web) conversation(c *fiber.Ctx) error {
	conv, err := w.ownConversation(c)
	if err != nil {
		return err
	}
	return c.JSON(conv)
}

// createConversation is POST /account/chat/conversations: a new conversation, usually with its first exchange.
func (w *Web) createConversation(c *fiber.Ctx) error {
	body, perr := w.conversationBody(c)
	if perr != nil {
		return perr
	}
	now := w.now()
	conv := shlyuz.Conversation{ID: newID("conv-"), AccountID: sessionOf(c).account.ID, Title: title(body.Messages),
		Model: body.Model, Messages: body.Messages, CreatedAt: now, UpdatedAt: now}
	err := w.store.CreateConversation(w.ctx(c), conv, maxConversations)
	if errors.Is(err, shlyuz.ErrLimitReached) {
		return shlyuz.ErrConflict("too_many_conversations", w.t(c, "conv_too_many"), maxConversations)
	}
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	conv.Messages = nil
	return c.Status(fiber.StatusCreated).JSON(conv)
}

// saveConversation is PUT /account/chat/conversations/:id: its messages after an exchange.
func (w *Web) saveConversation(c *fiber.Ctx) error {
	body, perr := w.conversationBody(c)
	if perr != nil {
		return perr
	}
	conv := shlyuz.Conversation{ID: c.Params("id"), AccountID: sessionOf(c).account.ID, Title: title(body.Messages),
		Model: body.Model, Messages: body.Messages, UpdatedAt: w.now()}
	if err := w.store.UpdateConversation(w.ctx(c), conv); errors.Is(err, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFoundCode("conversation_not_found", "Conversation %s not found.", conv.ID)
	} else if err != nil {
		return shlyuz.ErrInternal(err)
	}
	conv.Messages = nil
	return c.JSON(conv)
}

// deleteConversation is DELETE /account/chat/conversations/:id.
func (w *Web) deleteConversation(c *fiber.Ctx) error {
	if err := w.removeConversation(c); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// deleteConversationForm is the delete button's form: back to the chat.
func (w *Web) deleteConversationForm(c *fiber.Ctx) error {
	err := w.removeConversation(c)
	var se *shlyuz.Error
	if errors.As(err, &se) && se.Status == fiber.StatusNotFound {
		return w.render(c, fiber.StatusNotFound, "notice", "chat", nil, "", w.t(c, "not_found"))
	}
	if err != nil {
		return w.fail(c, err)
	}
	return c.Redirect("/account/chat?new=1", fiber.StatusSeeOther)
}

func (w *Web) removeConversation(c *fiber.Ctx) error {
	id := c.Params("id")
	err := w.store.DeleteConversation(w.ctx(c), sessionOf(c).account.ID, id)
	if errors.Is(err, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFoundCode("conversation_not_found", "Conversation %s not found.", id)
	}
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	return nil
}

// ownConversation is the signed-in account's conversation named in the path;
// another account's is not found, as a missing one is.
func (w *Web) ownConversation(c *fiber.Ctx) (shlyuz.Conversation, error) {
	id := c.Params("id")
	conv, err := w.store.Conversation(w.ctx(c), sessionOf(c).account.ID, id)
	if errors.Is(err, shlyuz.ErrNoRows) {
		return conv, shlyuz.ErrNotFoundCode("conversation_not_found", "Conversation %s not found.", id)
	}
	if err != nil {
		return conv, shlyuz.ErrInternal(err)
	}
	return conv, nil
}

// conversationBody reads and checks a saved conversation: within the bounds
// of a conversation's size (the body's, judged before it is parsed), a known
// model, user and assistant turns (an assistant's may be empty: an image-only reply).
func (w *Web) conversationBody(c *fiber.Ctx) (conversationBody, *shlyuz.Error) {
	var b conversationBody
	tooLong := func() *shlyuz.Error {
		return (&shlyuz.Error{Status: fiber.StatusRequestEntityTooLarge, Type: shlyuz.TypeInvalidRequest, Code: "conversation_too_long",
			Message: fmt.Sprintf(w.t(c, "conv_too_long"), maxConversationBytes>>10, maxChatMessages)}).WithParam("messages")
	}
	if len(c.Body()) > maxConversationBytes {
		return b, tooLong()
	}
	if err := json.Unmarshal(c.Body(), &b); err != nil {
		return b, shlyuz.ErrInvalidJSON(err.Error())
	}
	if len(b.Messages) > maxChatMessages {
		return b, tooLong()
	}
	if _, err := w.gw.Catalog().Lookup(b.Model); err != nil {
		return b, err
	}
	for _, m := range b.Messages {
		if (m.Role != "user" && m.Role != "assistant") || (m.Role == "user" && m.Content == "") {
			return b, shlyuz.ErrInvalidValue("messages", "Each message is a user's, with text, or the assistant's.")
		}
	}
	return b, nil
}

// title names a conversation by its first user message's first line, its
// control characters made spaces (PostgreSQL keeps no NUL in text) and its
// Markdown marks dropped ("## **Hi** [there](…)" reads "Hi there").
func title(msgs []shlyuz.ConversationMessage) string {
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		t := strings.TrimSpace(m.Content)
		if i := strings.IndexByte(t, '\n'); i >= 0 {
			t = t[:i]
		}
		t = plainText(strings.TrimSpace(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, t)))
		if utf8.RuneCountInString(t) > maxTitleRunes {
			t = string([]rune(t)[:maxTitleRunes-1]) + "…"
		}
		return t
	}
	return ""
}

var (
	mdLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdLead   = regexp.MustCompile(`^(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)+`)
	mdMarks  = regexp.MustCompile("(\\*\\*|__|~~|`+)")
	mdSingle = regexp.MustCompile(`(^|[\s(])[*_]([^*_\s][^*_]*)[*_]`)
)

// plainText drops a line's Markdown marks: headings, quotes, list bullets, emphasis, code ticks, links (their text stays).
func plainText(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdLead.ReplaceAllString(s, "")
	s = mdMarks.ReplaceAllString(s, "")
	s = mdSingle.ReplaceAllString(s, "$1$2")
	return strings.TrimSpace(s)
}
