package api

import (
	"encoding/json"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// defaultSearchHold is how many searches a web search tool without
// max_uses is reserved for: the charge is what the upstream reports, capped
// at what was held.
const defaultSearchHold = 10

// ServerToolFees reads the Anthropic server tools of a Messages request
// that bear a fee of their own: the web searches the request may run (each
// max_uses, or defaultSearchHold), reserved for and billed per search. A
// fee-bearing tool the gateway cannot price (code execution, billed by the
// container hour) is refused before anything goes upstream.
func ServerToolFees(tools json.RawMessage) (searches int64, err *shlyuz.Error) {
	if len(tools) == 0 || IsNull(tools) {
		return 0, nil
	}
	var ts []struct {
		Type    string `json:"type"`
		MaxUses *int64 `json:"max_uses"`
	}
	if json.Unmarshal(tools, &ts) != nil {
		return 0, nil // the request's own validation words it
	}
	for i, t := range ts {
		switch {
		case strings.HasPrefix(t.Type, "web_search_"):
			n := int64(defaultSearchHold)
			if t.MaxUses != nil {
				if *t.MaxUses < 1 {
					return 0, shlyuz.ErrInvalidValue("tools", "tools[%d].max_uses must be at least 1.", i)
				}
				n = *t.MaxUses
			}
			searches = shlyuz.AddChecked(searches, n)
		case strings.HasPrefix(t.Type, "code_execution_"):
			return 0, shlyuz.ErrInvalidValue("tools", "tools[%d]: %s is billed by the container hour, which this gateway cannot price; it is not served.", i, t.Type)
		}
	}
	return searches, nil
}

// GoogleToolFees reads the Google tools of a Gemini API request that bear
// a fee of their own: grounding with Google Search (googleSearch, or
// googleSearchRetrieval of Gemini 1.5), reserved for defaultSearchHold
// searches and billed as the upstream's groundingMetadata shows (per
// grounded prompt, or per query on Gemini 3). Grounding the gateway cannot
// price (Google Maps, enterprise web search) is refused before anything
// goes upstream; code execution and URL context bill as tokens.
func GoogleToolFees(tools json.RawMessage) (searches int64, err *shlyuz.Error) {
	if len(tools) == 0 || IsNull(tools) {
		return 0, nil
	}
	var ts []map[string]json.RawMessage
	if json.Unmarshal(tools, &ts) != nil {
		return 0, nil // the request's own validation words it
	}
	for i, t := range ts {
		for k := range t {
			switch k {
			case "googleSearch", "googleSearchRetrieval":
				searches = defaultSearchHold
			case "googleMaps", "enterpriseWebSearch":
				return 0, shlyuz.ErrInvalidValue("tools", "tools[%d]: %s bears a fee this gateway cannot price; it is not served.", i, k)
			}
		}
	}
	return searches, nil
}
