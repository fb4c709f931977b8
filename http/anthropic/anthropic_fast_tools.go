package anthropic

import (
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/internal/plainjson" // The fast path's turns of a coding agent: a user turn of text and
	// tool_result blocks, an assistant turn of text, thinking and tool_use
	// blocks, written as chatMessages writes them (userMessages,
	// toolResultContent, assistantMessage). A block with any member the full
	// decode would read otherwise (a key twice, a key its kind does not have, a
	// string it may not copy as it stands (verbatimString), an is_error not a boolean) makes the fast
	// path give up.
)

// block is the members of one content block, as spans of the body.
type block struct {
	typ, text, cache, id, name, input, useID, content, isError []byte
	Present                                                    // the members (bits as seen), those that are strings copied as they stand
}

// Present is the members of an object read (seen, as bits) and those of
// them that are strings copied as they stand (verbatim): a block's or an input item's.
type Present struct{ Seen, Verbatim uint16 }

// Fits reports whether only the members allowed are present, and those of
// want that are present are strings copied as they stand.
func (p Present) Fits(allowed, want uint16) bool {
	return p.Seen&^allowed == 0 && p.Seen&want&^p.Verbatim == 0
}

// The members a block may have, by kind.
const (
	mType uint16 = 1 << iota
	mText
	mCache
	mID
	mName
	mInput
	mUseID
	mContent
	mIsError
	mThinking // thinking, signature, data: not carried, never read

	textMembers     = mType | mText | mCache
	toolUseMembers  = mType | mID | mName | mInput | mCache
	resultMembers   = mType | mUseID | mContent | mIsError | mCache
	thinkingMembers = mType | mThinking
)

// textSpan is a text part's literal and its cache_control.
type textSpan struct{ text, cache []byte }

// readBlock reads the block object at b[vs] and returns where it ends.
func readBlock(b []byte, vs int) (blk block, end int, ok bool) {
	end, ok = api.EachMember(b, vs, func(key, v []byte, verbatim bool) bool {
		var bit uint16
		switch string(key) {
		case "type":
			bit, blk.typ = mType, v
		case "text":
			bit, blk.text = mText, v
		case "cache_control":
			bit, blk.cache = mCache, v
		case "id":
			bit, blk.id = mID, v
		case "name":
			bit, blk.name = mName, v
		case "input":
			bit, blk.input = mInput, v
		case "tool_use_id":
			bit, blk.useID = mUseID, v
		case "content":
			bit, blk.content = mContent, v
		case "is_error":
			bit, blk.isError = mIsError, v
		case "thinking", "signature", "data":
			if blk.Seen&mThinking != 0 {
				return true // several of these: none is read
			}
			bit = mThinking
		default:
			return false
		}
		if blk.Seen&bit != 0 {
			return false // a key twice: encoding/json's last-wins is left to it
		}
		blk.Seen |= bit
		if verbatim {
			blk.Verbatim |= bit
		}
		return true
	})
	return blk, end, ok
}

// StrOr is the literal s, or "" when absent.
func StrOr(s []byte) []byte {
	if s == nil {
		return []byte(`""`)
	}
	return s
}

// userBlocks writes a user turn of blocks: a tool message per tool_result,
// then one user message of the text parts (userMessages).
func (m *MessagesWriter) userBlocks(blocks []byte) bool {
	m.texts = m.texts[:0]
	if _, ok := api.EachElement(blocks, func(b []byte, vs int) (int, bool) {
		blk, end, ok := readBlock(b, vs)
		if !ok {
			return 0, false
		}
		switch string(blk.typ) {
		case `"text"`:
			if !blk.Fits(textMembers, mText) {
				return 0, false
			}
			if len(blk.text) > 2 { // an empty text is no part
				m.texts = append(m.texts, textSpan{blk.text, blk.cache})
			}
			return end, true
		case `"tool_result"`:
			return end, m.toolResult(&blk)
		}
		return 0, false
	}); !ok {
		return false
	}
	if len(m.texts) == 0 {
		return true
	}
	m.Open()
	m.B = append(m.B, `{"content":[`...)
	for i, t := range m.texts {
		if !m.textPart(i > 0, t.text, t.cache) {
			return false
		}
	}
	m.B = append(m.B, `],"role":"user"}`...)
	m.Tally.Message()
	return true
}

