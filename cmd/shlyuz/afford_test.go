package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// upstreamAsks collects what the fake upstream received of the requests
// whose body holds marker, until the test ends.
func upstreamAsks(t *testing.T, marker string) (asks func() [][]byte) {
	var mu sync.Mutex
	var got [][]byte
	see := func(_ *http.Request, body []byte) {
		if bytes.Contains(body, []byte(marker)) {
			mu.Lock()
			got = append(got, bytes.Clone(body))
			mu.Unlock()
		}
	}
	onFakeRequest.Store(&see)
	t.Cleanup(func() { onFakeRequest.Store(nil) })
	return func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// sentCap is the completion cap in a request as the fake upstream got it,
// in each protocol's own member, and Anthropic's thinking budget (0: none).
func sentCap(t *testing.T, body []byte) (capTokens, budget int64) {
	t.Helper()
	var b struct {
		MaxTokens           int64 `json:"max_tokens"`
		MaxCompletionTokens int64 `json:"max_completion_tokens"`
		Thinking            *struct {
			BudgetTokens int64 `json:"budget_tokens"`
		} `json:"thinking"`
		GenerationConfig *struct {
			MaxOutputTokens int64 `json:"maxOutputTokens"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	capTokens = max(b.MaxTokens, b.MaxCompletionTokens)
	if b.GenerationConfig != nil {
		capTokens = max(capTokens, b.GenerationConfig.MaxOutputTokens)
	}
	if b.Thinking != nil {
		budget = b.Thinking.BudgetTokens
	}
	return capTokens, budget
}

// budgeted makes a key whose budget is the balance, or, with ceiling, the
// key's monthly limit on an ample balance; its calls are told by a fresh
// marker whose upstream requests asks collects; before is its balance.
func budgeted(t *testing.T, budget int64, ceiling bool, prefix string) (key, marker string, asks func() [][]byte, before int64) {
	t.Helper()
	credits, keyBody := budget, map[string]any(nil)
	if ceiling {
		credits, keyBody = 100_000_000, map[string]any{"name": "capped", "limit": budget, "limit_reset": "month"}
	}
	_, key = account(t, h.base, credits, keyBody)
	marker = fmt.Sprintf("%s-%d", prefix, counter.Add(1))
	asks = upstreamAsks(t, marker)
	before = balance(t, h.base, key).Data.TotalCredits
	return key, marker, asks, before
}

// A cap the client set above what its key's ceiling or its balance affords
// is lowered to what they afford, reserved and sent upstream in each
// protocol's member, told in X-Shlyuz-Max-Tokens and noted on the
// generation; below the floor (the client's cap or 1,024 tokens, whichever
// is less) the call is refused as before, and nothing goes upstream.
//
// The test models cost 2 USD a million completion tokens, 20 credits a
// token at the test rate (100 ₽, K 1), and 10 credits a prompt token: 40,000
// credits afford 2,000 completion tokens less the short prompt's share
// (under 25 tokens' worth here), so the lowered cap is within [1,975, 2,000].
func TestUnaffordableCapIsLowered(t *testing.T) {
	const (
		budget   = 40_000
		highest  = budget / completionCredits // nothing left for the prompt
		lowest   = highest - 25               // a prompt of up to 50 tokens
		asked    = 4000                       // the test models' output limit is 4,096
		thinking = 3000                       // Anthropic's budget, not below the lowered cap
	)
	type ask struct {
		path    string
		body    func(marker string) map[string]any
		headers func(key string) map[string]string
	}
	bearer := func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }
	chat := ask{"/api/v1/chat/completions", func(m string) map[string]any {
		return map[string]any{"model": "test/model", "max_tokens": asked, "messages": []map[string]any{{"role": "user", "content": "Say hi. " + m}}}
	}, bearer}
	chatNew := ask{"/api/v1/chat/completions", func(m string) map[string]any {
		return map[string]any{"model": "test/model", "max_completion_tokens": asked, "stream": true,
			"messages": []map[string]any{{"role": "user", "content": "Say hi. " + m}}}
	}, bearer}
	messages := func(model string, stream bool) ask {
		return ask{"/api/v1/messages", func(m string) map[string]any {
			return map[string]any{"model": model, "max_tokens": asked, "stream": stream,
				"thinking": map[string]any{"type": "enabled", "budget_tokens": thinking},
				"messages": []map[string]any{{"role": "user", "content": "Say hi. " + m}}}
		}, func(key string) map[string]string {
			return map[string]string{"X-Api-Key": key, "Anthropic-Version": "2023-06-01"}
		}}
	}
	chatThinks := ask{"/api/v1/chat/completions", func(m string) map[string]any {
		return map[string]any{"model": "claude/model", "max_tokens": asked, "reasoning": map[string]any{"max_tokens": thinking},
			"messages": []map[string]any{{"role": "user", "content": "Say hi. " + m}}}
	}, bearer}
	responses := ask{"/api/v1/responses", func(m string) map[string]any {
		return map[string]any{"model": "test/model", "max_output_tokens": asked, "input": "Say hi. " + m}
	}, bearer}
	gemini := ask{"/api/v1/v1beta/models/gemini-2.5-flash:generateContent", func(m string) map[string]any {
		return map[string]any{"contents": []map[string]any{{"role": "user", "parts": []map[string]any{{"text": "Say hi. " + m}}}},
			"generationConfig": map[string]any{"maxOutputTokens": asked}}
	}, func(key string) map[string]string { return map[string]string{"X-Goog-Api-Key": key} }}

	for _, tc := range []struct {
		name    string
		ask     ask
		ceiling bool // the key's ceiling is the budget; else the balance is
		// thinks: Anthropic's budget must come below the lowered cap.
		thinks bool
	}{
		{"chat, balance", chat, false, false},
		{"chat, key ceiling", chat, true, false},
		{"chat max_completion_tokens streamed, balance", chatNew, false, false},
		{"chat to Anthropic with reasoning, key ceiling", chatThinks, true, true},
		{"messages to Anthropic with thinking, balance", messages("claude/model", false), false, true},
		{"messages to Anthropic with thinking streamed, key ceiling", messages("claude/model", true), true, true},
		{"messages translated, balance", messages("test/model", false), false, false},
		{"responses, key ceiling", responses, true, false},
		{"gemini, balance", gemini, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, marker, asks, before := budgeted(t, budget, tc.ceiling, "lowered")
			resp, out := postWith(t, tc.ask.path, tc.ask.body(marker), tc.ask.headers(key))
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, out)
			}
			sent := asks()
			if len(sent) != 1 {
				t.Fatalf("the upstream got %d requests", len(sent))
			}
			capSent, thinkingSent := sentCap(t, sent[0])
			if capSent < lowest || capSent > highest {
				t.Fatalf("the upstream was asked for %d tokens, want within [%d, %d]", capSent, lowest, highest)
			}
			if told, _ := strconv.ParseInt(resp.Header.Get("X-Shlyuz-Max-Tokens"), 10, 64); told != capSent {
				t.Fatalf("X-Shlyuz-Max-Tokens %q, the upstream was sent %d", resp.Header.Get("X-Shlyuz-Max-Tokens"), capSent)
			}
			if tc.thinks && thinkingSent != capSent-1 {
				t.Fatalf("thinking budget %d sent with max_tokens %d, want %d", thinkingSent, capSent, capSent-1)
			}
			id := resp.Header.Get("X-Generation-Id")
			var g struct {
				Data struct {
					Credits int64  `json:"credits"`
					Note    string `json:"note"`
				} `json:"data"`
			}
			waitFor(t, 10*time.Second, "the generation record", func() bool {
				return call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g) == 200
			})
			if want := fmt.Sprintf("from %d to %d", asked, capSent); !strings.Contains(g.Data.Note, want) {
				t.Fatalf("generation note %q, want it to say %q", g.Data.Note, want)
			}
			after := balance(t, h.base, key).Data
			if spent := before - after.TotalCredits; spent != g.Data.Credits || spent <= 0 || spent > budget || after.Reserved != 0 {
				t.Fatalf("spent %d of %d, generation says %d, reserved %d", spent, budget, g.Data.Credits, after.Reserved)
			}
		})
	}
}

// Below the floor the call is refused as before: 402 for the balance, 403
// for the key's ceiling (402 billing_error on /messages, as Anthropic says
// it), naming what it affords; nothing goes upstream. 15,000 credits afford
// under 750 completion tokens of a test model.
func TestCapBelowTheFloorIsRefused(t *testing.T) {
	const budget = 15_000
	for _, tc := range []struct {
		name      string
		path      string
		maxTokens int
		ceiling   bool
		status    int
		code      string
	}{
		{"chat 4000, balance", "/api/v1/chat/completions", 4000, false, 402, "insufficient_credits"},
		{"chat 1000, balance", "/api/v1/chat/completions", 1000, false, 402, "insufficient_credits"},
		{"chat 4000, key ceiling", "/api/v1/chat/completions", 4000, true, 403, "key_limit_exceeded"},
		{"messages 4000, balance", "/api/v1/messages", 4000, false, 402, "billing_error"},
		{"messages 4000, key ceiling", "/api/v1/messages", 4000, true, 402, "billing_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, marker, asks, before := budgeted(t, budget, tc.ceiling, "floor")
			body := map[string]any{"model": "test/model", "max_tokens": tc.maxTokens,
				"messages": []map[string]any{{"role": "user", "content": "Say hi. " + marker}}}
			resp, out := postWith(t, tc.path, body, map[string]string{"Authorization": "Bearer " + key, "Anthropic-Version": "2023-06-01"})
			var e struct {
				Error struct {
					Type    string `json:"type"`
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			_ = json.Unmarshal(out, &e)
			got := e.Error.Code
			if tc.path == "/api/v1/messages" {
				got = e.Error.Type
			}
			if resp.StatusCode != tc.status || got != tc.code || !strings.Contains(e.Error.Message, "affords") {
				t.Fatalf("%d %s", resp.StatusCode, out)
			}
			if n := len(asks()); n != 0 {
				t.Fatalf("a refused call reached the upstream %d times", n)
			}
			if after := balance(t, h.base, key).Data.TotalCredits; after != before {
				t.Fatalf("a refusal cost %d credits", before-after)
			}
		})
	}
}
