package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/tracing"
	"gopkg.in/yaml.v3"
)

// Config is the YAML file given with --config. ${VAR} references are expanded
// from the environment before parsing; credentials should only come that way.
type Config struct {
	Listen   string `yaml:"listen"`
	DB       string `yaml:"db"`
	Timezone string `yaml:"timezone"` // key periods and plan periods; default Europe/Moscow
	// JournalInterval is the group-commit period of ledger entries (≤ 50ms).
	JournalInterval time.Duration `yaml:"journal_interval"`
	Heartbeat       time.Duration `yaml:"heartbeat"` // SSE keep-alive while a stream is idle
	// CORS lists the origins whose browser pages may call /api (default: any).
	CORS struct {
		AllowedOrigins []string `yaml:"allowed_origins"`
	} `yaml:"cors"`
	// Demo makes a demo account with 10 rubles and a key on the first start,
	// the key written beside the database; default: on when no upstream is
	// configured (the built-in demo upstream then serves the demo/ models).
	Demo *bool `yaml:"demo"`
	// ActorIdle passivates a key or account actor idle that long (its state
	// is in the store); 0: the default 10m; a negative value: never.
	ActorIdle time.Duration `yaml:"actor_idle"`
	BodyLimit int           `yaml:"body_limit"` // bytes, of an /api/v1 body (after inflating)
	// MaxKeysPerAccount caps an account's keys that are not revoked (API,
	// management and the web chat's); 0: the default 1,000.
	MaxKeysPerAccount int `yaml:"max_keys_per_account"`
	// HTTP bounds slow and idle clients; zero values take http.Options' defaults.
	HTTP httpConfig `yaml:"http"`
	// Metrics: GET /metrics needs the admin token unless public is true.
	Metrics struct {
		Public bool `yaml:"public"`
		// ReconcileInterval: how often balances are checked against the
		// ledger for shlyuz_reconcile_mismatched_accounts (default 10m; negative: never).
		ReconcileInterval time.Duration `yaml:"reconcile_interval"`
	} `yaml:"metrics"`
	// Pricing applies until the operator sets one through the admin API.
	Pricing *struct {
		Rate shlyuz.Decimal `yaml:"rate"`
		K    shlyuz.Decimal `yaml:"K"`
	} `yaml:"pricing"`
	Plans  []shlyuz.Plan  `yaml:"plans"`  // upserted at start
	Models []shlyuz.Model `yaml:"models"` // override or add catalog models
	// Lifecycle sets models' deprecation and retirement dates and successors
	// (model_lifecycle.go).
	Lifecycle []lifecycleOverride     `yaml:"lifecycle"`
	Upstreams []shlyuz.UpstreamConfig `yaml:"upstreams"`
	Routes    []shlyuz.Route          `yaml:"routes"`
	// WebSearch is the engine the web plugin searches with (websearch.go).
	WebSearch webSearchConfig `yaml:"web_search"`
	Cluster   struct {
		// Single (default) or sql; this node's actor address and the
		// one the others reach it at; the membership lease; durable settlement
		// (default on in every mode). See cluster_config.go.
		Mode          string        `yaml:"mode"`
		Listen        string        `yaml:"listen"`
		Advertise     string        `yaml:"advertise"`
		LeaseTTL      time.Duration `yaml:"lease_ttl"`
		DurableSettle *bool         `yaml:"durable_settle"`

		Host     string   `yaml:"host"`
		Port     int      `yaml:"port"`
		Peers    []string `yaml:"peers"`
		AutoPort int      `yaml:"auto_port"`
	} `yaml:"cluster"`
	// Video jobs: where finished files are kept and how jobs are polled.
	Video videoConfig `yaml:"video"`
	// The web account area and payments: see web.go.
	Web      webConfig      `yaml:"web"`
	Payments paymentsConfig `yaml:"payments"`
	// ExchangeRate: an optional updater from the Central Bank's feed (web.go).
	ExchangeRate rateConfig `yaml:"exchange_rate"`
	// Tracing exports OpenTelemetry traces over OTLP/HTTP; off without an
	// endpoint (see package tracing).
	Tracing tracing.Config `yaml:"tracing"`
}

// httpConfig is the http section: see http.Options.
type httpConfig struct {
	HeaderTimeout  time.Duration `yaml:"header_timeout"`  // default 10s
	IdleTimeout    time.Duration `yaml:"idle_timeout"`    // default 2m
	BodyGrace      time.Duration `yaml:"body_grace"`      // default 5s
	MinBodyRate    int           `yaml:"min_body_rate"`   // bytes a second; default 1024
	MaxConnections int           `yaml:"max_connections"` // default 10000
}

func loadConfig(path string) (*Config, error) {
	cfg := &Config{}
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		dec := yaml.NewDecoder(bytes.NewReader([]byte(expandEnv(string(raw)))))
		dec.KnownFields(true)
		if err := dec.Decode(cfg); err != nil {
			return nil, fmt.Errorf("%s: %s", path, plainYAML(err))
		}
	}
	for i := range cfg.Upstreams {
		u := &cfg.Upstreams[i]
		if u.APIKeyEnv != "" {
			u.APIKey = os.Getenv(u.APIKeyEnv)
		}
	}
	return cfg, nil
}

// expandEnv replaces ${VAR} and $VAR with the variable's value, and
// ${VAR:-default} with the default when the variable is unset or empty.
func expandEnv(s string) string {
	return os.Expand(s, func(name string) string {
		if k, def, ok := strings.Cut(name, ":-"); ok {
			if v := os.Getenv(k); v != "" {
				return v
			}
			return def
		}
		return os.Getenv(name)
	})
}

var (
	yamlUnknown = regexp.MustCompile(`line (\d+): field (\S+) not found in type \S+`)
	yamlType    = regexp.MustCompile(`line (\d+): cannot unmarshal !!(\w+) ` + "`" + `([^` + "`" + `]*)` + "`" + ` into (\S+)`)
	goTypes     = map[string]string{"int": "a whole number", "int64": "a whole number", "uint32": "a whole number",
		"bool": "true or false", "time.Duration": "a duration such as 30s", "string": "text"}
)

// plainYAML words a YAML decoding error for the operator: each problem with
// its line and the setting, without Go's type names.
func plainYAML(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "yaml: ")
	}
	var out []string
	for _, e := range te.Errors {
		if m := yamlUnknown.FindStringSubmatch(e); m != nil {
			out = append(out, fmt.Sprintf("line %s: there is no setting %q (a typo?)", m[1], m[2]))
		} else if m := yamlType.FindStringSubmatch(e); m != nil {
			want := goTypes[m[4]]
			if want == "" {
				want = "another kind of value"
			}
			out = append(out, fmt.Sprintf("line %s: %q is not valid here, it must be %s", m[1], m[3], want))
		} else {
			out = append(out, e)
		}
	}
	return strings.Join(out, "; ")
}
