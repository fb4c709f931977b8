package http

import (
	"bytes"
	"encoding/json"
	"slices"

	shlyuz "github.com/shlyuz/shlyuz"

	"github.com/shlyuz/shlyuz/internal/bodyroom"
	"github.com/shlyuz/shlyuz/internal/jsonscan"
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

// decodeOthers decodes the members of the split body top but the skipped
// ones into v, as json.Unmarshal of the whole body would; false when a key
// is one encoding/json might match to a field without case (the full
// decode then answers) or the members do not decode.
func decodeOthers(top map[string]json.RawMessage, v any, skip ...string) bool {
	rest := []byte{'{'}
	for k, m := range top {
		if !plainKey(k) {
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
	if !decodeOthers(top, r, "messages", "system", "tools") {
		return nil, est, false
	}
	var toolsOK bool
	if r.chatTools, toolsOK = fastTools(top["tools"], &messagesTools); !toolsOK { // fast_tools.go
		return nil, est, false
	}
	r.System = top["system"] // a span of the body, as top's: no copy
	turns, set := top["messages"]
	if !set || len(turns) == 0 || turns[0] != '[' {
		return nil, est, false
	}
	m := newMessagesWriter(len(turns)+len(r.System), len(top["tools"]))
	if !m.system(r.System) {
		return nil, est, false
	}
	if n, ok := eachElement(turns, m.turn); !ok || n == 0 {
		return nil, est, false // no turns: the full decode says what is missing
	}
	msgs = m.done()
	r.room = m.room(msgs)
	return msgs, m.tally.Estimate(), true // r.Messages stays nil: msgs stands for it
}

// writerCap is the room a messagesWriter takes at once for n bytes of the
// client's turns: chat's form of a long conversation is about as long (a
// turn's text as is, a few bytes of framing more or less), so one
// allocation mostly holds it, not a doubling series of them.
func writerCap(n int) int { return n + n/16 + 256 }

// newMessagesWriter is a writer for n bytes of the client's turns. For a
// large conversation its buffer has room for the rest of the upstream's body
// around the messages (as much as the client's tools, ending it, besides),
// which an adapter writes there instead of copying the messages (room).
func newMessagesWriter(n, tools int) messagesWriter {
	if n < lendMin {
		return messagesWriter{b: make([]byte, 0, writerCap(n))}
	}
	return messagesWriter{b: make([]byte, lendHead, lendHead+writerCap(n)+tools+bodyTailroom), head: lendHead}
}

// lendHead is the room before a large conversation's messages in a
// messagesWriter's buffer, for {"messages": (after them: bodyTailroom, and
// the tools' size).
const lendHead = 16

// room lends the writer's buffer around msgs, the messages it wrote (nil
// when it wrote them with no room around).
func (m *messagesWriter) room(msgs json.RawMessage) *shlyuz.BodyRoom {
	if m.head == 0 {
		return nil
	}
	return bodyroom.New(m.b, "messages", msgs)
}

// plainKey is a key of lower-case ASCII letters, digits and underscores: no
// other key folds to it, and it folds to no other.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// messagesWriter writes chat's messages array as chatFields's encoder
// would, and counts it as EstimatePrompt would (tally).
type messagesWriter struct {
	b     []byte
	head  int // bytes of b before the messages (newMessagesWriter)
	n     int
	tally tokens.PromptTally
	texts []textSpan // a turn's texts held back (anthropic_fast_tools.go)
	calls []block    // an assistant turn's tool_use blocks
	asst  int8       // the last message written is an assistant's: 1, with tool_calls 2 (responses_fast_calls.go)
}

func (m *messagesWriter) open() {
	if m.n == 0 {
		m.b = append(m.b, '[')
	} else {
		m.b = append(m.b, ',')
	}
	m.n++
}

func (m *messagesWriter) done() json.RawMessage {
	if m.n == 0 {
		return json.RawMessage("null") // a nil []map[string]any
	}
	m.b = append(m.b, ']')
	return m.b[m.head:]
}

// message writes {"content":content,"role":role}; content is a string
// literal.
func (m *messagesWriter) message(role string, content []byte) {
	m.tally.Message()
	m.tally.Text(content)
	m.open()
	m.b = append(append(append(append(append(m.b, `{"content":`...), content...), `,"role":"`...), role...), `"}`...)
}

// system writes the system prompt's message (systemText), if any.
func (m *messagesWriter) system(raw json.RawMessage) bool {
	if len(raw) == 0 || isNull(raw) {
		return true
	}
	if raw[0] == '"' {
		if !verbatimString(raw) {
			return false
		}
		if len(raw) > 2 {
			m.message("system", raw)
		}
		return true
	}
	return m.systemParts(raw)
}

// turn writes the message (chatMessages) of the turn of text only at
// b[vs] and returns where the turn ends.
func (m *messagesWriter) turn(b []byte, vs int) (int, bool) {
	var role, content []byte
	var verbatim bool
	end, ok := eachMember(b, vs, func(key, v []byte, c bool) bool {
		switch string(key) {
		case "role":
			role = v
		case "content":
			content, verbatim = v, c
		}
		return true
	})
	if !ok || len(content) == 0 || isNull(content) {
		return 0, false
	}
	return end, m.turnOf(role, content, verbatim)
}

// turnOf writes the message of a turn of role (a literal) and content;
// verbatim tells whether content is a string copied as it stands (eachMember).
func (m *messagesWriter) turnOf(role, content []byte, verbatim bool) bool {
	switch string(role) {
	case `"user"`:
		if content[0] == '"' {
			if !verbatim {
				return false
			}
			if len(content) > 2 { // an empty text carries nothing
				m.tally.Message()
				m.tally.Text(content)
				m.open()
				m.b = append(append(append(m.b, `{"content":[{"text":`...), content...), `,"type":"text"}],"role":"user"}`...)
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
func (m *messagesWriter) systemParts(blocks []byte) bool {
	mark, n := len(m.b), m.n
	m.open()
	m.b = append(m.b, `{"content":[`...)
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
		m.b, m.n = m.b[:mark], n
		return true
	}
	m.b = append(m.b, `],"role":"system"}`...)
	m.tally.Message()
	return true
}

// textPart writes a text part (after a comma with comma), keeping its
// cache_control as chat's encoder writes it (compact).
func (m *messagesWriter) textPart(comma bool, text, cache []byte) bool {
	if comma {
		m.b = append(m.b, ',')
	}
	m.b = append(m.b, '{')
	if len(cache) > 0 && !isNull(cache) {
		var c bytes.Buffer
		if json.Compact(&c, cache) != nil {
			return false
		}
		m.b = append(append(append(m.b, `"cache_control":`...), c.Bytes()...), ',')
	}
	m.b = append(append(append(m.b, `"text":`...), text...), `,"type":"text"}`...)
	m.tally.Text(text)
	return true
}

// assistant writes an assistant turn of a string (its blocks:
// assistantBlocks).
func (m *messagesWriter) assistant(content []byte, verbatim bool) bool {
	if content[0] != '"' {
		return m.assistantBlocks(content) // anthropic_fast_tools.go
	}
	if !verbatim {
		return false
	}
	if len(content) > 2 { // nothing said: no message
		m.message("assistant", content)
	}
	return true
}

// eachText calls each for every block of an array of text blocks ({type:
// "text", text, cache_control} and nothing else) with its text literal
// (verbatimString) (nil when absent) and its cache_control; false for anything else.
func eachText(blocks []byte, each func(text, cache []byte) bool) bool {
	_, ok := eachElement(blocks, func(b []byte, vs int) (int, bool) {
		var typ, text, cache []byte
		var verbatim bool
		end, ok := eachMember(b, vs, func(key, v []byte, c bool) bool {
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

// eachElement calls each for every element of the array arr, in order, and
// returns how many there were; ok is false when each refused one or the
// array does not scan. each reads the element that starts at arr[vs] and
// says where it ends: an element is read once, not skipped and then read.
func eachElement(arr []byte, each func(b []byte, vs int) (ve int, ok bool)) (n int, ok bool) {
	it, _ := jsonscan.Elements(arr, 0)
	for {
		vs, more := it.NextStart()
		if !more {
			break
		}
		n++
		ve, ok := each(arr, vs)
		if !ok {
			return n, false
		}
		it.SetEnd(ve)
	}
	return n, it.Err() == nil
}

// eachMember calls each for the members of the object that opens at b[vs],
// whose keys must be plain (plainKey), and returns where the object ends;
// false when it is no object, a key is not plain, or each says so. verbatim
// tells each whether the value is a string copied as it stands (verbatimString),
// found as the string is read to its end: a long text is read once.
func eachMember(b []byte, vs int, each func(key, v []byte, verbatim bool) bool) (end int, ok bool) {
	if vs >= len(b) || b[vs] != '{' {
		return 0, false
	}
	it, _ := jsonscan.Members(b, vs)
	for {
		key, s, more := it.NextKey()
		if !more {
			break
		}
		e, verbatim, ok := readValue(b, s)
		if !ok || !plainKey(string(key)) || !each(key, b[s:e], verbatim) {
			return 0, false
		}
		it.SetEnd(e)
	}
	return it.End(), it.Err() == nil
}

// readValue returns the end of the value at b[s] (of a validated body) and
// whether it is a string the fast path may copy as it stands
// (verbatimText): jsonscan.ShortString finds its end 64 bytes at a time
// (code has an escape every few bytes, too many for a search restarted
// after each) and tells whether it has escapes other than \" \\ \b \f \n
// \r \t, whose surrogate halves are then checked.
func readValue(b []byte, s int) (end int, verbatim, ok bool) {
	if s < len(b) && b[s] == '"' {
		e, short, err := jsonscan.ShortString(b, s)
		if err != nil {
			return 0, false, false
		}
		return e, verbatimText(b[s+1:e-1], short), true
	}
	e, err := jsonscan.SkipValue(b, s)
	return e, false, err == nil
}
