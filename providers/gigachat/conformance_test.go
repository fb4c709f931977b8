package gigachat_test

import (
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/conformance"
	"github.com/shlyuz/shlyuz/providers/gigachat"
)

// newConformance points the adapter at the fake, which serves GigaChat under
// /gigachat/ and, with no APIKey set, takes any authorization key.
func newConformance(t *testing.T, baseURL, caFile string) shlyuz.Provider {
	p, err := gigachat.New(shlyuz.UpstreamConfig{
		Name:     "gigachat-conformance",
		Protocol: "gigachat",
		BaseURL:  baseURL + "/gigachat/api/v1",
		AuthURL:  baseURL + "/gigachat/api/v2/oauth",
		APIKey:   "Y29uZm9ybWFuY2U6c2VjcmV0",
		CAFile:   caFile,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Target{Name: "gigachat", New: func(t *testing.T, baseURL string) shlyuz.Provider {
		return newConformance(t, baseURL, "")
	}})
}

// TestConformanceTLS runs the suite over HTTPS, the fake's certificate
// trusted through ca_file only, as the Russian Trusted Root CA is in production.
func TestConformanceTLS(t *testing.T) {
	conformance.Run(t, conformance.Target{Name: "gigachat_tls", NewTLS: newConformance})
}
