package api

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// SplitObject reads a request body into its top-level members exactly as
// json.Unmarshal into a map[string]json.RawMessage would, in one validating
// pass (validObject) and without decoding any value: the values are spans of
// body itself (capped, so an append copies), which the caller must keep
// unchanged while they are used. A body the pass refuses, or a key it would
// have to unescape, goes to encoding/json, whose result and error message are
// the answer; so an invalid body's 400 says what encoding/json says.
func SplitObject(body []byte) (map[string]json.RawMessage, error) {
	var stack [32]member
	if members, ok := validObject(body, stack[:0]); ok {
		fields := make(map[string]json.RawMessage, len(members))
		for _, m := range members {
			fields[memberName(body[m.ks:m.ke])] = body[m.vs:m.ve:m.ve]
		}
		return fields, nil
	}
	var fields map[string]json.RawMessage
	err := json.Unmarshal(body, &fields)
	return fields, err
}

// memberName is a member's key as a string: the common members of a chat
// request are the constants, without a copy for every request.
func memberName(k []byte) string {
	switch string(k) { // compared without a copy
	case "model":
		return "model"
	case "messages":
		return "messages"
	case "max_tokens":
		return "max_tokens"
	case "max_completion_tokens":
		return "max_completion_tokens"
	case "stream":
		return "stream"
	case "temperature":
		return "temperature"
	case "tools":
		return "tools"
	case "input":
		return "input"
	case "system":
		return "system"
	}
	return string(k)
}

// member is the span of a key's text (inside its quotes) and of its value.
type member struct{ ks, ke, vs, ve int }

// validObject reports whether b is one valid JSON object (spaces around it
// allowed; validated as encoding/json's checkValid does, by jsonscan) whose
// keys need no unescaping, and appends its members' spans.
func validObject(b []byte, members []member) ([]member, bool) {
	it, ok := jsonscan.ValidMembers(b, 0, 1)
	if !ok {
		return nil, false
	}
	for {
		key, ks, vs, ve, ok := it.Next()
		if !ok {
			break
		}
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return nil, false // encoding/json would unescape or mend it
		}
		members = append(members, member{ks + 1, ks + 1 + len(key), vs, ve})
	}
	if it.Err() != nil {
		return nil, false
	}
	return members, jsonscan.SkipSpace(b, it.End()) == len(b)
}
