package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// litellmModel is what the catalog takes from a LiteLLM record: limits, the
// one-hour cache write price (genai-prices has only the five-minute one), and
// the mode.
type litellmModel struct {
	Mode              string      `json:"mode"`
	Provider          string      `json:"litellm_provider"`
	MaxInputTokens    json.Number `json:"max_input_tokens"`
	MaxOutputTokens   json.Number `json:"max_output_tokens"`
	CacheWrite1hToken json.Number `json:"cache_creation_input_token_cost_above_1hr"`
	InputPerToken     json.Number `json:"input_cost_per_token"`
	OutputPerToken    json.Number `json:"output_cost_per_token"`
	VideoPerSecond    json.Number `json:"output_cost_per_video_per_second"`
	OutputPerSecond   json.Number `json:"output_cost_per_second"`
	SupportsReasoning bool        `json:"supports_reasoning"`
	// DeprecationDate is, in LiteLLM's table, the day the provider shuts
	// the model down ("YYYY-MM-DD").
	DeprecationDate string `json:"deprecation_date"`
	// The long-context tier: above 200k prompt tokens.
	InputAbove200k      json.Number `json:"input_cost_per_token_above_200k_tokens"`
	OutputAbove200k     json.Number `json:"output_cost_per_token_above_200k_tokens"`
	CacheReadAbove200k  json.Number `json:"cache_read_input_token_cost_above_200k_tokens"`
	CacheWriteAbove200k json.Number `json:"cache_creation_input_token_cost_above_200k_tokens"`
	// SearchPerQuery is the fee of one web search the model runs, by the
	// search context size asked for (medium is OpenAI's default).
	SearchPerQuery *struct {
		Medium json.Number `json:"search_context_size_medium"`
	} `json:"search_context_cost_per_query"`
}

// litellmIndex holds LiteLLM's records by their lower-case key, and under
// "norm:" + a normalised model name (the part after the last "/" and after a
// Bedrock vendor's "vendor.", without date or version suffix) the first, by
// key order, that states its context length.
type litellmIndex map[string]litellmModel

func readLiteLLM(path string) (litellmIndex, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	idx := litellmIndex{}
	for k, v := range raw {
		var m litellmModel
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if d.Decode(&m) != nil { // the "sample_spec" entry and the like
			continue
		}
		idx[strings.ToLower(k)] = m
	}
	keys := make([]string, 0, len(idx))
	for k := range idx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := idx[k]
		if limit(m.MaxInputTokens) == 0 {
			continue
		}
		name := stripVariant(lastPart(k))
		norms := []string{normalize(name)}
		if _, after, ok := strings.Cut(name, "."); ok {
			norms = append(norms, normalize(after))
		}
		for _, n := range norms {
			if _, taken := idx["norm:"+n]; !taken && n != "" {
				idx["norm:"+n] = m
			}
		}
	}
	return idx, nil
}

// litellmProviders are LiteLLM's key prefixes for an OpenRouter provider prefix.
var litellmProviders = map[string][]string{
	"google": {"gemini/", "vertex_ai/"}, "mistralai": {"mistral/"}, "x-ai": {"xai/"}, "deepseek": {"deepseek/"},
	"anthropic": {"anthropic/"}, "openai": {"openai/"}, "meta-llama": {"meta_llama/"}, "qwen": {"dashscope/"},
	"moonshotai": {"moonshot/"}, "perplexity": {"perplexity/"}, "cohere": {"cohere_chat/"},
}

// find is the LiteLLM record of an OpenRouter model: its own key under
// OpenRouter's name, the bare model name, or the model under its maker's
// LiteLLM prefix (dots and dashes both tried: "claude-sonnet-4.5" is
// LiteLLM's "claude-sonnet-4-5").
func (idx litellmIndex) find(id string) (litellmModel, bool) {
	lower := stripVariant(strings.ToLower(id))
	prefix, name, _ := strings.Cut(lower, "/")
	var keys []string // the maker's own record first, OpenRouter's last
	for _, p := range litellmProviders[prefix] {
		keys = append(keys, p+name, p+strings.ReplaceAll(name, ".", "-"))
	}
	keys = append(keys, name, strings.ReplaceAll(name, ".", "-"), "openrouter/"+lower)
	for _, k := range keys {
		if m, ok := idx[k]; ok && (m.Mode == "" || m.Mode == "chat" || m.Mode == "responses") {
			return m, true
		}
	}
	for _, k := range keys { // an image-output model is "image_generation" to LiteLLM
		if m, ok := idx[k]; ok && limit(m.MaxInputTokens) > 0 {
			return m, true
		}
	}
	if m, ok := idx["norm:"+normalize(name)]; ok {
		return m, true
	}
	return litellmModel{}, false
}

// limit is a LiteLLM limit as a number (0 when absent or not whole).
func limit(n json.Number) int64 {
	v, err := n.Int64()
	if err != nil || v < 0 {
		return 0
	}
	return v
}
