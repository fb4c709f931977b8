package openai

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// replyKeys are the members of a reply wireReply decodes.
var replyKeys = [...]string{"created", "choices", "system_fingerprint", "usage", "error"}

// readReply is json.Unmarshal(data, w) for a chat.completion, in one
// validating pass (jsonscan, as strict as encoding/json's own check) that
// decodes only the small members: choices and error are spans of data, as
// json.RawMessage holds them, and the rest of the reply (the bulk: the
// choices' text) is not decoded twice. It reports false where encoding/json
// would decide differently or fail: a key it would have to unescape or
// match by case folding, a value of another type, invalid JSON; the caller
// then decodes with encoding/json, whose result and error are the answer.
func readReply(data []byte, w *wireReply) bool {
	return readObject(data, func(key, v []byte) bool { return readReplyMember(key, v, w) })
}

// readReplyMember sets w's field for one member, as encoding/json would
// (null leaves a number as it was and a pointer nil; a repeated key's last
// value wins, into the same usage object).
func readReplyMember(key, v []byte, w *wireReply) bool {
	switch string(key) {
	case "choices":
		w.Choices = v
	case "error":
		w.Error = v
	case "created":
		if isNull(v) {
			return true
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		w.Created = n
		return err == nil
	case "system_fingerprint":
		switch {
		case isNull(v): // leaves it as it was, as encoding/json leaves a string
		case v[0] == '"' && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v):
			w.SystemFingerprint = string(v[1 : len(v)-1])
		default:
			return false
		}
	case "usage":
		switch {
		case isNull(v):
			w.Usage = nil
		case v[0] == '{':
			if w.Usage == nil {
				w.Usage = new(wireUsage)
			}
			return readUsage(v, w.Usage)
		default:
			return false
		}
	default:
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		for _, k := range replyKeys {
			if strings.EqualFold(string(key), k) {
				return false
			}
		}
	}
	return true
}
