package api

import "encoding/json"

// The fast paths' tool definitions: a coding agent sends its tools with long
// descriptions in every request (tens of kilobytes for Claude Code), which
// the full decode would read into values and encode again in chat's form.
// Here each function tool (Messages': {name, description, input_schema,
// cache_control, type "custom"}; Responses': {type "function", name,
// description, parameters, strict}) is written around the client's own
// spans, as chatFields and responsesTools write it (keys in encoding/json's
// map order); anything else (a server tool, an unknown or repeated key, a
// name that is not a string copied as it stands) makes the fast path give
// up, and the full decode answers, errors included.

// The members a function tool may have, as bits.
const (
	tType uint8 = 1 << iota
	tName
	tDescription
	tSchema
	tExtra
)

// toolSpans are the members of one tool definition, as spans of the body
// (nil when absent).
type toolSpans struct {
	typ, name, desc, schema, extra []byte
}

// toolDialect is how a protocol writes a function tool: the keys of its
// schema and of its one other member (Messages' cache_control, Responses'
// strict), whether a tool's members are a function's chat carries, and
// chat's form of it.
type toolDialect struct {
	schema, extra string
	fits          func(t toolSpans) bool
	write         func(b []byte, t toolSpans) []byte
}

// MessagesTools are Messages' tools: type absent, null or "custom" (any
// other is a server tool, Anthropic's own models only), an input_schema
// that is not null, a cache_control kept beside the function (chatFields).
var MessagesTools = toolDialect{
	schema: "input_schema", extra: "cache_control",
	fits: func(t toolSpans) bool {
		return (t.typ == nil || string(t.typ) == `"custom"` || IsNull(t.typ)) && (t.schema == nil || !IsNull(t.schema))
	},
	write: func(b []byte, t toolSpans) []byte {
		if t.extra != nil {
			b = append(append(append(b, `"cache_control":`...), t.extra...), ',')
		}
		return appendFunction(b, &t, nil)
	},
}

// ResponsesFunctionTools are Responses' tools: type "function" (any other
// the full decode refuses), a null parameters left out, strict a boolean or
// null (responsesTools).
var ResponsesFunctionTools = toolDialect{
	schema: "parameters", extra: "strict",
	fits: func(t toolSpans) bool {
		s := string(t.extra)
		return string(t.typ) == `"function"` && (t.extra == nil || s == "true" || s == "false" || s == "null")
	},
	write: func(b []byte, t toolSpans) []byte {
		if t.schema != nil && IsNull(t.schema) {
			t.schema = nil
		}
		strict := t.extra
		if strict != nil && IsNull(strict) {
			strict = nil
		}
		return appendFunction(b, &t, strict)
	},
}

// appendFunction writes `"function":{…},"type":"function"}`: the tool's
// description (an empty one left out), name, schema as parameters and
// strict, the members present.
func appendFunction(b []byte, t *toolSpans, strict []byte) []byte {
	b = append(b, `"function":{`...)
	if len(t.desc) > 2 {
		b = append(append(append(b, `"description":`...), t.desc...), ',')
	}
	b = append(append(b, `"name":`...), t.name...)
	if t.schema != nil {
		b = append(append(b, `,"parameters":`...), t.schema...)
	}
	if strict != nil {
		b = append(append(b, `,"strict":`...), strict...)
	}
	return append(b, `},"type":"function"}`...)
}

// FastTools writes the tools array raw (a span of a validated body) as
// chat's tools in dialect d: nil when there are none (absent, null or
// empty), ok false when the full decode must read them.
func FastTools(raw json.RawMessage, d *toolDialect) (chat json.RawMessage, ok bool) {
	if len(raw) == 0 || IsNull(raw) {
		return nil, true
	}
	if raw[0] != '[' {
		return nil, false
	}
	b := make([]byte, 0, len(raw)+len(raw)/8+64)
	n, ok := EachElement(raw, func(a []byte, vs int) (int, bool) {
		var t toolSpans
		var seen uint8
		end, ok := EachMember(a, vs, func(key, v []byte, verbatim bool) bool {
			var bit uint8
			switch string(key) {
			case "type":
				bit, t.typ = tType, v
			case "name":
				bit, t.name = tName, v
				if !verbatim || len(v) <= 2 {
					return false
				}
			case "description":
				bit, t.desc = tDescription, v
				if !verbatim {
					return false
				}
			case d.schema:
				bit, t.schema = tSchema, v
			case d.extra:
				bit, t.extra = tExtra, v
			default:
				return false
			}
			if seen&bit != 0 {
				return false // a key twice: encoding/json's last-wins is left to it
			}
			seen |= bit
			return true
		})
		if !ok || t.name == nil || !d.fits(t) {
			return 0, false
		}
		if len(b) == 0 {
			b = append(b, '[', '{')
		} else {
			b = append(b, ',', '{')
		}
		b = d.write(b, t)
		return end, true
	})
	if !ok {
		return nil, false
	}
	if n == 0 {
		return nil, true
	}
	return append(b, ']'), true
}
