package openai_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/openai"
)

// An upstream whose certificate chains to the configured CA file is trusted;
// without the file it is refused, and an unusable file fails at Open.
func TestCAFile(t *testing.T) {
	srv := httptest.NewTLSServer(fake.New(fake.Options{ReplyTokens: 3}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	req := &shlyuz.UpstreamRequest{GenerationID: "gen-ca", Model: "t/m", UpstreamModel: "m",
		Fields: map[string]json.RawMessage{"messages": json.RawMessage(`[{"role":"user","content":"hi"}]`)}}
	for _, tc := range []struct {
		name   string
		caFile string
		ok     bool
	}{{"with the CA file", ca, true}, {"without it", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := openai.Open(shlyuz.UpstreamConfig{Name: "tls", BaseURL: srv.URL + "/v1", CAFile: tc.caFile})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = p.Chat(ctx, req)
			if tc.ok && err != nil {
				t.Fatalf("trusted upstream refused: %v", err)
			}
			if !tc.ok && (err == nil || !strings.Contains(strings.ToLower(fmt.Sprint(err, errors.Unwrap(err))), "certificate")) {
				t.Fatalf("an untrusted certificate was accepted or misreported: %v", err)
			}
		})
	}
	if _, err := openai.Open(shlyuz.UpstreamConfig{Name: "tls", BaseURL: srv.URL + "/v1", CAFile: filepath.Join(t.TempDir(), "missing.pem")}); err == nil {
		t.Fatal("Open accepted a missing CA file")
	}
}
