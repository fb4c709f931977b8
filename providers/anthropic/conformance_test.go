package anthropic_test

import (
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/anthropic"
	"github.com/shlyuz/shlyuz/providers/conformance"
)

// TestConformance runs the shared provider suite against the adapter, over
// plain HTTP and over HTTPS with the test server's certificate as CAFile; the
// fake serves Anthropic's Messages API at /v1/messages.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Target{
		Name: "anthropic",
		New: func(t *testing.T, baseURL string) shlyuz.Provider {
			return conformanceProvider(t, shlyuz.UpstreamConfig{BaseURL: baseURL})
		},
	})
	conformance.Run(t, conformance.Target{
		Name: "anthropic-tls",
		NewTLS: func(t *testing.T, baseURL, caFile string) shlyuz.Provider {
			return conformanceProvider(t, shlyuz.UpstreamConfig{BaseURL: baseURL, CAFile: caFile})
		},
	})
}

func conformanceProvider(t *testing.T, cfg shlyuz.UpstreamConfig) shlyuz.Provider {
	cfg.Name, cfg.Protocol, cfg.APIKey = "fake-anthropic", "anthropic", "sk-ant-fake"
	p, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}
