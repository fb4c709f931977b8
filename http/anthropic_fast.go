package http

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// The one-pass reading of a Messages request, for the shape long contexts
// take (a coding agent's conversation: turns and a system prompt of text,
// string or text blocks). The turns' text is never decoded and encoded
// again: chat's messages are written around the client's own string
// literals, which are what encoding/json would write for them (canonical),
// so the result is byte for byte what the full decode (json.Unmarshal of
// the whole body, chatFields) gives. Anything else (images, tool use, an
// escape encoding/json would write otherwise, a key it would match without
// case) makes fastMessages give up, and the full decode answers, errors
// included.

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
// returns chat's messages (the JSON chatFields would write, never empty),
// or ok false.
// The body was validated when it was split.
func fastMessages(top map[string]json.RawMessage, r *anthropicRequest) (msgs json.RawMessage, ok bool) {
	if !decodeOthers(top, r, "messages", "system") {
		return nil, false
	}
	r.System = top["system"] // a span of the body, as top's: no copy
	turns, set := top["messages"]
	if !set || len(turns) == 0 || turns[0] != '[' {
		return nil, false
	}
	var m messagesWriter
	if !m.system(r.System) {
		return nil, false
	}
	if n, ok := eachElement(turns, m.turn); !ok || n == 0 {
		return nil, false // no turns: the full decode says what is missing
	}
	return m.done(), true // r.Messages stays nil: msgs stands for it
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

// messagesWriter writes chat's messages array as chatFields's encoder would.
type messagesWriter struct {
	b []byte
	n int
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
	return append(m.b, ']')
}

// message writes {"content":content,"role":role}.
func (m *messagesWriter) message(role string, content []byte) {
	m.open()
	m.b = append(append(append(append(append(m.b, `{"content":`...), content...), `,"role":"`...), role...), `"}`...)
}

// system writes the system prompt's message (systemText), if any.
func (m *messagesWriter) system(raw json.RawMessage) bool {
	if len(raw) == 0 || isNull(raw) {
		return true
	}
	if raw[0] == '"' {
		if !canonicalString(raw) {
			return false
		}
		if len(raw) > 2 {
			m.message("system", raw)
		}
		return true
	}
	return m.parts(raw, "system", true)
}

// turn writes one turn's message (chatMessages) for a turn of text only.
func (m *messagesWriter) turn(t []byte) bool {
	var role, content []byte
	if t[0] != '{' || !eachMember(t, func(key, v []byte) bool {
		switch string(key) {
		case "role":
			role = v
		case "content":
			content = v
		}
		return true
	}) {
		return false
	}
	if len(content) == 0 || isNull(content) {
		return false
	}
	switch string(role) {
	case `"user"`:
		if content[0] == '"' {
			if !canonicalString(content) {
				return false
			}
			if len(content) > 2 { // an empty text carries nothing
				m.open()
				m.b = append(append(append(m.b, `{"content":[{"text":`...), content...), `,"type":"text"}],"role":"user"}`...)
			}
			return true
		}
		return m.parts(content, "user", false)
	case `"assistant"`:
		return m.assistant(content)
	}
	return false
}

// parts writes a message whose content is text parts (a user turn's blocks,
// the system prompt's), each keeping its cache_control; none, no message.
// An empty text is a part of the system prompt (systemText), none of a
// user turn (contentPart).
func (m *messagesWriter) parts(blocks []byte, role string, keepEmpty bool) bool {
	mark, n := len(m.b), m.n
	m.open()
	m.b = append(m.b, `{"content":[`...)
	count := 0
	ok := eachText(blocks, func(text, cache []byte) bool {
		if len(text) <= 2 { // "" or absent
			if !keepEmpty {
				return true
			}
			text = []byte(`""`)
		}
		if count++; count > 1 {
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
		return true
	})
	if !ok {
		return false
	}
	if count == 0 {
		m.b, m.n = m.b[:mark], n
		return true
	}
	m.b = append(append(append(m.b, `],"role":"`...), role...), `"}`...)
	return true
}

// assistant writes an assistant turn of one text (assistantMessage joins
// several, which would need them decoded).
func (m *messagesWriter) assistant(content []byte) bool {
	var text []byte
	if content[0] == '"' {
		if !canonicalString(content) {
			return false
		}
		text = content
	} else if !eachText(content, func(t, _ []byte) bool {
		if len(t) <= 2 {
			return true
		}
		if text != nil {
			return false
		}
		text = t
		return true
	}) {
		return false
	}
	if len(text) <= 2 {
		return true // nothing said: no message
	}
	m.message("assistant", text)
	return true
}

// eachText calls each for every block of an array of text blocks ({type:
// "text", text, cache_control} and nothing else) with its canonical text
// literal (nil when absent) and its cache_control; false for anything else.
func eachText(blocks []byte, each func(text, cache []byte) bool) bool {
	_, ok := eachElement(blocks, func(b []byte) bool {
		var typ, text, cache []byte
		if b[0] != '{' || !eachMember(b, func(key, v []byte) bool {
			switch string(key) {
			case "type":
				typ = v
			case "text":
				text = v
			case "cache_control":
				cache = v
			default:
				return false
			}
			return true
		}) {
			return false
		}
		if string(typ) != `"text"` || text != nil && !canonicalString(text) {
			return false
		}
		return each(text, cache)
	})
	return ok
}

// eachElement calls each for every element of the array arr, in order, and
// returns how many there were; ok is false when each refused one or the
// array does not scan.
func eachElement(arr []byte, each func(v []byte) bool) (n int, ok bool) {
	it, _ := jsonscan.Elements(arr, 0)
	for {
		vs, ve, more := it.Next()
		if !more {
			break
		}
		n++
		if !each(arr[vs:ve]) {
			return n, false
		}
	}
	return n, it.Err() == nil
}

// eachMember calls each for the members of the object o, whose keys must be
// plain (plainKey); false when one is not, or when each says so.
func eachMember(o []byte, each func(key, v []byte) bool) bool {
	it, _ := jsonscan.Members(o, 0)
	for {
		key, _, vs, ve, more := it.Next()
		if !more {
			break
		}
		if !plainKey(string(key)) || !each(key, o[vs:ve]) {
			return false
		}
	}
	return it.Err() == nil
}

// canonicalString reports whether the string literal lit is what
// encoding/json writes for the text it stands for (HTML left unescaped):
// valid UTF-8 without U+2028 and U+2029, escapes only \" \\ \b \f \n \r \t.
func canonicalString(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' {
		return false
	}
	s := lit[1 : len(lit)-1]
	if !utf8.Valid(s) || bytes.Contains(s, []byte("\u2028")) || bytes.Contains(s, []byte("\u2029")) {
		return false
	}
	for {
		i := bytes.IndexByte(s, '\\')
		if i < 0 || i+1 >= len(s) {
			return i < 0
		}
		switch s[i+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			s = s[i+2:]
		default:
			return false
		}
	}
}
