package bfl

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// A polling_url on the configured host is polled as the upstream is; one
// elsewhere through the guarded client, with the key only on BFL's own hosts
// over https.
func TestPollingURLGetsTheKeyOnlyOnBFLsHosts(t *testing.T) {
	p, err := New(shlyuz.UpstreamConfig{Name: "flux", APIKey: "bfl-key", Headers: map[string]string{"X-Team": "t1"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url          string
		same, hasKey bool
	}{
		{"https://api.bfl.ai/v1/get_result?id=1", true, true},
		{"https://API.BFL.AI/v1/get_result?id=1", true, true},
		{"https://api.eu2.bfl.ai/v1/get_result?id=1", false, true},
		{"https://api.us1.bfl.ai/v1/get_result?id=1", false, true},
		{"https://api.eu.bfl.ai:443/v1/get_result?id=1", false, true},
		{"http://api.eu2.bfl.ai/v1/get_result?id=1", false, false},
		{"https://api.eu2.bfl.ai:8443/v1/get_result?id=1", false, false},
		{"https://x.api.eu.bfl.ai/v1/get_result?id=1", false, false},
		{"https://api.eu.bfl.ai.attacker.example/v1/get_result?id=1", false, false},
		{"https://api.eu.bfl.ai@attacker.example/v1/get_result?id=1", false, false},
		{"https://bfl.ai/v1/get_result?id=1", false, false},
		{"https://api..bfl.ai/v1/get_result?id=1", false, false},
		{"https://attacker.example/v1/get_result?id=1", false, false},
		{"http://169.254.169.254/latest/meta-data", false, false},
	} {
		c := p.poller(tc.url)
		if same := c.HTTP == p.client.HTTP; same != tc.same {
			t.Errorf("%s: on the upstream's own client %v, want %v", tc.url, same, tc.same)
		}
		if got := c.Header.Get("X-Key") == "bfl-key"; got != tc.hasKey {
			t.Errorf("%s: key sent %v, want %v", tc.url, got, tc.hasKey)
		}
		if !tc.same && c.Header.Get("X-Team") != "" {
			t.Errorf("%s: a configured header went off the configured host", tc.url)
		}
	}
}

// A task whose polling_url names another host is polled through the guard: a
// loopback host there is refused at dial time, never sent the key.
func TestPollingURLOffTheHostIsGuarded(t *testing.T) {
	var hits, created atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, `{"status":"Error"}`)
	}))
	defer other.Close()
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/flux-2-pro" || r.Header.Get("X-Key") != "bfl-key" {
			http.Error(w, "unexpected", http.StatusBadRequest)
			return
		}
		created.Add(1)
		_, _ = io.WriteString(w, `{"id":"t1","polling_url":"`+other.URL+`/v1/get_result?id=t1","cost":4.5}`)
	}))
	defer own.Close()
	p, err := New(shlyuz.UpstreamConfig{Name: "flux", BaseURL: own.URL, APIKey: "bfl-key"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = p.GenerateImages(ctx, &shlyuz.ImageRequest{Model: "flux-2-pro", Prompt: "a fox"})
	if created.Load() != 1 {
		t.Fatalf("the task was created %d times, want 1: %v", created.Load(), err)
	}
	if err == nil || hits.Load() != 0 {
		t.Fatalf("a polling_url on a loopback host off the upstream's was fetched (%d requests): %v", hits.Load(), err)
	}
}
