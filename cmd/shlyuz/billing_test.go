package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz/providers/fake"
)

// billingTestModels are priced at their makers' list prices, one per
// protocol, routed to the fake speaking that protocol (see testConfig).
const billingTestModels = `  - {id: "bill/gpt-4o-mini", name: "GPT-4o mini", context_length: 128000, max_output_tokens: 16384, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "0.15", completion_usd_per_mtok: "0.6", cache_read_per_mtok: "0.075"}}
  - {id: "claude/sonnet-4.5", name: "Claude Sonnet 4.5", context_length: 200000, max_output_tokens: 64000, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "3", completion_usd_per_mtok: "15", cache_read_per_mtok: "0.3", cache_write_per_mtok: "3.75", cache_write_1h_per_mtok: "6"}}
  - {id: "gemini/2.5-pro", name: "Gemini 2.5 Pro", context_length: 1048576, max_output_tokens: 65535, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "1.25", completion_usd_per_mtok: "10", cache_read_per_mtok: "0.125"}}
  - {id: "giga/GigaChat-2-Max", name: "GigaChat 2 Max", context_length: 131072, max_output_tokens: 8192, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "0", completion_usd_per_mtok: "0"}, rub: {prompt_rub_per_mtok: "1950", completion_rub_per_mtok: "1950", cache_read_per_mtok: "0"}}
  - {id: "openai/o3", name: "o3", context_length: 200000, max_output_tokens: 100000, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "2", completion_usd_per_mtok: "8", cache_read_per_mtok: "0.5"}}
  - {id: "openai/gpt-5", name: "GPT-5", context_length: 400000, max_output_tokens: 128000, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "1.25", completion_usd_per_mtok: "10", cache_read_per_mtok: "0.125"}}
  - {id: "yagpt/yandexgpt-pro", name: "YandexGPT Pro", context_length: 32768, max_output_tokens: 8000, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "0", completion_usd_per_mtok: "0"}, rub: {prompt_rub_per_mtok: "1200", completion_rub_per_mtok: "1200"}}
`

// listPrice is a model's list price per million tokens, written here from
// the sources (not read from the gateway): "" parts are not priced apart.
type listPrice struct {
	currency                              string // USD or RUB
	input, cached, write, write1h, output string
}

var billingPrices = map[string]listPrice{
	// ../shared/data/litellm-model-prices.json "gpt-4o-mini" (line 22648):
	// input_cost_per_token 1.5e-07, cache_read_input_token_cost 7.5e-08, output_cost_per_token 6e-07.
	"bill/gpt-4o-mini": {currency: "USD", input: "0.15", cached: "0.075", output: "0.6"},
	// ../shared/data/litellm-model-prices.json "claude-sonnet-4-5" (line 11610): input 3e-06,
	// cache_read 3e-07, cache_creation 3.75e-06, cache_creation above_1hr 6e-06, output 1.5e-05.
	"claude/sonnet-4.5": {currency: "USD", input: "3", cached: "0.3", write: "3.75", write1h: "6", output: "15"},
	// ../shared/data/litellm-model-prices.json "gemini-2.5-pro" (line 18293): input 1.25e-06,
	// cache_read 1.25e-07, output 1e-05 (at most 200k prompt tokens).
	"gemini/2.5-pro": {currency: "USD", input: "1.25", cached: "0.125", output: "10"},
	// ../shared/data/litellm-model-prices.json "o3" (line 29186): input 2e-06, cache_read 5e-07, output 8e-06.
	"openai/o3": {currency: "USD", input: "2", cached: "0.5", output: "8"},
	// ../shared/data/litellm-model-prices.json "gpt-5" (line 23344): input 1.25e-06, cache_read 1.25e-07, output 1e-05.
	"openai/gpt-5": {currency: "USD", input: "1.25", cached: "0.125", output: "10"},
	// Sber's pay-as-you-go list (cmd/catalogen russianModels): GigaChat 2 Max 1,950 ₽ per million
	// tokens; precached tokens are not billed.
	"giga/GigaChat-2-Max": {currency: "RUB", input: "1950", cached: "0", output: "1950"},
	// Yandex Cloud's list (cmd/catalogen russianModels): YandexGPT Pro 1,200 ₽ per million tokens.
	"yagpt/yandexgpt-pro": {currency: "RUB", input: "1200", output: "1200"},
}

