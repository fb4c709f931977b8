package http

import (
	"encoding/json"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// providerPrefs is OpenRouter's provider object: how the gateway picks and
// orders the upstreams of a model.
type providerPrefs struct {
	Order          []string `json:"order"`
	AllowFallbacks *bool    `json:"allow_fallbacks"`
	Only           []string `json:"only"`
	Ignore         []string `json:"ignore"`
	Sort           string   `json:"sort"` // price, latency, throughput
	// RequireParameters: only upstreams that carry every parameter set may serve.
	RequireParameters bool `json:"require_parameters"`
}

// routingFields are the members of a request the gateway reads to route it
// (OpenRouter's model fallbacks and provider preferences): they never go
// to an upstream, whatever the client's protocol.
var routingFields = []string{"models", "provider", "route"}

// readRouting reads the client's models list, provider preferences and
// end user from the top level of its body into call (whose Models holds
// the requested model), for every chat protocol alike.
func readRouting(fields map[string]json.RawMessage, call *actors.ChatCall) *shlyuz.Error {
	var models []string
	if err := field(fields, "models", &models); err != nil {
		return err
	}
	for _, m := range models {
		if m != call.Models[0] && m != "" {
			call.Models = append(call.Models, m)
		}
	}
	var prefs *providerPrefs
	if err := field(fields, "provider", &prefs); err != nil {
		return err
	}
	if prefs != nil {
		call.Order, call.Only, call.Ignore, call.Sort = prefs.Order, prefs.Only, prefs.Ignore, prefs.Sort
		call.RequireParameters = prefs.RequireParameters
		if prefs.AllowFallbacks != nil {
			call.AllowFallbacks = *prefs.AllowFallbacks
		}
	}
	var user string
	if v, ok := fields["user"]; ok && len(v) > 0 && v[0] == '"' {
		if err := field(fields, "user", &user); err != nil {
			return err
		}
		if len(user) > maxUserLen {
			return shlyuz.ErrInvalidValue("user", "user is at most %d bytes.", maxUserLen)
		}
		call.User = user
	}
	return nil
}

// maxUserLen bounds the end user's id kept on every generation record.
const maxUserLen = 256

// withoutRouting is the client's native body without the routing members,
// for an upstream that gets the body as it came.
func withoutRouting(top map[string]json.RawMessage) {
	for _, k := range routingFields {
		delete(top, k)
	}
}
