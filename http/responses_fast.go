package http

import (
	"encoding/json"

	"github.com/shlyuz/shlyuz/tokens"
)

// fastResponses is fastMessages for a Responses request (split as top): it
// fills r except its Input and returns chat's messages as
// responsesMessages and its encoder would write them, for an input of text
// (a string, or messages of user, system or developer with string or text
// parts, assistant ones with a string) and a coding agent's function calls
// and their outputs of text; ok is false for anything else, and the full
// decode answers. The body was validated when it was split.
func fastResponses(top map[string]json.RawMessage, r *responsesRequest) (msgs json.RawMessage, est tokens.PromptEstimate, ok bool) {
	if !decodeOthers(top, r, "input", "tools", "instructions") {
		return nil, est, false
	}
	// The instructions (Codex's are many kilobytes) as the client wrote them:
	// a null or absent one is none, as encoding/json reads it.
	switch ins := top["instructions"]; {
	case len(ins) == 0 || isNull(ins):
	case !verbatimString(ins):
		return nil, est, false
	case len(ins) > 2:
		r.instructions = ins
	}
	var toolsOK bool
	if r.chatTools, toolsOK = fastTools(top["tools"], &responsesFunctionTools); !toolsOK { // fast_tools.go
		return nil, est, false
	}
	in, set := top["input"]
	if !set || len(in) == 0 || in[0] != '"' && in[0] != '[' {
		return nil, est, false
	}
	r.Input = in // a span of the body, as r.raw: no copy of the whole input
	m := newMessagesWriter(len(in)+len(r.instructions), len(top["tools"]))
	if r.instructions != nil {
		m.message("system", r.instructions)
	}
	if in[0] == '"' {
		if !verbatimString(in) {
			return nil, est, false
		}
		m.message("user", in)
	} else if n, ok := eachElement(in, m.inputItem); !ok || n == 0 {
		return nil, est, false
	}
	msgs = m.done()
	r.room = m.room(msgs)
	return msgs, m.tally.Estimate(), true
}

// inputItem writes the input item (responsesMessages) at b[vs], a message
// of text, a function_call, a function_call_output or a reasoning item
// (responses_fast_calls.go), and returns where it ends.
func (m *messagesWriter) inputItem(b []byte, vs int) (int, bool) {
	it, end, ok := readItem(b, vs)
	if !ok {
		return 0, false
	}
	switch string(it.typ) {
	case "", `"message"`:
		if it.seen&(iCallID|iName|iArgs|iOutput) != 0 {
			return 0, false // a function call's fields: the full decode reads them
		}
		if !m.item(it.typ, it.role, it.content, it.verbatim&iContent != 0) {
			return 0, false
		}
		m.asst = 0
		if string(it.role) == `"assistant"` {
			m.asst = 1
		}
		return end, true
	case `"function_call"`:
		return end, m.functionCall(&it)
	case `"function_call_output"`:
		return end, m.callOutput(&it)
	case `"reasoning"`:
		return end, !it.dup && it.fits(iType|iContent|iID|iStatus|iOther, 0) // nothing a chat upstream reads
	}
	return 0, false
}

// item writes the message of an input item of type typ, role and content
// (verbatim: a string copied as it stands).
func (m *messagesWriter) item(typ, role, content []byte, verbatim bool) bool {
	if typ != nil && string(typ) != `"message"` || len(content) == 0 {
		return false
	}
	var r string
	switch string(role) {
	case `"user"`, `"system"`, `"developer"`, `"assistant"`:
		r = string(role[1 : len(role)-1])
	default:
		return false
	}
	if content[0] == '"' {
		if !verbatim {
			return false
		}
		m.message(r, content)
		return true
	}
	if r == "assistant" || content[0] != '[' {
		return false // an earlier reply's parts are joined into one text
	}
	m.tally.Message()
	m.open()
	m.b = append(m.b, `{"content":[`...)
	count := 0
	if _, ok := eachElement(content, func(b []byte, vs int) (int, bool) {
		var ptyp, text []byte
		var textVerbatim bool
		end, ok := eachMember(b, vs, func(key, v []byte, c bool) bool {
			switch string(key) {
			case "type":
				ptyp = v
			case "text":
				text, textVerbatim = v, c
			default:
				return false
			}
			return true
		})
		if !ok {
			return 0, false
		}
		switch string(ptyp) {
		case `"input_text"`, `"output_text"`, `"text"`:
		default:
			return 0, false
		}
		if text == nil {
			text = []byte(`""`)
		} else if !textVerbatim {
			return 0, false
		}
		if count++; count > 1 {
			m.b = append(m.b, ',')
		}
		m.b = append(append(append(m.b, `{"text":`...), text...), `,"type":"text"}`...)
		m.tally.Text(text)
		return end, true
	}); !ok {
		return false
	}
	m.b = append(append(append(m.b, `],"role":"`...), r...), `"}`...)
	return true
}