// reported is the usage the fake reports, as the test knows it.
type reported struct {
	fresh, cached, write, write1h, words, reasoning int64
}

// credits is the list price of the usage at the test's pricing (rate 100,
// K 1): a USD is 100 rubles, a ruble 100,000 credits; rounded up once.
func (lp listPrice) credits(u reported) int64 {
	perM := func(s, fallback string) *big.Rat {
		if s == "" {
			s = fallback
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			panic(s)
		}
		return r
	}
	sum := new(big.Rat)
	add := func(tokens int64, price *big.Rat) {
		sum.Add(sum, new(big.Rat).Mul(big.NewRat(tokens, 1), price))
	}
	add(u.fresh, perM(lp.input, ""))
	add(u.cached, perM(lp.cached, lp.input))
	add(u.write, perM(lp.write, lp.input))
	add(u.write1h, perM(lp.write1h, perM(lp.write, lp.input).RatString()))
	add(u.words+u.reasoning, perM(lp.output, ""))
	rub := big.NewRat(1, 1)
	if lp.currency == "USD" {
		rub = big.NewRat(100, 1)
	}
	c := sum.Mul(sum, rub).Mul(sum, big.NewRat(100_000, 1_000_000))
	q := new(big.Int).Quo(c.Num(), c.Denom())
	if new(big.Rat).SetInt(q).Cmp(c) < 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

type billedUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	Credits        int64            `json:"credits"`
	CreditsDetails map[string]int64 `json:"credits_details"`
}

type billingCase struct {
	model  string
	marker reported // cached, write, write1h, reasoning asked of the fake
	n      int
	// reasoningReported: the protocol reports reasoning apart (Anthropic
	// counts thinking in its output tokens and says no more).
	reasoningReported bool
}

// TestUsageCreditsAreTheListPrice sends, for each of the five protocols, plain,
// cached, cache-writing, reasoning and n-choice requests, streamed and not, and
// checks usage.credits against the list price of the usage the fake reported.
func TestUsageCreditsAreTheListPrice(t *testing.T) {
	cases := map[string]billingCase{
		"openai plain":          {model: "bill/gpt-4o-mini"},
		"openai cached":         {model: "bill/gpt-4o-mini", marker: reported{cached: 96}},
		"openai reasoning":      {model: "bill/gpt-4o-mini", marker: reported{reasoning: 30}, reasoningReported: true},
		"openai n=3":            {model: "bill/gpt-4o-mini", marker: reported{cached: 16}, n: 3},
		"anthropic plain":       {model: "claude/sonnet-4.5"},
		"anthropic cached":      {model: "claude/sonnet-4.5", marker: reported{cached: 500}},
		"anthropic cache write": {model: "claude/sonnet-4.5", marker: reported{cached: 200, write: 301, write1h: 100}},
		"anthropic reasoning":   {model: "claude/sonnet-4.5", marker: reported{reasoning: 40}},
		"gemini plain":          {model: "gemini/2.5-pro"},
		"gemini cached":         {model: "gemini/2.5-pro", marker: reported{cached: 64}},
		"gemini reasoning":      {model: "gemini/2.5-pro", marker: reported{reasoning: 25}, reasoningReported: true},
		"gemini n=3":            {model: "gemini/2.5-pro", marker: reported{cached: 24, reasoning: 10}, n: 3, reasoningReported: true},
		"gigachat plain":        {model: "giga/GigaChat-2-Max"},
		"gigachat cached":       {model: "giga/GigaChat-2-Max", marker: reported{cached: 40}},
		"gigachat n=3":          {model: "giga/GigaChat-2-Max", marker: reported{cached: 8}, n: 3},
		"o3 reasoning":          {model: "openai/o3", marker: reported{cached: 32, reasoning: 200}, reasoningReported: true},
		"gpt-5 reasoning":       {model: "openai/gpt-5", marker: reported{reasoning: 64}, reasoningReported: true},
		"yandex plain":          {model: "yagpt/yandexgpt-pro"},
		"yandex reasoning":      {model: "yagpt/yandexgpt-pro", marker: reported{reasoning: 12}, reasoningReported: true},
	}
	for name, tc := range cases {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream=%v", name, stream), func(t *testing.T) {
				t.Parallel()
				checkListPrice(t, tc, stream)
			})
		}
	}
}

