package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Every injected upstream fault reaches the client as a clear error and costs nothing.
func TestUpstreamFaultsCostNothing(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	for _, tc := range []struct {
		model      string
		status     int
		code       string
		retryAfter bool
	}{
		{"faulty/fault-500", 502, "upstream_error", false},
		{"faulty/fault-429", 429, "rate_limited", true},
		{"faulty/fault-quota", 502, "upstream_error", false},
		{"faulty/fault-malformed", 502, "upstream_error", false},
		{"faulty/fault-401", 502, "upstream_error", false},
		{"faulty/fault-cut", 502, "upstream_error", false},
		{"short/fault-hang", 504, "upstream_timeout", false},
	} {
		t.Run(tc.model, func(t *testing.T) {
			before := balance(t, h.base, key).Data
			resp := postChat(t, h.base, key, chatBody(tc.model, false, 0))
			var e apiError
			_ = jsonDecode(resp.Body, &e)
			resp.Body.Close()
			if resp.StatusCode != tc.status || e.Error.Code != tc.code || e.Error.Message == "" ||
				(resp.Header.Get("Retry-After") != "") != tc.retryAfter {
				t.Fatalf("%d %+v Retry-After=%q", resp.StatusCode, e.Error, resp.Header.Get("Retry-After"))
			}
			if strings.Contains(e.Error.Message, h.fakeURL) {
				t.Fatalf("the upstream URL leaked: %s", e.Error.Message)
			}
			after := balance(t, h.base, key).Data
			if after.TotalCredits != before.TotalCredits || after.Reserved != 0 {
				t.Fatalf("charged %d, reserved %d", before.TotalCredits-after.TotalCredits, after.Reserved)
			}
			var g generationView
			if st := call(t, h.base, "GET", "/api/v1/generation?id="+resp.Header.Get("X-Generation-Id"), key, nil, &g); st != 200 || g.Data.Status != "failed" || g.Data.Credits != 0 {
				t.Fatalf("generation %d %+v", st, g.Data)
			}
		})
	}
}

