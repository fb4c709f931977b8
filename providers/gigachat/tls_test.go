package gigachat

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// TestTLSWithCAFile serves the fake over TLS with a certificate no system
// trusts: with ca_file naming it the adapter gets its token and its replies;
// without, it fails with a certificate error (and never skips verification).
func TestTLSWithCAFile(t *testing.T) {
	f := fake.New(fake.Options{ReplyTokens: 3, APIKey: testKey})
	srv := httptest.NewTLSServer(f)
	t.Cleanup(srv.Close)
	t.Cleanup(f.Close)

	dir := t.TempDir()
	caPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	caDER := filepath.Join(dir, "ca.cer")
	if err := os.WriteFile(caDER, srv.Certificate().Raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := shlyuz.UpstreamConfig{
		Name:    "giga-tls",
		BaseURL: srv.URL + fakeAPI,
		AuthURL: srv.URL + fakeOAuth,
		APIKey:  testKey,
	}

	for _, ca := range []string{caPEM, caDER} {
		c := cfg
		c.CAFile = ca
		p, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(ca), err)
		}
		if resp.Usage.CompletionTokens != 3 {
			t.Errorf("usage %+v", resp.Usage)
		}
		st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, adaptertest.HelloBody))
		if err != nil {
			t.Fatal(err)
		}
		if c := collect(t, st); c.err != nil || c.Content != "tok0 tok1 tok2" {
			t.Errorf("stream over TLS: %q %v", c.Content, c.err)
		}
		st.Close()
		p.CloseIdleConnections()
	}
	issued := f.GigaChatTokensIssued()

	// Without the CA: the OAuth call is refused by our own TLS check.
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.CloseIdleConnections()
	_, err = p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !isCertError(e) || !strings.Contains(e.Message, "ca_file") {
		t.Errorf("error %q (cause %v) is not a certificate error", e.Message, e.Cause)
	}
	if f.GigaChatTokensIssued() != issued {
		t.Error("a token was issued over an untrusted connection")
	}

	// The chat endpoint alone untrusted (a token in hand): a certificate error too.
	p.auth.Set("some-token", p.now().Add(time.Hour))
	_, err = p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, adaptertest.HelloBody))
	e = adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !isCertError(e) || !strings.Contains(e.Message, "ca_file") {
		t.Errorf("error %q (cause %v) is not a certificate error", e.Message, e.Cause)
	}

	// A ca_file with no certificate in it is refused at start.
	bad := filepath.Join(dir, "bad.pem")
	_ = os.WriteFile(bad, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), 0o600)
	c := cfg
	c.CAFile = bad
	if _, err := New(c); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Errorf("New with a ca_file without certificates: %v", err)
	}
}
