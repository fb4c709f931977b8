package gemini

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// toolCall is a functionCall part in OpenAI's terms. Gemini gives function
// calls no ids, so the adapter makes them: "call_<generation>_<n>", n
// counting the calls of the reply, plus the part's thought signature when it
// has one (see sigSep).
type toolCall struct {
	id   string
	name string
	args []byte // a JSON object
}

func newToolCall(generationID string, n int, p *part) toolCall {
	id := "call_"
	if g := strings.TrimPrefix(generationID, "gen-"); g != "" {
		id += g + "_"
	}
	id += strconv.Itoa(n)
	if p.ThoughtSignature != "" {
		id += sigSep + p.ThoughtSignature
	}
	args := []byte("{}")
	if a := bytes.TrimSpace(p.FunctionCall.Args); len(a) > 0 && !isNull(a) {
		var buf bytes.Buffer
		if json.Compact(&buf, a) == nil {
			args = buf.Bytes()
		}
	}
	return toolCall{id: id, name: p.FunctionCall.Name, args: args}
}

// appendJSON appends the OpenAI tool call; index >= 0 adds the "index" a
// stream delta carries.
// appendImages writes the image parts of a reply as OpenRouter's
// "images":[{"type":"image_url","image_url":{"url":"data:…"}}], led by a
// comma when sep; it reports whether there was any.
func appendImages(b []byte, parts []part, sep bool) ([]byte, bool) {
	n := 0
	for i := range parts {
		p := &parts[i]
		if p.Thought || p.InlineData == nil || !strings.HasPrefix(p.InlineData.MimeType, "image/") {
			continue
		}
		if n == 0 {
			if sep {
				b = append(b, ',')
			}
			b = append(b, `"images":[`...)
		} else {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"type":"image_url","image_url":{"url":`...)
		b = appendJSONString(b, "data:"+p.InlineData.MimeType+";base64,"+p.InlineData.Data)
		b = append(b, "}}"...)
	}
	if n > 0 {
		b = append(b, ']')
	}
	return b, n > 0
}

func (tc *toolCall) appendJSON(b []byte, index int) []byte {
	b = append(b, '{')
	if index >= 0 {
		b = append(b, `"index":`...)
		b = strconv.AppendInt(b, int64(index), 10)
		b = append(b, ',')
	}
	b = append(b, `"id":`...)
	b = appendJSONString(b, tc.id)
	b = append(b, `,"type":"function","function":{"name":`...)
	b = appendJSONString(b, tc.name)
	b = append(b, `,"arguments":`...)
	b = appendJSONString(b, string(tc.args))
	return append(b, "}}"...)
}

// chunker turns the chunks of a Gemini stream into OpenAI chunks.
type chunker struct {
	generationID string
	prefix       []byte // {"id":…,"object":"chat.completion.chunk","created":…,"model":…,"choices":[{"index":0,"delta":
	clientUsage  bool   // the client asked for usage: chunks carry "usage":null, as OpenAI's do
	roleSent     bool
	calls        int   // function calls so far
	counted      int64 // completion tokens reported through CompletionTokens so far
	finished     bool
}

func newChunker(req *shlyuz.UpstreamRequest, created int64) *chunker {
	c := &chunker{generationID: req.GenerationID}
	var so struct {
		IncludeUsage bool `json:"include_usage"`
	}
	if raw, ok := present(req.Fields, "stream_options"); ok && json.Unmarshal(raw, &so) == nil {
		c.clientUsage = so.IncludeUsage
	}
	b := append([]byte(nil), `{"id":`...)
	b = appendJSONString(b, req.GenerationID)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, req.Model)
	b = append(b, `,"choices":[{"index":0,"delta":`...)
	c.prefix = b
	return c
}

// convert handles one Gemini chunk; skip means it produced nothing to send.
func (c *chunker) convert(w *wireResponse) (ev shlyuz.StreamEvent, skip bool, err *shlyuz.Error) {
	if w.Error != nil {
		return ev, false, w.Error.streamError()
	}
	if w.UsageMetadata != nil {
		u := w.UsageMetadata.usage()
		ev.Usage = &u
	}
	if len(w.Candidates) == 0 {
		if w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "" {
			return ev, false, blockedError(w.PromptFeedback)
		}
		if ev.Usage == nil {
			return ev, true, nil
		}
		ev.CompletionTokens = c.tokens(ev.Usage, false)
		return ev, false, nil // a usage-only chunk
	}
	cand := &w.Candidates[0]
	var text strings.Builder
	var calls []toolCall
	if cand.Content != nil {
		for i := range cand.Content.Parts {
			p := &cand.Content.Parts[i]
			switch {
			case p.Thought:
			case p.FunctionCall != nil:
				calls = append(calls, newToolCall(c.generationID, c.calls+len(calls), p))
			default:
				text.WriteString(p.Text)
			}
		}
	}
	first := c.calls
	c.calls += len(calls)
	finish := finishReason(cand.FinishReason, c.calls > 0)
	var parts []part
	if cand.Content != nil {
		parts = cand.Content.Parts
	}
	images, hasImages := appendImages(nil, parts, false)
	hasContent := text.Len() > 0 || len(calls) > 0 || hasImages
	ev.CompletionTokens = c.tokens(ev.Usage, hasContent)
	if !hasContent && finish == "" {
		if ev.Usage == nil {
			return ev, true, nil
		}
		return ev, false, nil // thinking, or an empty part: only its usage counts
	}

	b := make([]byte, 0, len(c.prefix)+text.Len()+96)
	b = append(b, c.prefix...)
	b = append(b, '{')
	sep := false
	if !c.roleSent {
		c.roleSent = true
		b = append(b, `"role":"assistant","content":`...)
		if text.Len() == 0 && len(calls) > 0 {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, text.String())
		}
		sep = true
	} else if text.Len() > 0 {
		b = append(b, `"content":`...)
		b = appendJSONString(b, text.String())
		sep = true
	}
	if len(calls) > 0 {
		if sep {
			b = append(b, ',')
		}
		b = append(b, `"tool_calls":[`...)
		for i := range calls {
			if i > 0 {
				b = append(b, ',')
			}
			b = calls[i].appendJSON(b, first+i)
		}
		b = append(b, ']')
		sep = true
	}
	if hasImages {
		if sep {
			b = append(b, ',')
		}
		b = append(b, images...)
	}
	b = append(b, `},"logprobs":null,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, finish)
		c.finished = true
	}
	b = append(b, "}]"...)
	if c.clientUsage {
		b = append(b, `,"usage":null`...)
	}
	b = append(b, '}')
	ev.Data = b
	ev.FinishReason = finish
	return ev, false, nil
}

// tokens is the completion tokens an event carried: the growth of the
// running usage when the chunk has usage, else one per content-bearing chunk.
func (c *chunker) tokens(u *shlyuz.Usage, hasContent bool) int64 {
	if u != nil {
		d := max(0, u.CompletionTokens-c.counted)
		c.counted += d
		return d
	}
	if hasContent {
		c.counted++
		return 1
	}
	return 0
}

// blockedError is a prompt Gemini refused to answer (promptFeedback.blockReason).
func blockedError(pf *promptFeedback) *shlyuz.Error {
	detail := ""
	if m := upstream.Clip(pf.BlockReasonMessage); m != "" {
		detail = ": " + m
	}
	e := shlyuz.ErrInvalidValue("messages",
		"The upstream refused to answer this prompt (blocked for %s%s). Rephrase the prompt; nothing was charged.",
		safeWord(pf.BlockReason), detail)
	e.Code = "content_filter"
	return e
}

// appendJSONString appends s as a JSON string literal, escaping only what
// JSON requires (and U+2028/U+2029, which break JavaScript), and replacing
// invalid UTF-8.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
