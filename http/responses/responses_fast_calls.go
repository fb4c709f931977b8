package responses

import (
	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// The Responses fast path's items of a coding agent: function_call items
// join the assistant message before them as tool_calls (or make one),
// function_call_output items become tool messages of their text, reasoning
// items are left out, all as responsesMessages and its encoder write them.
// An item with anything the full decode would read otherwise (a key twice,
// a key its kind does not have, a string it may not copy as it stands (verbatimString), an output
// of parts with more than text) makes the fast path give up.

// item is the members of one input item, as spans of the body.
type item struct {
	typ, role, content, callID, name, args, output []byte
	anthropic.Present                                   // the members (bits) present, those that are strings copied as they stand (anthropic_fast_tools.go)
	dup                                            bool // a member (not iOther) twice
}

// The members an input item may have.
const (
	iType uint16 = 1 << iota
	iRole
	iContent
	iCallID
	iName
	iArgs
	iOutput
	iID     // id and status: the full decode reads neither
	iStatus //
	iOther  // any other key: the full decode reads none
)

// readItem reads the input item at b[vs] and returns where it ends.
func readItem(b []byte, vs int) (it item, end int, ok bool) {
	end, ok = api.EachMember(b, vs, func(key, v []byte, verbatim bool) bool {
		var bit uint16
		switch string(key) {
		case "type":
			bit, it.typ = iType, v
		case "role":
			bit, it.role = iRole, v
		case "content":
			bit, it.content = iContent, v
		case "call_id":
			bit, it.callID = iCallID, v
		case "name":
			bit, it.name = iName, v
		case "arguments":
			bit, it.args = iArgs, v
		case "output":
			bit, it.output = iOutput, v
		case "id":
			bit = iID
		case "status":
			bit = iStatus
		default:
			it.Seen |= iOther
			return true
		}
		if it.Seen&bit != 0 {
			it.dup = true // a message's are the last ones, as encoding/json reads them
		}
		it.Seen |= bit
		if verbatim {
			it.Verbatim |= bit
		} else {
			it.Verbatim &^= bit
		}
		return true
	})
	return it, end, ok
}

// functionCall writes a function_call as a tool call of the assistant
// message before it, or of a new one without content.
func (m *writer) functionCall(it *item) bool {
	if it.dup || !it.Fits(iType|iCallID|iName|iArgs|iID|iStatus, iCallID|iName|iArgs) {
		return false
	}
	switch m.Asst {
	case 0:
		m.Tally.Message()
		m.Open()
		m.B = append(m.B, `{"content":null,"role":"assistant","tool_calls":[`...)
	case 1: // {"content":…,"role":"assistant"} gains its tool_calls
		m.B = append(m.B[:len(m.B)-1], `,"tool_calls":[`...)
	default: // …"tool_calls":[…]} gains one more
		m.B = append(m.B[:len(m.B)-2], ',')
	}
	m.Asst = 2
	m.B = append(append(append(m.B, `{"function":{"arguments":`...), anthropic.StrOr(it.args)...), `,"name":`...)
	m.B = append(append(append(m.B, anthropic.StrOr(it.name)...), `},"id":`...), anthropic.StrOr(it.callID)...)
	m.B = append(m.B, `,"type":"function"}]}`...)
	m.Tally.Call(anthropic.StrOr(it.callID), anthropic.StrOr(it.name), anthropic.StrOr(it.args))
	return true
}

// callOutput writes a function_call_output as a tool message of its output:
// a string, or text parts joined (callOutputText).
func (m *writer) callOutput(it *item) bool {
	if it.dup || !it.Fits(iType|iCallID|iOutput|iID|iStatus, iCallID) || len(it.output) == 0 {
		return false
	}
	m.Open()
	m.B = append(m.B, `{"content":`...)
	start := len(m.B)
	switch o := it.output; o[0] {
	case '"':
		if it.Verbatim&iOutput == 0 {
			return false
		}
		m.B = append(m.B, o...)
	case '[':
		m.B = append(m.B, '"')
		if _, ok := api.EachElement(o, m.outputPart); !ok {
			return false
		}
		m.B = append(m.B, '"')
	default:
		return false
	}
	m.Tally.Message()
	m.Tally.Text(m.B[start:])
	m.Tally.Text(anthropic.StrOr(it.callID))
	m.B = append(append(append(m.B, `,"role":"tool","tool_call_id":`...), anthropic.StrOr(it.callID)...), '}')
	m.Asst = 0
	return true
}

// outputPart writes the body of a text part of an output ({type, text} and
// nothing else, each once, its text verbatimString's) at b[vs] and returns where it ends.
func (m *writer) outputPart(b []byte, vs int) (int, bool) {
	var typ, text []byte
	var textVerbatim, twice bool
	end, ok := api.EachMember(b, vs, func(key, v []byte, c bool) bool {
		switch string(key) {
		case "type":
			twice = twice || typ != nil
			typ = v
		case "text":
			twice = twice || text != nil
			text, textVerbatim = v, c
		default:
			return false
		}
		return true
	})
	if !ok || twice || text != nil && !textVerbatim {
		return 0, false
	}
	switch string(typ) {
	case `"input_text"`, `"output_text"`, `"text"`:
	default:
		return 0, false
	}
	if len(text) > 2 {
		m.B = append(m.B, text[1:len(text)-1]...)
	}
	return end, true
}
