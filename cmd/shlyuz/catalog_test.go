package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

type catalogEntry struct {
	ID                     string      `json:"id"`
	ContextLength          int64       `json:"context_length"`
	MaxOutputTokens        int64       `json:"max_output_tokens"`
	OutputModalities       []string    `json:"output_modalities"`
	CreditsPer1KPrompt     json.Number `json:"credits_per_1k_prompt"`
	CreditsPer1KCompletion json.Number `json:"credits_per_1k_completion"`
	Parts                  *struct {
		CacheRead    json.Number `json:"cache_read"`
		CacheWrite   json.Number `json:"cache_write"`
		CacheWrite1h json.Number `json:"cache_write_1h"`
		LongContext  *struct {
			AbovePromptTokens  int64       `json:"above_prompt_tokens"`
			CreditsPer1KPrompt json.Number `json:"credits_per_1k_prompt"`
		} `json:"long_context"`
	} `json:"credits_per_1k_parts"`
	VideoPricing *struct {
		CreditsPerSecond int64 `json:"credits_per_second"`
	} `json:"video_pricing"`
	ImagePricing         any `json:"image_pricing"`
	SpeechPricing        any `json:"speech_pricing"`
	TranscriptionPricing any `json:"transcription_pricing"`
}

// TestCatalogTellsTheTruth checks the catalog over GET /api/models and
// GET /api/v1/models against list prices written here from the data files
// (at the tests' rate 100 and K 1, a USD per million tokens is 10,000 credits
// per 1,000 tokens, a USD a second 10,000,000 credits).
func TestCatalogTellsTheTruth(t *testing.T) {
	var pub struct{ Data []catalogEntry }
	if st := call(t, h.base, "GET", "/api/models", "", nil, &pub); st != 200 {
		t.Fatalf("/api/models: %d", st)
	}
	byID := map[string]catalogEntry{}
	for _, m := range pub.Data {
		byID[m.ID] = m
		text := slices.Contains(m.OutputModalities, "text")
		if text && (m.ContextLength <= 0 || m.MaxOutputTokens <= 0) {
			t.Errorf("%s: a text model with context %d, output limit %d", m.ID, m.ContextLength, m.MaxOutputTokens)
		}
		unpriced := m.CreditsPer1KPrompt == "0" && m.CreditsPer1KCompletion == "0"
		if unpriced && m.VideoPricing == nil && m.ImagePricing == nil && m.SpeechPricing == nil && m.TranscriptionPricing == nil {
			t.Errorf("%s: priced in no unit", m.ID)
		}
	}
	expect := func(id, what string, got json.Number, want string) {
		t.Helper()
		if string(got) != want {
			t.Errorf("%s %s = %q, want %q", id, what, got, want)
		}
	}
	// ../shared/data/genai-prices.json, provider "deepseek", deepseek-chat standard hours:
	// input 0.27, cache read 0.07, output 1.1 USD per million tokens (not a reseller's 0.38/0.89).
	ds := byID["deepseek/deepseek-chat"]
	expect(ds.ID, "prompt", ds.CreditsPer1KPrompt, "2700")
	expect(ds.ID, "completion", ds.CreditsPer1KCompletion, "11000")
	if ds.Parts == nil {
		t.Fatalf("deepseek/deepseek-chat has no cache price")
	}
	expect(ds.ID, "cache read", ds.Parts.CacheRead, "700")
	// litellm-model-prices.json "claude-sonnet-4-5": cache read 0.3, write 3.75, 1 h write 6,
	// above 200k tokens input 6 USD per million tokens.
	cs := byID["anthropic/claude-sonnet-4.5"]
	if cs.Parts == nil || cs.Parts.LongContext == nil {
		t.Fatalf("claude-sonnet-4.5 parts %+v", cs.Parts)
	}
	expect(cs.ID, "cache read", cs.Parts.CacheRead, "3000")
	expect(cs.ID, "cache write", cs.Parts.CacheWrite, "37500")
	expect(cs.ID, "cache write 1h", cs.Parts.CacheWrite1h, "60000")
	expect(cs.ID, "long-context prompt", cs.Parts.LongContext.CreditsPer1KPrompt, "60000")
	if cs.Parts.LongContext.AbovePromptTokens != 200_000 {
		t.Errorf("claude-sonnet-4.5 long context above %d", cs.Parts.LongContext.AbovePromptTokens)
	}
	// litellm-model-prices.json: openai/sora-2 0.1, openai/sora-2-pro 0.3, gemini/veo-3.1-generate-001 0.4,
	// gemini/veo-3.1-fast-generate-001 0.15 USD a second.
	for id, want := range map[string]int64{"openai/sora-2": 1_000_000, "openai/sora-2-pro": 3_000_000, "google/veo-3.1": 4_000_000,
		"google/veo-3.1-fast": 1_500_000, "kwaivgi/kling-v2.1": 500_000, "minimax/hailuo-02": 450_000} {
		if v := byID[id].VideoPricing; v == nil || v.CreditsPerSecond != want {
			t.Errorf("%s video pricing %+v, want %d credits a second", id, v, want)
		}
	}
	// litellm-model-prices.json "text-embedding-3-small": 2e-08 USD a token.
	em := byID["openai/text-embedding-3-small"]
	if !slices.Equal(em.OutputModalities, []string{"embeddings"}) || em.CreditsPer1KPrompt != "200" || em.ContextLength != 8191 {
		t.Errorf("embedding model %+v", em)
	}

	// The operator's guide's count is the embedded catalog's.
	readme, err := os.ReadFile("../../docs/operating.md")
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := shlyuz.EmbeddedModels()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`catalog.json` \\(embedded in the binary\\) holds ([0-9]+) models").FindSubmatch(readme)
	if m == nil || string(m[1]) != strconv.Itoa(len(embedded)) {
		t.Errorf("docs/operating.md's count %q, the catalog holds %d", m, len(embedded))
	}

	// Every /api/v1/models record is valid against OpenAI's Model schema
	// (id, object "model", created, owned_by required).
	_, key := account(t, h.base, 0, nil)
	var v1 struct {
		Data []struct {
			ID                  string   `json:"id"`
			Object              string   `json:"object"`
			Created             int64    `json:"created"`
			OwnedBy             string   `json:"owned_by"`
			SupportedParameters []string `json:"supported_parameters"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/v1/models?limit=1000", key, nil, &v1); st != 200 || len(v1.Data) < 300 {
		t.Fatalf("/api/v1/models: %d, %d records", st, len(v1.Data))
	}
	for _, r := range v1.Data {
		if r.ID == "" || r.Object != "model" || r.Created <= 0 || r.OwnedBy == "" {
			t.Errorf("record %+v is not an OpenAI Model", r)
		}
		if r.ID == "openai/o3" && slices.Contains(r.SupportedParameters, "temperature") {
			t.Errorf("openai/o3 says it takes temperature: %v", r.SupportedParameters)
		}
	}
}
