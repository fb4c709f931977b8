package api

import (
	"encoding/json"
	"slices"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// ProviderPrefs is OpenRouter's provider object: how the gateway picks and
// orders the upstreams of a model.
type ProviderPrefs struct {
	Order          []string `json:"order"`
	AllowFallbacks *bool    `json:"allow_fallbacks"`
	Only           []string `json:"only"`
	Ignore         []string `json:"ignore"`
	Sort           string   `json:"sort"` // price, latency, throughput
	// RequireParameters: only upstreams that carry every parameter set may serve.
	RequireParameters bool     `json:"require_parameters"`
	DataCollection    string   `json:"data_collection"` // allow (the default) or deny
	ZDR               *bool    `json:"zdr"`
	Quantizations     []string `json:"quantizations"`
	// Soft preferences: they order the upstreams (by throughput, by
	// latency) when the client set no sort.
	PreferredMinThroughput json.RawMessage `json:"preferred_min_throughput"`
	PreferredMaxLatency    json.RawMessage `json:"preferred_max_latency"`
	// MaxPrice bounds the upstreams' price (readMaxPrice).
	MaxPrice json.RawMessage `json:"max_price"`
	// Refused with a 400 naming it: the gateway cannot honour it.
	EnforceDistillableText *bool `json:"enforce_distillable_text"`
}

// quantizations are OpenRouter's names of weights' quantizations.
var quantizations = []string{"int4", "int8", "fp4", "mxfp4", "nvfp4", "fp6", "fp8", "mxfp8", "fp16", "bf16", "fp32", "unknown"}

// policy reads the data and weights preferences, refusing what the gateway cannot honour.
func (p *ProviderPrefs) policy(call *actors.ChatCall) *shlyuz.Error {
	switch p.DataCollection {
	case "", "allow":
	case "deny":
		call.Policy.DenyDataCollection = true
	default:
		return shlyuz.ErrInvalidValue("provider.data_collection", "provider.data_collection is allow or deny, not %q.", p.DataCollection)
	}
	call.Policy.ZDR = p.ZDR != nil && *p.ZDR
	for _, q := range p.Quantizations {
		if !slices.Contains(quantizations, q) {
			return shlyuz.ErrInvalidValue("provider.quantizations", "provider.quantizations takes %s, not %q.", strings.Join(quantizations, ", "), q)
		}
	}
	call.Policy.Quantizations = p.Quantizations
	if len(p.MaxPrice) > 0 && !IsNull(p.MaxPrice) {
		mp, err := readMaxPrice(p.MaxPrice)
		if err != nil {
			return err
		}
		call.MaxPrice = mp
	}
	if p.EnforceDistillableText != nil && *p.EnforceDistillableText {
		return shlyuz.ErrInvalidValue("provider.enforce_distillable_text", "provider.enforce_distillable_text is not supported: the gateway does not know the models' distillation terms.")
	}
	if call.Sort == "" {
		switch {
		case len(p.PreferredMinThroughput) > 0 && !IsNull(p.PreferredMinThroughput):
			call.Sort = actors.SortThroughput
		case len(p.PreferredMaxLatency) > 0 && !IsNull(p.PreferredMaxLatency):
			call.Sort = actors.SortLatency
		}
	}
	return nil
}

// routingFields are the members of a request the gateway reads to route it
// (OpenRouter's model fallbacks and provider preferences): they never go
// to an upstream, whatever the client's protocol.
var routingFields = []string{"models", "provider", "route", "plugins", "transforms", "debug"}

// ReadRouting reads the client's models list, provider preferences and
// end user from the top level of its body into call (whose Models holds
// the requested model), for every chat protocol alike.
func ReadRouting(fields map[string]json.RawMessage, call *actors.ChatCall) *shlyuz.Error {
	if _, ok := fields["models"]; ok { // the decoding targets are made only for members present
		var models []string
		if err := Field(fields, "models", &models); err != nil {
			return err
		}
		for _, m := range models {
			if m != call.Models[0] && m != "" {
				call.Models = append(call.Models, m)
			}
		}
	}
	if _, ok := fields["provider"]; ok {
		var prefs *ProviderPrefs
		if err := Field(fields, "provider", &prefs); err != nil {
			return err
		}
		if err := applyPrefs(prefs, call); err != nil {
			return err
		}
	}
	if v, ok := fields["user"]; ok && len(v) > 0 && v[0] == '"' {
		var user string
		if err := Field(fields, "user", &user); err != nil {
			return err
		}
		if len(user) > maxUserLen {
			return shlyuz.ErrInvalidValue("user", "user is at most %d bytes.", maxUserLen)
		}
		call.User = user
	}
	return nil
}

// applyPrefs sets the call's provider preferences (none when prefs is nil).
func applyPrefs(prefs *ProviderPrefs, call *actors.ChatCall) *shlyuz.Error {
	if prefs == nil {
		return nil
	}
	call.Order, call.Only, call.Ignore, call.Sort = prefs.Order, prefs.Only, prefs.Ignore, prefs.Sort
	call.RequireParameters = prefs.RequireParameters
	if prefs.AllowFallbacks != nil {
		call.AllowFallbacks = *prefs.AllowFallbacks
	}
	return prefs.policy(call)
}

// maxUserLen bounds the end user's id kept on every generation record.
const maxUserLen = 256

// WithoutRouting is the client's native body without the routing members,
// for an upstream that gets the body as it came.
func WithoutRouting(top map[string]json.RawMessage) {
	for _, k := range routingFields {
		delete(top, k)
	}
}

// Field decodes one top-level field if present; a wrong type is a 400 naming it.
func Field(fields map[string]json.RawMessage, name string, into any) *shlyuz.Error {
	raw, ok := fields[name]
	if !ok || IsNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return shlyuz.ErrInvalidValue(name, "The field %q has the wrong type: %s", name, err.Error())
	}
	return nil
}

