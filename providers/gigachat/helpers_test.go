package gigachat

import (
	"net/http"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// The fake's GigaChat endpoints, under its root.
const (
	fakeAPI   = "/gigachat/api/v1"
	fakeOAuth = "/gigachat/api/v2/oauth"
)

// testKey is the authorization key the tests' fakes expect.
const testKey = "Y2xpZW50LWlkOmNsaWVudC1zZWNyZXQ="

// fakeGigaChat is a fake GigaChat on loopback.
type fakeGigaChat struct{ *adaptertest.Upstream }

// startFake serves the fake, optionally through wrap (to watch or bend requests).
func startFake(t *testing.T, opts fake.Options, wrap func(http.Handler) http.Handler) *fakeGigaChat {
	t.Helper()
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	return &fakeGigaChat{adaptertest.StartFake(t, opts, wrap)}
}

func (u *fakeGigaChat) config() shlyuz.UpstreamConfig {
	return shlyuz.UpstreamConfig{
		Name:     "giga",
		Protocol: "gigachat",
		BaseURL:  u.TS.URL + fakeAPI,
		AuthURL:  u.TS.URL + fakeOAuth,
		APIKey:   testKey,
	}
}

func (u *fakeGigaChat) provider(t *testing.T, opts Options, mod func(*shlyuz.UpstreamConfig)) *Provider {
	t.Helper()
	cfg := u.config()
	if mod != nil {
		mod(&cfg)
	}
	p, err := NewWithOptions(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}