// toolResult writes a tool_result of text as its tool message: the texts
// joined, after "Error: " for an error (toolResultContent). Literals join
// into one by their bodies: none ends inside an escape, nor with half a
// surrogate pair (verbatimText).
func (m *MessagesWriter) toolResult(blk *block) bool {
	var prefix string
	switch string(blk.isError) {
	case "", "false", "null":
	case "true":
		prefix = "Error: "
	default:
		return false
	}
	if !blk.Fits(resultMembers, mUseID) {
		return false
	}
	m.Open()
	m.B = append(m.B, `{"content":`...)
	start := len(m.B)
	m.B = append(append(m.B, '"'), prefix...)
	switch c := blk.content; {
	case len(c) == 0 || api.IsNull(c):
	case c[0] == '"':
		if blk.Verbatim&mContent == 0 {
			return false
		}
		m.B = append(m.B, c[1:len(c)-1]...)
	case c[0] == '[':
		if !eachText(c, func(text, _ []byte) bool {
			if len(text) > 2 {
				m.B = append(m.B, text[1:len(text)-1]...)
			}
			return true
		}) {
			return false
		}
	default:
		return false
	}
	m.B = append(m.B, '"')
	m.Tally.Message()
	m.Tally.Text(m.B[start:])
	m.Tally.Text(StrOr(blk.useID))
	m.B = append(append(append(m.B, `,"role":"tool","tool_call_id":`...), StrOr(blk.useID)...), '}')
	return true
}

// assistantBlocks writes an assistant turn of blocks: its texts joined, its
// tool_use blocks as tool_calls, thinking left out; nothing said and no
// call, no message (assistantMessage).
func (m *MessagesWriter) assistantBlocks(blocks []byte) bool {
	m.texts, m.calls = m.texts[:0], m.calls[:0]
	if _, ok := api.EachElement(blocks, func(b []byte, vs int) (int, bool) {
		blk, end, ok := readBlock(b, vs)
		if !ok {
			return 0, false
		}
		switch string(blk.typ) {
		case `"text"`:
			if !blk.Fits(textMembers, mText) {
				return 0, false
			}
			if len(blk.text) > 2 {
				m.texts = append(m.texts, textSpan{text: blk.text})
			}
		case `"tool_use"`:
			if !blk.Fits(toolUseMembers, mID|mName) {
				return 0, false
			}
			m.calls = append(m.calls, blk)
		case `"thinking"`, `"redacted_thinking"`:
			if !blk.Fits(thinkingMembers, 0) {
				return 0, false
			}
		default:
			return 0, false
		}
		return end, true
	}); !ok {
		return false
	}
	if len(m.texts) == 0 && len(m.calls) == 0 {
		return true
	}
	m.Open()
	m.B = append(m.B, `{"content":`...)
	m.Tally.Message()
	if len(m.texts) == 0 {
		m.B = append(m.B, "null"...)
	} else {
		start := len(m.B)
		m.B = append(m.B, '"')
		for _, t := range m.texts {
			m.B = append(m.B, t.text[1:len(t.text)-1]...)
		}
		m.B = append(m.B, '"')
		m.Tally.Text(m.B[start:])
	}
	m.B = append(m.B, `,"role":"assistant"`...)
	if len(m.calls) > 0 {
		m.B = append(m.B, `,"tool_calls":[`...)
		for i, c := range m.calls {
			if i > 0 {
				m.B = append(m.B, ',')
			}
			input := c.input
			if len(input) == 0 || api.IsNull(input) {
				input = []byte("{}")
			}
			args, err := plainjson.Marshal(string(input)) // the arguments are the input's JSON as a string
			if err != nil {
				return false
			}
			m.B = append(append(append(m.B, `{"function":{"arguments":`...), args...), `,"name":`...)
			m.B = append(append(append(m.B, StrOr(c.name)...), `},"id":`...), StrOr(c.id)...)
			m.B = append(m.B, `,"type":"function"}`...)
			m.Tally.Call(StrOr(c.id), StrOr(c.name), args)
		}
		m.B = append(m.B, ']')
	}
	m.B = append(m.B, '}')
	return true
}
