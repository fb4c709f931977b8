package conformance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"strings"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

type nopProvider struct{}

func (nopProvider) Chat(context.Context, *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	return nil, shlyuz.ErrUpstream("nop")
}

func (nopProvider) ChatStream(context.Context, *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	return nil, shlyuz.ErrUpstream("nop")
}

// TestNewTLS checks that a Target with NewTLS gets the fake over HTTPS and a
// CA file that makes its certificate trusted.
func TestNewTLS(t *testing.T) {
	called := false
	start(t, Target{Name: "tls", NewTLS: func(t *testing.T, baseURL, caFile string) shlyuz.Provider {
		called = true
		if !strings.HasPrefix(baseURL, "https://127.0.0.1:") {
			t.Errorf("baseURL %q, want https://127.0.0.1:port", baseURL)
		}
		pem, err := os.ReadFile(caFile)
		if err != nil {
			t.Fatal(err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			t.Fatalf("%s holds no PEM certificate", caFile)
		}
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(baseURL + "/v1/models")
		if err != nil {
			t.Fatalf("GET over TLS trusting %s: %v", caFile, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /v1/models: %s", resp.Status)
		}
		// Without the CA file, the certificate is not trusted.
		if resp, err := http.Get(baseURL + "/v1/models"); err == nil {
			resp.Body.Close()
			t.Error("the test server's certificate is trusted without the CA file")
		}
		return nopProvider{}
	}})
	if !called {
		t.Fatal("NewTLS was not called")
	}
}
