package openai

import (
	"bytes"
	"strings"

	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// The names of the members of a usage object and of its details that
// wireUsage reads.
var (
	usageKeys      = [...]string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details", "prompt_cache_hit_tokens"}
	promptKeys     = [...]string{"cached_tokens", "cache_write_tokens", "audio_tokens", "image_tokens"}
	completionKeys = [...]string{"reasoning_tokens", "audio_tokens", "image_tokens"}
)

// readUsage is json.Unmarshal(v, u) for a usage object, in one validating
// pass: every reply and every stream's last chunk carries one, and
// encoding/json's reflection cost more than the rest of reading a short
// reply. Like readReply it reports false where encoding/json might decide
// differently (a count that is not a plain integer of at most 18 digits, a
// key it would unescape or match by case folding, invalid JSON), and the
// caller then asks encoding/json; u may then hold part of the object.
func readUsage(v []byte, u *wireUsage) bool {
	return readObject(v, func(key, val []byte) bool { return readUsageMember(key, val, u) })
}

// readUsageMember sets u's field for one member, as encoding/json would.
func readUsageMember(key, val []byte, u *wireUsage) bool {
	switch string(key) {
	case usageKeys[0]:
		return readCount(val, &u.PromptTokens)
	case usageKeys[1]:
		return readCount(val, &u.CompletionTokens)
	case usageKeys[2]:
		return readCount(val, &u.TotalTokens)
	case usageKeys[3]:
		d := &u.PromptTokensDetails
		into := [len(promptKeys)]*int64{&d.CachedTokens, &d.CacheWriteTokens, &d.AudioTokens, &d.ImageTokens}
		return readCounts(val, promptKeys[:], into[:])
	case usageKeys[4]:
		d := &u.CompletionTokensDetails
		into := [len(completionKeys)]*int64{&d.ReasoningTokens, &d.AudioTokens, &d.ImageTokens}
		return readCounts(val, completionKeys[:], into[:])
	case usageKeys[5]:
		return readCount(val, &u.PromptCacheHitTokens)
	default:
		return unknownKey(key, usageKeys[:])
	}
}

// readCounts reads an object of counts, v, already validated: the member
// named keys[i] into *into[i]. null leaves the counts as they are, as
// encoding/json leaves a struct.
func readCounts(v []byte, keys []string, into []*int64) bool {
	if isNull(v) {
		return true
	}
	it, ok := jsonscan.Members(v, 0)
	if !ok {
		return false
	}
	for {
		key, _, vs, ve, more := it.Next()
		if !more {
			break
		}
		i := 0
		for i < len(keys) && keys[i] != string(key) {
			i++
		}
		if i == len(keys) {
			if !unknownKey(key, keys) {
				return false
			}
			continue
		}
		if !readCount(v[vs:ve], into[i]) {
			return false
		}
	}
	return it.Err() == nil
}

// readCount reads a count: a plain integer, or null, which leaves it as it is.
func readCount(v []byte, into *int64) bool {
	if isNull(v) {
		return true
	}
	neg := v[0] == '-'
	digits := v
	if neg {
		digits = v[1:]
	}
	if len(digits) == 0 || len(digits) > 18 { // 18 digits cannot overflow an int64
		return false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	*into = n
	return true
}

// unknownKey reports whether encoding/json, too, would skip a member of
// this key: true unless the key is escaped or folds to one of keys.
func unknownKey(key []byte, keys []string) bool {
	if bytes.IndexByte(key, '\\') >= 0 {
		return false
	}
	for _, k := range keys {
		if strings.EqualFold(string(key), k) {
			return false
		}
	}
	return true
}
