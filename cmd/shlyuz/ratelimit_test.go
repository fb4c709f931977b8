package main

import (
	"encoding/json"
	"strconv"
	"sync"
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
	t.Run("tokens a minute under a burst", func(t *testing.T) {
		// 200 concurrent calls against 100 tokens a minute: each is admitted
		// only while the window is under the limit counting the estimates of
		// the calls in flight, so all but one admitted call fit in the limit.
		const limit = 100
		_, key := account(t, h.base, 100_000_000, map[string]any{"rate_limit": map[string]any{"tokens_per_minute": limit}})
		var mu sync.Mutex
		var passed, refused int
		var sum, largest int64
		var wg sync.WaitGroup
		for range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp := postChat(t, h.base, key, chatBody("test/model", false, 16))
				defer resp.Body.Close()
				var out struct {
					Usage struct {
						TotalTokens int64 `json:"total_tokens"`
					} `json:"usage"`
				}
				_ = jsonDecode(resp.Body, &out)
				mu.Lock()
				defer mu.Unlock()
				switch resp.StatusCode {
				case 200:
					passed++
					sum += out.Usage.TotalTokens
					largest = max(largest, out.Usage.TotalTokens)
				case 429:
					refused++
				default:
					t.Errorf("status %d", resp.StatusCode)
				}
			}()
		}
		wg.Wait()
		t.Logf("200 calls against %d tokens a minute: %d passed using %d tokens, %d refused", limit, passed, sum, refused)
		if passed == 0 || passed+refused != 200 || sum-largest >= limit {
			t.Fatalf("%d passed using %d tokens (largest %d), %d refused", passed, sum, largest, refused)
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
