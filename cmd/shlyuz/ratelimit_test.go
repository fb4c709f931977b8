package main

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// TestKeyRateLimits: a key's requests-a-minute and tokens-a-minute limits
// answer 429 rate_limited with Retry-After and X-RateLimit-* headers, charge
// nothing for a refused call, and show in GET /api/v1/key.
func TestKeyRateLimits(t *testing.T) {
	t.Run("requests a minute", func(t *testing.T) {
		_, key := account(t, h.base, 1_000_000, map[string]any{"rate_limit": map[string]any{"requests_per_minute": 3}})
		for i := range 3 {
			resp := postChat(t, h.base, key, chatBody("test/model", false, 0))
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("request %d: %d", i+1, resp.StatusCode)
			}
		}
		before := balance(t, h.base, key).Data.TotalCredits
		resp := postChat(t, h.base, key, chatBody("test/model", false, 0))
		var e apiError
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		reset, _ := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
		if resp.StatusCode != 429 || e.Error.Code != "rate_limited" || retry < 1 || retry > 60 ||
			resp.Header.Get("X-RateLimit-Limit") != "3" || resp.Header.Get("X-RateLimit-Remaining") != "0" ||
			time.UnixMilli(reset).Before(time.Now()) {
			t.Fatalf("the 4th request: %d %s, headers %v", resp.StatusCode, e.Error.Code, resp.Header)
		}
		if after := balance(t, h.base, key).Data.TotalCredits; after != before {
			t.Fatalf("a refused request was charged: %d → %d", before, after)
		}
		var info struct {
			Data struct {
				RateLimit struct {
					RequestsPerMinute int64 `json:"requests_per_minute"`
				} `json:"rate_limit"`
			} `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/v1/key", key, nil, &info); st != 200 || info.Data.RateLimit.RequestsPerMinute != 3 {
			t.Fatalf("GET /api/v1/key: %d %+v", st, info.Data)
		}
	})
	t.Run("tokens a minute", func(t *testing.T) {
		_, key := account(t, h.base, 1_000_000, map[string]any{"rate_limit": map[string]any{"tokens_per_minute": 10}})
		resp := postChat(t, h.base, key, chatBody("test/model", false, 0)) // uses more than 10 tokens
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("first request: %d", resp.StatusCode)
		}
		resp = postChat(t, h.base, key, chatBody("test/model", true, 0))
		resp.Body.Close()
		if resp.StatusCode != 429 || resp.Header.Get("X-RateLimit-Limit") != "10" || resp.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("after the minute's tokens: %d, headers %v", resp.StatusCode, resp.Header)
		}
	})
	t.Run("bad values", func(t *testing.T) {
		accID, _ := account(t, h.base, 0, nil)
		for _, rl := range []any{map[string]any{}, map[string]any{"requests_per_minute": -1}, "fast"} {
			var e apiError
			if st := call(t, h.base, "POST", "/api/admin/accounts/"+accID+"/keys", adminToken, map[string]any{"rate_limit": rl}, &e); st != 400 || e.Error.Param == nil || *e.Error.Param != "rate_limit" {
				t.Errorf("rate_limit %v: %d %+v", rl, st, e.Error)
			}
		}
	})
}
