package anthropic

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/shlyuz/shlyuz/http/internal/api"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/bodyroom"
	"github.com/shlyuz/shlyuz/tokens"
)

// The one-pass reading of a Messages request, for the shape long contexts
// take (a coding agent's conversation: turns and a system prompt of text,
// string or text blocks). The turns' text is never decoded and encoded
// again: chat's messages are written around the client's own string
// literals (verbatimString), so the result means what the full decode
// (json.Unmarshal of the whole body, chatFields) writes, byte for byte
// where the client's literals are what encoding/json writes, and the same
// text where they escape more (\u00e9, \u003c). Anything else (images, a
// literal that is not valid UTF-8 or escapes half a surrogate pair, a key
// encoding/json would match without case) makes fastMessages give up, and
// the full decode answers, errors included.

// DecodeOthers decodes the members of the split body top but the skipped
// ones into v, as json.Unmarshal of the whole body would; false when a key
// is one encoding/json might match to a field without case (the full
// decode then answers) or the members do not decode.
func DecodeOthers(top map[string]json.RawMessage, v any, skip ...string) bool {
	rest := []byte{'{'}
	for k, m := range top {
		if !api.PlainKey(k) {
			return false
		}
		if slices.Contains(skip, k) {
			continue
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest = append(append(append(append(rest, '"'), k...), `":`...), m...)
	}
	return json.Unmarshal(append(rest, '}'), v) == nil
}

// fastMessages fills r from the split body top, except its Messages, and
// returns chat's messages (the JSON chatFields would write, never empty)
// with their estimate (EstimatePrompt's, counted as they are written), or
// ok false.
// The body was validated when it was split.
func fastMessages(top map[string]json.RawMessage, r *anthropicRequest) (msgs json.RawMessage, est tokens.PromptEstimate, ok bool) {
	if !DecodeOthers(top, r, "messages", "system", "tools") {
		return nil, est, false
	}
	var toolsOK bool
	if r.chatTools, toolsOK = api.FastTools(top["tools"], &api.MessagesTools); !toolsOK { // fast_tools.go
		return nil, est, false
	}
	r.System = top["system"] // a span of the body, as top's: no copy
	turns, set := top["messages"]
	if !set || len(turns) == 0 || turns[0] != '[' {
		return nil, est, false
	}
	m := NewMessagesWriter(len(turns)+len(r.System), len(top["tools"]))
	if !m.system(r.System) {
		return nil, est, false
	}
	if n, ok := api.EachElement(turns, m.turn); !ok || n == 0 {
		return nil, est, false // no turns: the full decode says what is missing
	}
	msgs = m.Done()
	r.room = m.Room(msgs)
	return msgs, m.Tally.Estimate(), true // r.Messages stays nil: msgs stands for it
}

// writerCap is the room a messagesWriter takes at once for n bytes of the
// client's turns: chat's form of a long conversation is about as long (a
// turn's text as is, a few bytes of framing more or less), so one
// allocation mostly holds it, not a doubling series of them.
func writerCap(n int) int { return n + n/16 + 256 }

// NewMessagesWriter is a writer for n bytes of the client's turns. For a
// large conversation its buffer has room for the rest of the upstream's body
// around the messages (as much as the client's tools, ending it, besides),
// which an adapter writes there instead of copying the messages (room).
func NewMessagesWriter(n, tools int) MessagesWriter {
	if n < api.LendMin {
		return MessagesWriter{B: make([]byte, 0, writerCap(n))}
	}
	return MessagesWriter{B: make([]byte, lendHead, lendHead+writerCap(n)+tools+api.BodyTailroom), head: lendHead}
}

// lendHead is the room before a large conversation's messages in a
// messagesWriter's buffer, for {"messages": (after them: bodyTailroom, and
// the tools' size).
const lendHead = 16

// Room lends the writer's buffer around msgs, the messages it wrote (nil
// when it wrote them with no room around).
func (m *MessagesWriter) Room(msgs json.RawMessage) *shlyuz.BodyRoom {
	if m.head == 0 {
		return nil
	}
	return bodyroom.New(m.B, "messages", msgs)
}

// MessagesWriter writes chat's messages array as chatFields's encoder
// would, and counts it as EstimatePrompt would (tally).
type MessagesWriter struct {
	B     []byte
	head  int // bytes of b before the messages (newMessagesWriter)
	n     int
	Tally tokens.PromptTally
	texts []textSpan // a turn's texts held back (anthropic_fast_tools.go)
	calls []block    // an assistant turn's tool_use blocks
	Asst  int8       // the last message written is an assistant's: 1, with tool_calls 2 (responses_fast_calls.go)
}

func (m *MessagesWriter) Open() {
	if m.n == 0 {
		m.B = append(m.B, '[')
	} else {
		m.B = append(m.B, ',')
	}
	m.n++
}

func (m *MessagesWriter) Done() json.RawMessage {
	if m.n == 0 {
		return json.RawMessage("null") // a nil []map[string]any
	}
	m.B = append(m.B, ']')
	return m.B[m.head:]
}

// Message writes {"content":content,"role":role}; content is a string
// literal.
func (m *MessagesWriter) Message(role string, content []byte) {
	m.Tally.Message()
	m.Tally.Text(content)
	m.Open()
	m.B = append(append(append(append(append(m.B, `{"content":`...), content...), `,"role":"`...), role...), `"}`...)
}

// system writes the system prompt's message (systemText), if any.
func (m *MessagesWriter) system(raw json.RawMessage) bool {
	if len(raw) == 0 || api.IsNull(raw) {
		return true
	}
	if raw[0] == '"' {
		if !api.VerbatimString(raw) {
			return false
		}
		if len(raw) > 2 {
			m.Message("system", raw)
		}
		return true
	}
	return m.systemParts(raw)
}

// turn writes the message (chatMessages) of the turn of text only at
// b[vs] and returns where the turn ends.
func (m *MessagesWriter) turn(b []byte, vs int) (int, bool) {
	var role, content []byte
	var verbatim bool
	end, ok := api.EachMember(b, vs, func(key, v []byte, c bool) bool {
		switch string(key) {
		case "role":
			role = v
		case "content":
			content, verbatim = v, c
		}
		return true
	})
	if !ok || len(content) == 0 || api.IsNull(content) {
		return 0, false
	}
	return end, m.turnOf(role, content, verbatim)
}

// turnOf writes the message of a turn of role (a literal) and content;
// verbatim tells whether content is a string copied as it stands (eachMember).
func (m *MessagesWriter) turnOf(role, content []byte, verbatim bool) bool {
	switch string(role) {
	case `"user"`:
		if content[0] == '"' {
			if !verbatim {
				return false
			}
			if len(content) > 2 { // an empty text carries nothing
				m.Tally.Message()
				m.Tally.Text(content)
				m.Open()
				m.B = append(append(append(m.B, `{"content":[{"text":`...), content...), `,"type":"text"}],"role":"user"}`...)
			}
			return true
		}
		return m.userBlocks(content) // anthropic_fast_tools.go
	case `"assistant"`:
		return m.assistant(content, verbatim)
	case `"system"`: // a system message mid-conversation: chat carries it where it stands
		return m.system(content)
	}
	return false
}

// systemParts writes the system prompt's message of text parts, each
// keeping its cache_control, an empty text a part too (systemText); none, no
// message.
func (m *MessagesWriter) systemParts(blocks []byte) bool {
	mark, n := len(m.B), m.n
	m.Open()
	m.B = append(m.B, `{"content":[`...)
	count := 0
	ok := eachText(blocks, func(text, cache []byte) bool {
		if len(text) <= 2 { // "" or absent
			text = []byte(`""`)
		}
		count++
		return m.textPart(count > 1, text, cache)
	})
	if !ok {
		return false
	}
	if count == 0 {
		m.B, m.n = m.B[:mark], n
		return true
	}
	m.B = append(m.B, `],"role":"system"}`...)
	m.Tally.Message()
	return true
}

// textPart writes a text part (after a comma with comma), keeping its
// cache_control as chat's encoder writes it (compact).
func (m *MessagesWriter) textPart(comma bool, text, cache []byte) bool {
	if comma {
		m.B = append(m.B, ',')
	}
	m.B = append(m.B, '{')
	if len(cache) > 0 && !api.IsNull(cache) {
		var c bytes.Buffer
		if json.Compact(&c, cache) != nil {
			return false
		}
		m.B = append(append(append(m.B, `"cache_control":`...), c.Bytes()...), ',')
	}
	m.B = append(append(append(m.B, `"text":`...), text...), `,"type":"text"}`...)
	m.Tally.Text(text)
	return true
}

// assistant writes an assistant turn of a string (its blocks:
// assistantBlocks).
func (m *MessagesWriter) assistant(content []byte, verbatim bool) bool {
	if content[0] != '"' {
		return m.assistantBlocks(content) // anthropic_fast_tools.go
	}
	if !verbatim {
		return false
	}
	if len(content) > 2 { // nothing said: no message
		m.Message("assistant", content)
	}
	return true
}

// eachText calls each for every block of an array of text blocks ({type:
// "text", text, cache_control} and nothing else) with its text literal
// (verbatimString) (nil when absent) and its cache_control; false for anything else.
func eachText(blocks []byte, each func(text, cache []byte) bool) bool {
	_, ok := api.EachElement(blocks, func(b []byte, vs int) (int, bool) {
		var typ, text, cache []byte
		var verbatim bool
		end, ok := api.EachMember(b, vs, func(key, v []byte, c bool) bool {
			switch string(key) {
			case "type":
				typ = v
			case "text":
				text, verbatim = v, c
			case "cache_control":
				cache = v
			default:
				return false
			}
			return true
		})
		if !ok || string(typ) != `"text"` || text != nil && !verbatim {
			return 0, false
		}
		return end, each(text, cache)
	})
	return ok
}