// After the first byte, an upstream failure is one in-band error event with finish_reason "error".
func TestStreamFaultsAfterFirstByte(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	for _, model := range []string{"faulty/fault-cut", "faulty/fault-midstream-error", "faulty/fault-malformed"} {
		t.Run(model, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			resp := postChat(t, h.base, key, chatBody(model, true, 0))
			events := sseEvents(t, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || len(events) < 2 {
				t.Fatalf("%d %q", resp.StatusCode, events)
			}
			var last struct {
				Error *struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
				Choices []struct {
					FinishReason string `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(events[len(events)-1]), &last); err != nil {
				t.Fatal(err)
			}
			if last.Error == nil || last.Error.Code != "upstream_error" || len(last.Choices) != 1 || last.Choices[0].FinishReason != "error" {
				t.Fatalf("last event %s", events[len(events)-1])
			}
			if after := balance(t, h.base, key).Data.TotalCredits; after != before {
				t.Fatalf("a failed stream cost %d", before-after)
			}
		})
	}
}

// A reply without usage from the upstream is never free: plain or streamed,
// it is billed by the gateway's count (the prompt estimate plus the reply's
// tokens), the debit equals usage.credits, and the record says it was estimated.
func TestReplyWithoutUpstreamUsageIsBilled(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			_, key := account(t, h.base, 1_000_000, nil)
			before := balance(t, h.base, key).Data.TotalCredits
			resp := postChat(t, h.base, key, chatBody("faulty/fault-nousage", stream, 0))
			id := resp.Header.Get("X-Generation-Id")
			var reply struct {
				Usage struct {
					PromptTokens     int64 `json:"prompt_tokens"`
					CompletionTokens int64 `json:"completion_tokens"`
					Credits          int64 `json:"credits"`
				} `json:"usage"`
			}
			if stream {
				events := sseEvents(t, resp.Body)
				if len(events) < 2 || json.Unmarshal([]byte(events[len(events)-2]), &reply) != nil {
					t.Fatalf("events %q", events)
				}
			} else if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d, %v", resp.StatusCode, err)
			}
			resp.Body.Close()
			u := reply.Usage
			if u.PromptTokens <= 0 || u.CompletionTokens <= 0 || u.Credits <= 0 {
				t.Fatalf("usage %+v: a reply without upstream usage must be billed", u)
			}
			if spent := before - balance(t, h.base, key).Data.TotalCredits; spent != u.Credits {
				t.Fatalf("debited %d, usage.credits %d", spent, u.Credits)
			}
			var g struct {
				Data struct {
					Credits   int64 `json:"credits"`
					Estimated bool  `json:"usage_estimated"`
				} `json:"data"`
			}
			if st := call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g); st != 200 || !g.Data.Estimated || g.Data.Credits != u.Credits {
				t.Fatalf("generation %d %+v: want usage_estimated and %d credits", st, g.Data, u.Credits)
			}
		})
	}
}

// A client that goes away mid-stream stops the upstream call and pays for what was generated.
func TestStreamCutByClientIsBilledForWhatWasGenerated(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	inflight := h.fake.InFlight()
	g := cutStalledStream(t, key, postChat(t, h.base, key, chatBody("faulty/fault-stall", true, 0)))
	if g.Data.Status != "cancelled" || g.Data.Credits <= 0 || g.Data.TokensCompletion < 1 {
		t.Fatalf("generation %+v", g.Data)
	}
	if want := promptCredits*g.Data.TokensPrompt + completionCredits*g.Data.TokensCompletion; g.Data.Credits != want {
		t.Fatalf("credits %d, want %d", g.Data.Credits, want)
	}
	if b := balance(t, h.base, key).Data; before-b.TotalCredits != g.Data.Credits || b.Reserved != 0 {
		t.Fatalf("debited %d, recorded %d, reserved %d", before-b.TotalCredits, g.Data.Credits, b.Reserved)
	}
	waitFor(t, 10*time.Second, "the upstream call to be cancelled", func() bool { return h.fake.InFlight() <= inflight })
}

// An upstream-wide fault (a 503: the upstream is unavailable, not one model
// of it) opens the upstream's breaker for every model.
func TestBreakerOpensAndRecovers(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	for i := 0; i < 3; i++ {
		resp := postChat(t, h.base, key, chatBody("breaker/fault-503", false, 0))
		resp.Body.Close()
		if resp.StatusCode != 502 {
			t.Fatalf("failure %d: %d", i, resp.StatusCode)
		}
	}
	seen := h.fake.Requests()
	resp := postChat(t, h.base, key, chatBody("breaker/ok", false, 0))
	var e apiError
	_ = jsonDecode(resp.Body, &e)
	resp.Body.Close()
	if resp.StatusCode != 503 || e.Error.Code != "provider_unavailable" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("open breaker: %d %+v", resp.StatusCode, e.Error)
	}
	if h.fake.Requests() != seen {
		t.Fatalf("an open breaker let a request through")
	}
	var ups struct {
		Data []struct {
			Name    string `json:"name"`
			Breaker string `json:"breaker"`
		} `json:"data"`
	}
	call(t, h.base, "GET", "/api/admin/upstreams", adminToken, nil, &ups)
	state := map[string]string{}
	for _, u := range ups.Data {
		state[u.Name] = u.Breaker
	}
	if state["flaky"] != "open" || state["fake"] != "closed" {
		t.Fatalf("breaker states %v", state)
	}
	waitFor(t, 5*time.Second, "the breaker to close again", func() bool {
		resp := postChat(t, h.base, key, chatBody("breaker/ok", false, 0))
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

func TestConcurrencyCapAnswersAtOnce(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	hold := postChat(t, h.base, key, chatBody("tiny/fault-stall", true, 0)) // takes tiny's only slot
	rd := bufio.NewReader(hold.Body)
	if _, err := rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	resp := postChat(t, h.base, key, chatBody("tiny/model", false, 0))
	var e apiError
	_ = jsonDecode(resp.Body, &e)
	resp.Body.Close()
	if resp.StatusCode != 503 || e.Error.Code != "overloaded" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("%d %+v", resp.StatusCode, e.Error)
	}
	hold.Body.Close()
	waitFor(t, 10*time.Second, "the slot to come back", func() bool {
		resp := postChat(t, h.base, key, chatBody("tiny/model", false, 0))
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

func TestFallbacks(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	for _, tc := range []struct {
		name     string
		body     map[string]any
		status   int
		model    string
		attempts int
	}{
		{"route falls back past a dead upstream", chatBody("fallback/model", false, 0), 200, "fallback/model", 2},
		{"provider order without fallbacks", withFields(chatBody("fallback/model", false, 0), "provider", map[string]any{"order": []string{"fake"}, "allow_fallbacks": false}), 200, "fallback/model", 1},
		{"only the dead upstream", withFields(chatBody("fallback/model", false, 0), "provider", map[string]any{"order": []string{"dead"}, "allow_fallbacks": false}), 502, "", 1},
		{"client models list", withFields(chatBody("faulty/fault-500", false, 0), "models", []string{"faulty/fault-500", "test/other"}), 200, "test/other", 2},
		{"models list past a context-length refusal, without provider fallbacks", withFields(chatBody("faulty/fault-400", false, 0),
			"models", []string{"test/other"}, "provider", map[string]any{"allow_fallbacks": false}), 200, "test/other", 2},
		{"a context-length refusal alone", chatBody("faulty/fault-400", false, 0), 400, "", 1},
		{"a single 429 retried after its Retry-After", withFields(chatBody("retry/fault-429-once", false, 0),
			"messages", []map[string]any{{"role": "user", "content": fmt.Sprintf("once %d", time.Now().UnixNano())}}), 200, "retry/fault-429-once", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			resp := postChat(t, h.base, key, tc.body)
			var r chatReply
			_ = jsonDecode(resp.Body, &r)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d", resp.StatusCode)
			}
			var g generationView
			call(t, h.base, "GET", "/api/v1/generation?id="+resp.Header.Get("X-Generation-Id"), key, nil, &g)
			if len(g.Data.Attempts) != tc.attempts {
				t.Fatalf("attempts %+v", g.Data.Attempts)
			}
			if tc.status == 200 {
				if r.Model != tc.model || g.Data.Model != tc.model || before-balance(t, h.base, key).Data.TotalCredits != r.Usage.Credits {
					t.Fatalf("served by %s (%s), credits %d", r.Model, g.Data.Model, r.Usage.Credits)
				}
			}
		})
	}
}

func withFields(b map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		b[kv[i].(string)] = kv[i+1]
	}
	return b
}

var _ = fmt.Sprint
var _ = http.StatusOK

// A model that fails at an upstream pauses that model there, not the
// upstream's other models; the paused model's next request goes straight to
// the route's next upstream (here paused for it too), never to the first.
func TestFailingModelPausesOnlyItself(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	// A model of its own each run: the breakers it trips stay open for an hour.
	failing := fmt.Sprintf("permodel/run%d-fault-500", time.Now().UnixNano())
	if st := call(t, h.base, "POST", "/api/admin/models", adminToken, map[string]any{"id": failing, "name": failing, "context_length": 100000,
		"max_output_tokens": 4096, "input_modalities": []string{"text"}, "output_modalities": []string{"text"},
		"usd": map[string]any{"prompt_usd_per_mtok": "1", "completion_usd_per_mtok": "2"}}, nil); st != 200 && st != 201 {
		t.Fatalf("add %s: %d", failing, st)
	}
	for range 2 { // two 500s at pm-a (and at pm-b, its fallback) trip both breakers for the model
		resp := postChat(t, h.base, key, chatBody(failing, false, 0))
		resp.Body.Close()
		if resp.StatusCode != 502 {
			t.Fatalf("the failing model: %d, want 502", resp.StatusCode)
		}
	}
	var r struct {
		ID string `json:"id"`
	}
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, chatBody("permodel/model", false, 0), &r); st != 200 {
		t.Fatalf("another model of the same upstreams: %d, want 200 (one failing model must not pause the upstream)", st)
	}
	var g generationView
	call(t, h.base, "GET", "/api/v1/generation?id="+r.ID, key, nil, &g)
	if len(g.Data.Attempts) != 1 || g.Data.Attempts[0].Upstream != "pm-a" || g.Data.Attempts[0].Status != 200 {
		t.Fatalf("attempts %+v, want pm-a at once", g.Data.Attempts)
	}

	before := h.fake.Requests()
	resp := postChat(t, h.base, key, chatBody(failing, false, 0))
	id := resp.Header.Get("X-Generation-Id")
	resp.Body.Close()
	if resp.StatusCode != 503 || h.fake.Requests() != before {
		t.Fatalf("the paused model: %d and %d upstream calls, want 503 and none", resp.StatusCode, h.fake.Requests()-before)
	}
	call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g)
	if len(g.Data.Attempts) != 2 || g.Data.Attempts[0].Status != 503 || g.Data.Attempts[1].Upstream != "pm-b" {
		t.Fatalf("attempts %+v, want pm-a paused, then pm-b", g.Data.Attempts)
	}
}

// cutStalledStream reads the first chunks of a stream of the stall fault
// (a few chunks, then nothing), hangs up as a client that goes away, and
// returns the generation once it has settled.
func cutStalledStream(t *testing.T, key string, resp *http.Response) generationView {
	t.Helper()
	id := resp.Header.Get("X-Generation-Id")
	rd := bufio.NewReader(resp.Body)
	for chunks := 0; chunks < 2; {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "data: ") {
			chunks++
		}
	}
	resp.Body.Close()
	var g generationView
	waitFor(t, 10*time.Second, "the cut stream to settle", func() bool {
		return call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g) == 200
	})
	return g
}
