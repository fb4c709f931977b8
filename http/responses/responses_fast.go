package responses

import (
	"encoding/json"

	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/internal/api"
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
	if !anthropic.DecodeOthers(top, r, "input", "tools", "instructions") {
		return nil, est, false
	}
	// The instructions (Codex's are many kilobytes) as the client wrote them:
	// a null or absent one is none, as encoding/json reads it.
	switch ins := top["instructions"]; {
	case len(ins) == 0 || api.IsNull(ins):
	case !api.VerbatimString(ins):
		return nil, est, false
	case len(ins) > 2:
		r.instructions = ins
	}
	var toolsOK bool
	if r.chatTools, toolsOK = api.FastTools(top["tools"], &api.ResponsesFunctionTools); !toolsOK { // fast_tools.go
		return nil, est, false
	}
	in, set := top["input"]
	if !set || len(in) == 0 || in[0] != '"' && in[0] != '[' {
		return nil, est, false
	}
	r.Input = in // a span of the body, as r.raw: no copy of the whole input
	m := writer{anthropic.NewMessagesWriter(len(in)+len(r.instructions), len(top["tools"]))}
	if r.instructions != nil {
		m.Message("system", r.instructions)
	}
	if in[0] == '"' {
		if !api.VerbatimString(in) {
			return nil, est, false
		}
		m.Message("user", in)
	} else if n, ok := api.EachElement(in, m.inputItem); !ok || n == 0 {
		return nil, est, false
	}
	msgs = m.Done()
	r.room = m.Room(msgs)
	return msgs, m.Tally.Estimate(), true
}

// inputItem writes the input item (responsesMessages) at b[vs], a message
// of text, a function_call, a function_call_output or a reasoning item
// (responses_fast_calls.go), and returns where it ends.
func (m *writer) inputItem(b []byte, vs int) (int, bool) {
	it, end, ok := readItem(b, vs)
	if !ok {
		return 0, false
	}
	switch string(it.typ) {
	case "", `"message"`:
		if it.Seen&(iCallID|iName|iArgs|iOutput) != 0 {
			return 0, false // a function call's fields: the full decode reads them
		}
		if !m.item(it.typ, it.role, it.content, it.Verbatim&iContent != 0) {
			return 0, false
		}
		m.Asst = 0
		if string(it.role) == `"assistant"` {
			m.Asst = 1
		}
		return end, true
	case `"function_call"`:
		return end, m.functionCall(&it)
	case `"function_call_output"`:
		return end, m.callOutput(&it)
	case `"reasoning"`:
		return end, !it.dup && it.Fits(iType|iContent|iID|iStatus|iOther, 0) // nothing a chat upstream reads
	}
	return 0, false
}

// item writes the message of an input item of type typ, role and content
// (verbatim: a string copied as it stands).
func (m *writer) item(typ, role, content []byte, verbatim bool) bool {
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
		m.Message(r, content)
		return true
	}
	if r == "assistant" || content[0] != '[' {
		return false // an earlier reply's parts are joined into one text
	}
	m.Tally.Message()
	m.Open()
	m.B = append(m.B, `{"content":[`...)
	count := 0
	if _, ok := api.EachElement(content, func(b []byte, vs int) (int, bool) {
		var ptyp, text []byte
		var textVerbatim bool
		end, ok := api.EachMember(b, vs, func(key, v []byte, c bool) bool {
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
			m.B = append(m.B, ',')
		}
		m.B = append(append(append(m.B, `{"text":`...), text...), `,"type":"text"}`...)
		m.Tally.Text(text)
		return end, true
	}); !ok {
		return false
	}
	m.B = append(append(append(m.B, `],"role":"`...), r...), `"}`...)
	return true
}

// writer is the Anthropic fast path's messages writer, taught Responses'
// input items.
type writer struct{ anthropic.MessagesWriter }
