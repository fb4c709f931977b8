package web

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// webChatKeyName names the key the web chat spends through: one per account,
// made on the first chat, its secret thrown away (only the gateway uses it).
// The key is found by its web-chat mark (shlyuz.Key.WebChat), never by this
// name, which any key made through the API may carry too.
const webChatKeyName = "shlyuz:web-chat"

// maxChatMessages bounds a conversation sent in one request.
const maxChatMessages = 200

// chatPage is the chat with the account's conversations: the one named by
// ?c=, a new one with ?new=1, else the most recently updated. The script
// loads the open conversation's messages and saves each exchange.
func (w *Web) chatPage(c *fiber.Ctx) error {
	models, def := w.chatModels()
	list, err := w.store.ConversationsOf(w.ctx(c), sessionOf(c).account.ID, maxConversations)
	if err != nil {
		return w.fail(c, err)
	}
	var open *shlyuz.Conversation
	if id := c.Query("c"); id != "" {
		for i := range list {
			if list[i].ID == id {
				open = &list[i]
			}
		}
		if open == nil {
			return w.render(c, fiber.StatusNotFound, "notice", "chat", nil, "", w.t(c, "not_found"))
		}
	} else if len(list) > 0 && c.Query("new") == "" {
		open = &list[0]
	}
	if open != nil && slices.Contains(models, open.Model) {
		def = open.Model
	}
	return w.render(c, fiber.StatusOK, "chat", "chat", fiber.Map{"Models": models, "Default": def, "Conversations": list, "Open": open,
		"Errors": chatErrors(langOf(c))}, "", "")
}

// chatSend streams a reply to the conversation through the API's chat path,
// as the account's web-chat key: the same reservation, settlement and ledger.
// The script then keeps the exchange through the conversation routes.
func (w *Web) chatSend(c *fiber.Ctx) error {
	s := sessionOf(c)
	var req conversationBody
	if err := json.Unmarshal(c.Body(), &req); err != nil {
		return shlyuz.ErrInvalidJSON(err.Error())
	}
	if len(req.Messages) == 0 || len(req.Messages) > maxChatMessages {
		return shlyuz.ErrInvalidValue("messages", "Send 1 to %d messages.", maxChatMessages)
	}
	for _, m := range req.Messages {
		if (m.Role != "user" && m.Role != "assistant") || m.Content == "" {
			return shlyuz.ErrInvalidValue("messages", "Each message is a user's or the assistant's, with text.")
		}
	}
	if _, err := w.gw.Catalog().Lookup(req.Model); err != nil {
		return err
	}
	hash, err := w.webChatKey(c, s.account.ID)
	if err != nil {
		return err
	}
	// The reply comes in the area's language unless the user writes in another.
	msgs := append([]any{map[string]string{"role": "system", "content": tr(langOf(c), "chat_system")}}, anySlice(req.Messages)...)
	body, _ := json.Marshal(map[string]any{"model": req.Model, "messages": msgs, "stream": true})
	c.Request().SetBody(body)
	return w.chatAs(c, hash)
}

// webChatKey is the hash of the account's web-chat key, made when missing.
func (w *Web) webChatKey(c *fiber.Ctx, accountID string) (string, error) {
	k, err := w.store.WebChatKey(w.ctx(c), accountID)
	if err == nil {
		return k.Hash, nil
	}
	if !errors.Is(err, shlyuz.ErrNoRows) {
		return "", shlyuz.ErrInternal(err)
	}
	_, k, kerr := w.gw.CreateKey(w.ctx(c), accountID, actors.KeySpec{Name: webChatKeyName, WebChat: true})
	if kerr != nil {
		return "", kerr
	}
	return k.Hash, nil
}

func anySlice[T any](v []T) []any {
	out := make([]any, len(v))
	for i := range v {
		out[i] = v[i]
	}
	return out
}

// chatErrors are the API's errors the chat may meet, by code, in the page's
// language: the script shows these rather than the API's English message.
func chatErrors(lang string) string {
	m := map[string]string{"": tr(lang, "err_other")}
	for code, key := range map[string]string{
		"insufficient_credits": "err_insufficient_credits", "key_limit_exceeded": "err_key_limit_exceeded",
		"rate_limited": "err_rate_limited", "model_not_available": "err_model_not_available", "model_not_found": "err_model_not_available",
		"upstream_error": "err_upstream", "upstream_timeout": "err_upstream", "provider_unavailable": "err_upstream", "overloaded": "err_upstream",
		"request_too_large": "err_request_too_large", "content_policy": "err_content_policy", "internal_error": "err_internal_error",
	} {
		m[code] = tr(lang, key)
	}
	b, _ := json.Marshal(m)
	return string(b)
}
