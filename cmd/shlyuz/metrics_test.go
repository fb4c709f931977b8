package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestMetricsAndPprof(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	resp := postChat(t, h.base, key, chatBody("test/model", false, 0))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("chat %d", resp.StatusCode)
	}
	get(t, h.base+"/metrics", "", 401) // the admin token's unless metrics: {public: true}
	body := get(t, h.base+"/metrics", adminToken, 200)
	for _, want := range []string{
		`shlyuz_generations_total{model="test/model",status="completed",stream="false",upstream="fake"}`,
		`shlyuz_http_requests_total{route="/api/v1/chat/completions",status="200"}`,
		`shlyuz_credits_charged_total{model="test/model"}`,
		`shlyuz_tokens_total{kind="completion",model="test/model"}`,
		"shlyuz_added_latency_seconds_bucket", "shlyuz_upstream_duration_seconds_bucket",
		"shlyuz_requests_in_flight", "shlyuz_reserved_credits", "shlyuz_journal_batch_size_bucket",
		"go_memstats_mallocs_total",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	get(t, h.base+"/debug/pprof/", "", 401)
	if b := get(t, h.base+"/debug/pprof/", adminToken, 200); !strings.Contains(b, "goroutine") {
		t.Fatalf("pprof index: %.200s", b)
	}
}

func get(t *testing.T, url, token string, status int) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %.300s", url, resp.StatusCode, status, b)
	}
	return string(b)
}
