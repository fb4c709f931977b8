// Package partjson reads what the http protocols (measuring a request before
// it goes) and the adapters (translating it) both read of an OpenAI chat
// content part, so that the two always take a part alike.
package partjson

import (
	"encoding/json"
	"strings"
)

// URL is the URL of an image_url or video_url member: the object's url, or
// the member itself where a client sent it as a plain string; trimmed of
// white space, empty when there is none.
func URL(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return strings.TrimSpace(s)
	}
	var o struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(raw, &o)
	return strings.TrimSpace(o.URL)
}
