package http

import "encoding/json"

// fastResponses is fastMessages for a Responses request (split as top): it
// fills r except its Input and returns chat's messages as
// responsesMessages and its encoder would write them, for an input of text
// (a string, or messages of user, system or developer with string or text
// parts, assistant ones with a string); ok is false for anything else, and
// the full decode answers. The body was validated when it was split.
func fastResponses(top map[string]json.RawMessage, r *responsesRequest) (msgs json.RawMessage, ok bool) {
	if !decodeOthers(top, r, "input") {
		return nil, false
	}
	in, set := top["input"]
	if !set || len(in) == 0 || in[0] != '"' && in[0] != '[' {
		return nil, false
	}
	r.Input = in // a span of the body, as r.raw: no copy of the whole input
	var m messagesWriter
	if r.Instructions != "" {
		sys, err := marshalText(r.Instructions)
		if err != nil {
			return nil, false
		}
		m.message("system", sys)
	}
	if in[0] == '"' {
		if !canonicalString(in) {
			return nil, false
		}
		m.message("user", in)
		return m.done(), true
	}
	if n, ok := eachElement(in, m.inputItem); !ok || n == 0 {
		return nil, false
	}
	return m.done(), true
}

// inputItem writes one input item of text (responsesMessage).
func (m *messagesWriter) inputItem(item []byte) bool {
	var typ, role, content []byte
	if item[0] != '{' || !eachMember(item, func(key, v []byte) bool {
		switch string(key) {
		case "type":
			typ = v
		case "role":
			role = v
		case "content":
			content = v
		case "call_id", "name", "arguments", "output":
			return false // a function call's fields: the full decode reads them
		}
		return true
	}) {
		return false
	}
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
		if !canonicalString(content) {
			return false
		}
		m.message(r, content)
		return true
	}
	if r == "assistant" || content[0] != '[' {
		return false // an earlier reply's parts are joined into one text
	}
	m.open()
	m.b = append(m.b, `{"content":[`...)
	count := 0
	if _, ok := eachElement(content, func(p []byte) bool {
		var ptyp, text []byte
		if p[0] != '{' || !eachMember(p, func(key, v []byte) bool {
			switch string(key) {
			case "type":
				ptyp = v
			case "text":
				text = v
			default:
				return false
			}
			return true
		}) {
			return false
		}
		switch string(ptyp) {
		case `"input_text"`, `"output_text"`, `"text"`:
		default:
			return false
		}
		if text == nil {
			text = []byte(`""`)
		} else if !canonicalString(text) {
			return false
		}
		if count++; count > 1 {
			m.b = append(m.b, ',')
		}
		m.b = append(append(append(m.b, `{"text":`...), text...), `,"type":"text"}`...)
		return true
	}); !ok {
		return false
	}
	m.b = append(append(append(m.b, `],"role":"`...), r...), `"}`...)
	return true
}
