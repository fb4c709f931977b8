package http

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
	tCache
	tStrict
)

// fastTools writes the tools array raw (a span of a validated body) as
// chat's tools: nil when there are none (absent, null or empty), ok false
// when the full decode must read them.
func fastTools(raw json.RawMessage) (chat json.RawMessage, ok bool) {
	if len(raw) == 0 || isNull(raw) {
		return nil, true
	}
	if raw[0] != '[' {
		return nil, false
	}
	b := make([]byte, 0, len(raw)+len(raw)/8+64)
	n, ok := eachElement(raw, func(a []byte, vs int) (int, bool) {
		var name, desc, schema, cache []byte
		var seen uint8
		end, ok := eachMember(a, vs, func(key, v []byte, verbatim bool) bool {
			var bit uint8
			switch string(key) {
			case "type":
				bit = tType
				if string(v) != `"custom"` && !isNull(v) {
					return false // a server tool: Anthropic's own models only (chatFields)
				}
			case "name":
				bit, name = tName, v
				if !verbatim || len(v) <= 2 {
					return false
				}
			case "description":
				bit, desc = tDescription, v
				if !verbatim {
					return false
				}
			case "input_schema":
				bit, schema = tSchema, v
				if isNull(v) {
					return false
				}
			case "cache_control":
				bit, cache = tCache, v
			default:
				return false
			}
			if seen&bit != 0 {
				return false // a key twice: encoding/json's last-wins is left to it
			}
			seen |= bit
			return true
		})
		if !ok || name == nil {
			return 0, false
		}
		if len(b) == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = append(b, '{')
		if cache != nil {
			b = append(append(append(b, `"cache_control":`...), cache...), ',')
		}
		b = append(b, `"function":{`...)
		if len(desc) > 2 { // an empty description is left out
			b = append(append(append(b, `"description":`...), desc...), ',')
		}
		b = append(append(b, `"name":`...), name...)
		if schema != nil {
			b = append(append(b, `,"parameters":`...), schema...)
		}
		b = append(b, `},"type":"function"}`...)
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

// fastFunctionTools writes a Responses request's tools array raw (a span
// of a validated body) as chat's tools, as responsesTools writes them:
// each a function tool ({type "function", name, description, parameters,
// strict}); nil when there are none, ok false when the full decode must
// read them (another kind of tool, which it refuses, included).
func fastFunctionTools(raw json.RawMessage) (chat json.RawMessage, ok bool) {
	if len(raw) == 0 || isNull(raw) {
		return nil, true
	}
	if raw[0] != '[' {
		return nil, false
	}
	b := make([]byte, 0, len(raw)+len(raw)/8+64)
	n, ok := eachElement(raw, func(a []byte, vs int) (int, bool) {
		var name, desc, params, strict []byte
		var seen uint8
		end, ok := eachMember(a, vs, func(key, v []byte, verbatim bool) bool {
			var bit uint8
			switch string(key) {
			case "type":
				bit = tType
				if string(v) != `"function"` {
					return false
				}
			case "name":
				bit, name = tName, v
				if !verbatim || len(v) <= 2 {
					return false
				}
			case "description":
				bit, desc = tDescription, v
				if !verbatim {
					return false
				}
			case "parameters":
				bit, params = tSchema, v
			case "strict":
				bit, strict = tStrict, v
				if string(v) != "true" && string(v) != "false" && !isNull(v) {
					return false
				}
			default:
				return false
			}
			if seen&bit != 0 {
				return false // a key twice: encoding/json's last-wins is left to it
			}
			seen |= bit
			return true
		})
		if !ok || seen&tType == 0 || name == nil {
			return 0, false
		}
		if len(b) == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = append(b, `{"function":{`...)
		if len(desc) > 2 { // an empty description is left out
			b = append(append(append(b, `"description":`...), desc...), ',')
		}
		b = append(append(b, `"name":`...), name...)
		if params != nil && !isNull(params) {
			b = append(append(b, `,"parameters":`...), params...)
		}
		if strict != nil && !isNull(strict) {
			b = append(append(b, `,"strict":`...), strict...)
		}
		b = append(b, `},"type":"function"}`...)
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