func checkListPrice(t *testing.T, tc billingCase, stream bool) {
	_, key := account(t, h.base, 10_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	m := tc.marker
	text := "Please say something short about prices."
	if m != (reported{}) {
		text += fmt.Sprintf(" %s cached=%d write=%d write1h=%d reasoning=%d]]", fake.UsageMarker, m.cached, m.write, m.write1h, m.reasoning)
	}
	body := map[string]any{"model": tc.model, "messages": []map[string]any{{"role": "user", "content": text}}}
	if stream {
		body["stream"] = true
	}
	n := max(tc.n, 1)
	if tc.n > 0 {
		body["n"] = tc.n
	}
	resp := postChat(t, h.base, key, body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var u billedUsage
	choices := map[int]bool{}
	if stream {
		events := sseEvents(t, resp.Body)
		if len(events) < 2 || events[len(events)-1] != "[DONE]" {
			t.Fatalf("events %q", events)
		}
		for _, e := range events[:len(events)-2] {
			var c struct {
				Choices []struct{ Index int } `json:"choices"`
			}
			if err := json.Unmarshal([]byte(e), &c); err != nil {
				t.Fatalf("chunk %s: %v", e, err)
			}
			for _, ch := range c.Choices {
				choices[ch.Index] = true
			}
		}
		var last struct{ Usage billedUsage }
		if err := json.Unmarshal([]byte(events[len(events)-2]), &last); err != nil {
			t.Fatal(err)
		}
		u = last.Usage
	} else {
		var r struct {
			Choices []struct{ Index int } `json:"choices"`
			Usage   billedUsage           `json:"usage"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		for _, ch := range r.Choices {
			choices[ch.Index] = true
		}
		u = r.Usage
	}
	if len(choices) != n {
		t.Errorf("%d choices, want %d", len(choices), n)
	}
	// What the fake reported: its fresh prompt is the text's characters / 4,
	// its reply 8 words per choice.
	m.fresh = int64(fake.Prompt{Chars: utf8.RuneCountInString(text)}.Tokens())
	m.words = 8 * int64(n)
	if want := m.fresh + m.cached + m.write + m.write1h; u.PromptTokens != want {
		t.Errorf("prompt_tokens %d, want %d", u.PromptTokens, want)
	}
	if want := m.words + m.reasoning; u.CompletionTokens != want {
		t.Errorf("completion_tokens %d, want %d", u.CompletionTokens, want)
	}
	if u.PromptTokensDetails.CachedTokens != m.cached || u.PromptTokensDetails.CacheWriteTokens != m.write+m.write1h {
		t.Errorf("prompt_tokens_details %+v, want cached %d, written %d", u.PromptTokensDetails, m.cached, m.write+m.write1h)
	}
	if want := m.reasoning; tc.reasoningReported && u.CompletionTokensDetails.ReasoningTokens != want {
		t.Errorf("reasoning_tokens %d, want %d", u.CompletionTokensDetails.ReasoningTokens, want)
	}
	want := billingPrices[tc.model].credits(m)
	if u.Credits != want {
		t.Errorf("usage.credits %d, want the list price %d (usage %+v)", u.Credits, want, m)
	}
	var sum int64
	for _, v := range u.CreditsDetails {
		sum += v
	}
	if sum != u.Credits {
		t.Errorf("credits_details %v sum to %d, not %d", u.CreditsDetails, sum, u.Credits)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; before-after != u.Credits {
		t.Errorf("debited %d, usage.credits %d", before-after, u.Credits)
	}
	var g struct {
		Data struct {
			Credits        int64            `json:"credits"`
			CreditsDetails map[string]int64 `json:"credits_details"`
			OverReserved   bool             `json:"over_reserved"`
			Prompt         struct {
				CachedTokens int64 `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"data"`
	}
	id := resp.Header.Get("X-Generation-Id")
	if st := call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g); st != 200 {
		t.Fatalf("generation %d", st)
	}
	if g.Data.OverReserved {
		t.Error("the reservation was below the list price")
	}
	if g.Data.Credits != u.Credits || fmt.Sprint(g.Data.CreditsDetails) != fmt.Sprint(u.CreditsDetails) || g.Data.Prompt.CachedTokens != m.cached {
		t.Errorf("generation %+v, reply's usage %+v", g.Data, u)
	}
}

// TestOverReportedUsageIsChargedInFull: an upstream that reports more than
// the reservation allowed (reasoning past max_tokens) is charged its list
// price in full, past the hold, so the operator never pays for it: the
// balance goes below zero, the generation says over_reserved, /metrics
// counts it, and the account grants nothing more (402) until a top-up
// brings it back above zero.
func TestOverReportedUsageIsChargedInFull(t *testing.T) {
	acct, key := account(t, h.base, 300_000, nil)
	text := "Think hard. " + fake.UsageMarker + " reasoning=100000]]"
	resp := postChat(t, h.base, key, map[string]any{"model": "bill/gpt-4o-mini", "max_tokens": 5,
		"messages": []map[string]any{{"role": "user", "content": text}}})
	defer resp.Body.Close()
	var r struct{ Usage billedUsage }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	m := reported{fresh: int64(fake.Prompt{Chars: utf8.RuneCountInString(text)}.Tokens()), words: 5, reasoning: 100_000}
	list := billingPrices["bill/gpt-4o-mini"].credits(m)
	if r.Usage.Credits != list || list <= 300_000 {
		t.Fatalf("charged %d, want the list price %d (above the balance of 300,000)", r.Usage.Credits, list)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; after != 300_000-list {
		t.Errorf("balance %d, want %d: the full price debited past the hold", after, 300_000-list)
	}
	var g struct {
		Data struct {
			Credits      int64 `json:"credits"`
			OverReserved bool  `json:"over_reserved"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/v1/generation?id="+resp.Header.Get("X-Generation-Id"), key, nil, &g); st != 200 || !g.Data.OverReserved || g.Data.Credits != list {
		t.Errorf("generation %d %+v", st, g.Data)
	}
	if body := get(t, h.base+"/metrics", adminToken, 200); !strings.Contains(body, `shlyuz_over_reserved_total{model="bill/gpt-4o-mini",upstream="fake"}`) {
		t.Error("/metrics does not count the over-reported call")
	}
	small := map[string]any{"model": "bill/gpt-4o-mini", "max_tokens": 5, "messages": []map[string]any{{"role": "user", "content": "Hi"}}}
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, small, nil); st != 402 {
		t.Fatalf("a request on a balance below zero: %d, want 402", st)
	}
	if st := call(t, h.base, "POST", "/api/admin/accounts/"+acct+"/topups", adminToken,
		map[string]any{"credits": 1_000_000, "idempotency_key": "over-" + acct}, nil); st != 200 {
		t.Fatalf("top up: %d", st)
	}
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, small, nil); st != 200 {
		t.Fatalf("after the top-up: %d, want 200", st)
	}
}
