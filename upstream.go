package shlyuz

import (
	"strings"
	"time"
)

// UpstreamConfig is one upstream provider endpoint as the operator configured it.
type UpstreamConfig struct {
	Name      string            `yaml:"name"`
	Protocol  string            `yaml:"protocol"` // openai (default), anthropic, gemini, gigachat, yandex, salute, bfl, kling, minimax
	BaseURL   string            `yaml:"base_url"` // e.g. https://api.openai.com/v1
	APIKeyEnv string            `yaml:"api_key_env"`
	APIKey    string            `yaml:"-"` // resolved from APIKeyEnv; never logged
	Headers   map[string]string `yaml:"headers"`
	// Provider-specific settings.
	AuthURL       string `yaml:"auth_url"`       // gigachat: the OAuth token endpoint
	Scope         string `yaml:"scope"`          // gigachat: GIGACHAT_API_PERS, _B2B or _CORP
	CAFile        string `yaml:"ca_file"`        // PEM roots trusted besides the system's (the Russian Trusted Root CA)
	FolderID      string `yaml:"folder_id"`      // yandex: the cloud folder that owns the model
	AuthScheme    string `yaml:"auth_scheme"`    // yandex: "Api-Key" (default) or "Bearer" for an IAM token
	APIVersion    string `yaml:"api_version"`    // anthropic: the anthropic-version header
	MaxConcurrent int    `yaml:"max_concurrent"` // 0: 256
	// Timeout bounds a whole non-streamed call; FirstByteTimeout the wait for the
	// first byte of a stream; IdleTimeout the gap between two stream chunks.
	Timeout          time.Duration `yaml:"timeout"`
	FirstByteTimeout time.Duration `yaml:"first_byte_timeout"`
	IdleTimeout      time.Duration `yaml:"idle_timeout"`
	Breaker          BreakerConfig `yaml:"breaker"`
	Retry            RetryConfig   `yaml:"retry"`
	// PriceMultiplier scales the catalog price of calls this upstream serves
	// (an aggregator's fee, a dearer region); empty or 0 means 1.
	PriceMultiplier Decimal `yaml:"price_multiplier"`
	// What the operator declares of the upstream for OpenRouter's provider
	// preferences: Slug is OpenRouter's name of its provider ("openai",
	// "together"), which provider.order, only and ignore take beside Name;
	// DataCollection is "deny" when the provider neither stores nor trains
	// on prompts ("allow", the default, otherwise); ZDR: it retains no data
	// at all; Quantization is its weights' (OpenRouter's names: fp8,
	// bf16…; "" is "unknown").
	Slug           string `yaml:"slug"`
	DataCollection string `yaml:"data_collection"`
	ZDR            bool   `yaml:"zdr"`
	Quantization   string `yaml:"quantization"`
	// Parameters are the request parameters the upstream takes beyond its
	// protocol's (top_k, min_p for an OpenAI-compatible server): sent on,
	// where the protocol's adapter would drop them.
	Parameters []string `yaml:"parameters"`
}

// BreakerConfig tunes an upstream's circuit breaker.
type BreakerConfig struct {
	ConsecutiveFailures uint32        `yaml:"consecutive_failures"` // trip after this many; 0: 5
	OpenFor             time.Duration `yaml:"open_for"`             // the longest pause between two probes of a tripped breaker; 0: 1s
	HalfOpenProbes      uint32        `yaml:"half_open_probes"`     // 0: 1
}

// RetryConfig tunes how a call the upstream answered with a Transient
// error (a rate limit, a 5xx, a time-out) is tried again at the same
// upstream before the gateway moves on to the next one: only before the
// reply's first byte reached the client, after a back-off that doubles
// (or the upstream's Retry-After when longer), and only while the wait
// still ends within Budget of the request's start.
type RetryConfig struct {
	Attempts int           `yaml:"attempts"` // tries in all; 0: 3; 1: no retry
	Backoff  time.Duration `yaml:"backoff"`  // the first wait; 0: 250ms
	Budget   time.Duration `yaml:"budget"`   // 0: 10s
}

// WithDefaults fills the zero fields.
func (u UpstreamConfig) WithDefaults() UpstreamConfig {
	if u.Protocol == "" {
		u.Protocol = "openai"
	}
	if u.MaxConcurrent <= 0 {
		u.MaxConcurrent = 256
	}
	if u.Timeout <= 0 {
		u.Timeout = 10 * time.Minute
	}
	if u.FirstByteTimeout <= 0 {
		u.FirstByteTimeout = 2 * time.Minute
	}
	if u.IdleTimeout <= 0 {
		u.IdleTimeout = 2 * time.Minute
	}
	if u.Breaker.ConsecutiveFailures == 0 {
		u.Breaker.ConsecutiveFailures = 5
	}
	if u.Breaker.OpenFor <= 0 {
		u.Breaker.OpenFor = time.Second
	}
	if u.Retry.Attempts <= 0 {
		u.Retry.Attempts = 3
	}
	if u.Retry.Backoff <= 0 {
		u.Retry.Backoff = 250 * time.Millisecond
	}
	if u.Retry.Budget <= 0 {
		u.Retry.Budget = 10 * time.Second
	}
	if u.Breaker.HalfOpenProbes == 0 {
		u.Breaker.HalfOpenProbes = 1
	}
	return u
}

// Route says which upstreams, in order, serve the models it matches: an exact
// model id, or a prefix ending in "/" ("anthropic/"), or "*" for the rest.
type Route struct {
	Match     string   `yaml:"match"`
	Upstreams []string `yaml:"upstreams"`
	// StripPrefix sends "gpt-4o" for "openai/gpt-4o" (a provider's own API);
	// false sends the id as is (an aggregator such as OpenRouter).
	StripPrefix bool `yaml:"strip_prefix"`
	// UpstreamModel names the model at the upstream, for an exact match.
	UpstreamModel string `yaml:"upstream_model"`
}

// Matches reports whether the route serves the model id, and how specific the match is.
func (r *Route) Matches(model string) (bool, int) {
	switch {
	case r.Match == model:
		return true, 3
	case strings.HasSuffix(r.Match, "/") && strings.HasPrefix(model, r.Match):
		return true, 2
	case r.Match == "*":
		return true, 1
	}
	return false, 0
}

// UpstreamName is what the route calls the model at its upstreams.
func (r *Route) UpstreamName(model string) string {
	if r.UpstreamModel != "" {
		return r.UpstreamModel
	}
	if r.StripPrefix {
		if i := strings.IndexByte(model, '/'); i >= 0 {
			return model[i+1:]
		}
	}
	return model
}

// PickRoute is the most specific route for the model, or nil.
func PickRoute(routes []Route, model string) *Route {
	var best *Route
	bestScore := 0
	for i := range routes {
		if ok, s := routes[i].Matches(model); ok && s > bestScore {
			best, bestScore = &routes[i], s
		}
	}
	return best
}
