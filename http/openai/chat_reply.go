package openai

import (
	"strconv"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/internal/recordjson"
)

// replyBufs keeps the buffers non-streamed replies are written into before
// fasthttp copies them into its own.
var replyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// sendCompletion answers with the chat.completion: the bytes json.Marshal
// writes for the completion, written by hand, since encoding/json's
// reflection and its boxes were a tenth of the handler's own work. A reply
// that json.Marshal would rewrite (choices not compact, a <, > or & it
// escapes) goes to c.JSON.
func sendCompletion(c *fiber.Ctx, id string, resp *shlyuz.ChatResponse, r *actors.Receipt) error {
	bp := replyBufs.Get().(*[]byte)
	defer replyBufs.Put(bp)
	b, ok := appendCompletion((*bp)[:0], id, resp, r)
	*bp = b[:0]
	if !ok {
		return c.JSON(&completion{ID: id, Object: "chat.completion", Created: resp.Created, Model: r.Model,
			Choices: resp.Choices, Usage: newUsage(r), SystemFingerprint: resp.SystemFingerprint})
	}
	c.Response().SetBody(b)
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	return nil
}

// appendCompletion appends the completion's JSON; ok is false when
// json.Marshal would write other bytes than these.
func appendCompletion(b []byte, id string, resp *shlyuz.ChatResponse, r *actors.Receipt) (_ []byte, ok bool) {
	if !htmlSafe(id) || !htmlSafe(r.Model) || !htmlSafe(resp.SystemFingerprint) || !compactSafe(resp.Choices) {
		return b, false
	}
	b = append(b, `{"id":`...)
	b = plainjson.AppendString(b, id)
	b = append(b, `,"object":"chat.completion","created":`...)
	b = strconv.AppendInt(b, resp.Created, 10)
	b = append(b, `,"model":`...)
	b = plainjson.AppendString(b, r.Model)
	b = append(b, `,"choices":`...)
	if len(resp.Choices) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, resp.Choices...)
	}
	u := &r.Usage
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, u.PromptTokens, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, u.CompletionTokens, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, u.TotalTokens, 10)
	b = recordjson.AppendDetails(b, ',', u.PromptDetails(), u.CompletionDetails(), nil)
	b = append(b, `,"credits":`...)
	b = strconv.AppendInt(b, r.Credits, 10)
	b = recordjson.AppendDetails(b, ',', nil, nil, &r.Details)
	b = append(b, `,"cost":`...)
	b = strconv.AppendInt(b, r.Credits, 10)
	b = append(b, '}')
	if resp.SystemFingerprint != "" {
		b = append(b, `,"system_fingerprint":`...)
		b = plainjson.AppendString(b, resp.SystemFingerprint)
	}
	return append(b, '}'), true
}

// htmlSafe reports whether s has none of the characters encoding/json
// escapes for HTML and plainjson writes as they are.
func htmlSafe(s string) bool { return !strings.ContainsAny(s, "<>&") }

// compactSafe reports whether json.Marshal writes the valid JSON v (a
// json.RawMessage) as it is: no space outside its strings, none of <, > and
// &, no U+2028 or U+2029.
func compactSafe(v []byte) bool {
	in := false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			in = !in
		case '\\':
			i++ // inside a string: the escaped character is not its end
		case ' ', '\t', '\n', '\r':
			if !in {
				return false
			}
		case '<', '>', '&':
			return false
		case 0xe2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 < len(v) && v[i+1] == 0x80 && (v[i+2] == 0xa8 || v[i+2] == 0xa9) {
				return false
			}
		}
	}
	return true
}
