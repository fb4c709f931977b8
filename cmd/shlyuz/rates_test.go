package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestExchangeRateFromCBR: the updater follows a local server with the Central Bank's real feed format,
// reprices the catalog, records every change, and stays off a rate the operator pinned.
func TestExchangeRateFromCBR(t *testing.T) {
	feed, err := os.ReadFile("../../rates/cbr/testdata/XML_daily.asp")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write(feed)
	}))
	defer srv.Close()
	base, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rates.yaml")
	if err := os.WriteFile(cfg, append(base, []byte("\nexchange_rate: {source: cbr, url: \""+srv.URL+"\", interval: 20ms}\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChildWith(t, "sqlite://"+filepath.Join(dir, "rates.db"), cfg, "SHLYUZ_ADMIN_TOKEN="+adminToken)
	rate := func() string {
		var p struct{ Rate json.Number }
		call(t, c.base, "GET", "/api/pricing", "", nil, &p)
		return p.Rate.String()
	}
	// test/model costs $1 a million prompt tokens: credits_per_1k = 0.001 × rate × K (1) × 100,000.
	price := func() float64 {
		var ms struct {
			Data []struct {
				ID     string
				Prompt json.Number `json:"credits_per_1k_prompt"`
			}
		}
		call(t, c.base, "GET", "/api/models", "", nil, &ms)
		for _, m := range ms.Data {
			if m.ID == "test/model" {
				f, _ := strconv.ParseFloat(strings.Trim(m.Prompt.String(), `"`), 64)
				return f
			}
		}
		t.Fatal("test/model is not listed")
		return 0
	}
	waitFor(t, 20*time.Second, "the feed's rate", func() bool { return rate() == "81.5075" })
	if p := price(); p != 8150.75 {
		t.Fatalf("at the feed's rate test/model costs %v credits per 1k prompt tokens; want 8150.75", p)
	}

	if st := call(t, c.base, "PUT", "/api/admin/pricing", adminToken, map[string]any{"rate": "100"}, nil); st != 200 {
		t.Fatalf("pin: %d", st)
	}
	after := hits.Load()
	waitFor(t, 20*time.Second, "two more fetches of the feed", func() bool { return hits.Load() >= after+2 })
	if r, p := rate(), price(); r != "100" || p != 10000 {
		t.Fatalf("the pinned rate moved to %s (test/model %v credits per 1k)", r, p)
	}
	if st := call(t, c.base, "PUT", "/api/admin/pricing", adminToken, map[string]any{"pinned": false}, nil); st != 200 {
		t.Fatalf("unpin: %d", st)
	}
	waitFor(t, 20*time.Second, "the feed's rate again", func() bool { return rate() == "81.5075" })

	var hist struct {
		Data []struct {
			By       string
			At       time.Time
			Old, New json.Number
		}
	}
	if st := call(t, c.base, "GET", "/api/admin/pricing/history", adminToken, nil, &hist); st != 200 || len(hist.Data) != 4 {
		t.Fatalf("history: %d %+v", st, hist)
	}
	want := []struct{ by, old, new string }{{"cbr", "100", "81.5075"}, {"unpin", "100", "100"}, {"operator", "81.5075", "100"}, {"cbr", "100", "81.5075"}}
	for i, w := range want {
		if g := hist.Data[i]; g.By != w.by || g.Old.String() != w.old || g.New.String() != w.new || g.At.IsZero() || g.At.After(time.Now()) {
			t.Errorf("history[%d] = %+v; want %+v", i, g, w)
		}
	}
}