// RefuseUnserved refuses the OpenRouter request members the gateway does
// not honour, naming them, rather than ignore them: plugins but the web
// plugin (ReadWebSearch), transforms (no middle-out compression) and
// debug's upstream echo.
func RefuseUnserved(fields map[string]json.RawMessage) *shlyuz.Error {
	return refuseUnserved(fields, true)
}

// RefuseChatOnly refuses, on the routes that are not chat completions
// (Messages, Responses, Gemini), what RefuseUnserved refuses and the web
// plugin too: the gateway runs its search for chat completions only, and
// a plugin is never dropped unsaid.
func RefuseChatOnly(fields map[string]json.RawMessage) *shlyuz.Error {
	return refuseUnserved(fields, false)
}

func refuseUnserved(fields map[string]json.RawMessage, chat bool) *shlyuz.Error {
	_, plugins := fields["plugins"]
	_, transforms := fields["transforms"]
	_, debug := fields["debug"]
	if !plugins && !transforms && !debug {
		return nil // the usual request: the decoding targets below escape, made only when needed
	}
	return refuseMembers(fields, chat)
}

func refuseMembers(fields map[string]json.RawMessage, chat bool) *shlyuz.Error {
	var plugins []struct {
		ID      string `json:"id"`
		Enabled *bool  `json:"enabled"`
	}
	if err := Field(fields, "plugins", &plugins); err != nil {
		return err
	}
	web := false // an enabled web plugin: served on chat completions only
	for _, p := range plugins {
		if p.Enabled != nil && !*p.Enabled {
			continue
		}
		if p.ID != "web" { // the web plugin: ReadWebSearch
			return shlyuz.ErrInvalidValue("plugins", "The plugin %q is not served by this gateway.", p.ID)
		}
		web = true
	}
	var transforms []string
	if err := Field(fields, "transforms", &transforms); err != nil {
		return err
	}
	if len(transforms) > 0 {
		return shlyuz.ErrInvalidValue("transforms", "transforms (%s) are not served by this gateway: send a prompt that fits the model's context.", strings.Join(transforms, ", "))
	}
	var debug struct {
		Echo bool `json:"echo_upstream_body"`
	}
	if err := Field(fields, "debug", &debug); err != nil {
		return err
	}
	if debug.Echo {
		return shlyuz.ErrInvalidValue("debug", "debug.echo_upstream_body is not served by this gateway.")
	}
	if web && !chat {
		return shlyuz.ErrInvalidValue("plugins", "plugins (here %q) are served on /api/v1/chat/completions only.", "web")
	}
	return nil
}

// readMaxPrice reads provider.max_price: {prompt, completion} in US
// dollars per million tokens, request per request, as numbers or strings.
// image and audio (per image, per audio unit) have no counterpart in the
// gateway's per-token prices: a 400 naming them rather than ignored.
func readMaxPrice(raw json.RawMessage) (*actors.MaxPrice, *shlyuz.Error) {
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, shlyuz.ErrInvalidValue("provider.max_price", "provider.max_price is an object {prompt, completion, request}: %s", err.Error())
	}
	mp := &actors.MaxPrice{}
	for k, v := range parts {
		var into **shlyuz.Decimal
		switch k {
		case "prompt":
			into = &mp.Prompt
		case "completion":
			into = &mp.Completion
		case "request":
			into = &mp.Request
		default:
			return nil, shlyuz.ErrInvalidValue("provider.max_price", "provider.max_price.%s is not served: only prompt, completion and request bound a price here.", k)
		}
		if IsNull(v) {
			continue
		}
		var d shlyuz.Decimal
		if err := json.Unmarshal(v, &d); err != nil || d.Sign() < 0 {
			return nil, shlyuz.ErrInvalidValue("provider.max_price", "provider.max_price.%s is a price in US dollars, not %s.", k, v)
		}
		*into = &d
	}
	return mp, nil
}
