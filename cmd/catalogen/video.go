package main

import (
	"encoding/json"
	"log"
)

// videoSpec is shlyuz.VideoSpec as written to catalog.json.
type videoSpec struct {
	Durations      []int       `json:"durations"`
	DefaultSeconds int         `json:"default_seconds"`
	Sizes          []string    `json:"sizes"`
	DefaultSize    string      `json:"default_size"`
	Resolutions    []string    `json:"resolutions,omitempty"`
	AspectRatios   []string    `json:"aspect_ratios,omitempty"`
	USDPerSecond   json.Number `json:"usd_per_second"`
}

// perSecond is a LiteLLM video model's price of a second, from the record
// under key; it stops the program when the data lacks it.
func perSecond(lite litellmIndex, key string) json.Number {
	m := lite[key]
	n := m.VideoPerSecond
	if n == "" {
		n = m.OutputPerSecond
	}
	if n == "" || !usablePrice(n) {
		log.Fatalf("litellm-model-prices.json has no price per second for %s", key)
	}
	return n
}

// videoModels are the video generation models: Sora 2 and Sora 2 Pro
// (OpenAI's videos API), Veo 3.1 and Veo 3.1 Fast (Gemini's), Kling and
// Hailuo (their makers' APIs), each with its durations, sizes and price per
// second. Sora's and Veo's prices are LiteLLM's records; Kling's and Hailuo's
// are not in the data files: they are their makers' list prices as of 2026
// (Kling v2.1 standard $0.25 per 5 s clip, Hailuo 02 768p $0.27 per 6 s clip),
// for the operator to check and override.
func videoModels(lite litellmIndex) []catalogModel {
	video := func(id, name string, in []string, spec videoSpec) catalogModel {
		return catalogModel{ID: id, Name: name, InputModalities: in, OutputModalities: []string{"video"},
			USD: literalUSD{Prompt: "0", Completion: "0"}, Created: snapshotCreated, Video: &spec}
	}
	textImage := []string{"text", "image"}
	soraSizes := []string{"720x1280", "1280x720"}
	veo := func(key string) videoSpec {
		return videoSpec{Durations: []int{4, 6, 8}, DefaultSeconds: 8, Sizes: []string{"1280x720", "720x1280"}, DefaultSize: "1280x720",
			Resolutions: []string{"720p", "1080p"}, AspectRatios: []string{"16:9", "9:16"}, USDPerSecond: perSecond(lite, key)}
	}
	return []catalogModel{
		video("openai/sora-2", "OpenAI: Sora 2", textImage, videoSpec{Durations: []int{4, 8, 12}, DefaultSeconds: 4,
			Sizes: soraSizes, DefaultSize: "720x1280", USDPerSecond: perSecond(lite, "openai/sora-2")}),
		video("openai/sora-2-pro", "OpenAI: Sora 2 Pro", textImage, videoSpec{Durations: []int{4, 8, 12}, DefaultSeconds: 4,
			Sizes: append(soraSizes, "1024x1792", "1792x1024"), DefaultSize: "720x1280", USDPerSecond: perSecond(lite, "openai/sora-2-pro")}),
		video("google/veo-3.1", "Google: Veo 3.1", textImage, veo("gemini/veo-3.1-generate-001")),
		video("google/veo-3.1-fast", "Google: Veo 3.1 Fast", textImage, veo("gemini/veo-3.1-fast-generate-001")),
		video("kwaivgi/kling-v2.1", "Kling: v2.1", textImage, videoSpec{Durations: []int{5, 10}, DefaultSeconds: 5,
			Sizes: []string{"1280x720", "720x1280", "720x720"}, DefaultSize: "1280x720", AspectRatios: []string{"16:9", "9:16", "1:1"},
			USDPerSecond: "0.05"}),
		video("minimax/hailuo-02", "MiniMax: Hailuo 02", textImage, videoSpec{Durations: []int{6, 10}, DefaultSeconds: 6,
			Sizes: []string{"1366x768", "1920x1080"}, DefaultSize: "1366x768", Resolutions: []string{"768p", "1080p"},
			USDPerSecond: "0.045"}),
	}
}

// embeddingModels are the embedding models, priced per input token from
// LiteLLM's records, with their input limits; their output is "embeddings".
func embeddingModels(lite litellmIndex) []catalogModel {
	embed := func(id, name, key string) catalogModel {
		m := lite[key]
		in, ok := perMTok(m.InputPerToken)
		if !ok || m.InputPerToken == "" {
			log.Fatalf("litellm-model-prices.json has no input price for %s", key)
		}
		return catalogModel{ID: id, Name: name, ContextLength: limit(m.MaxInputTokens), InputModalities: []string{"text"},
			OutputModalities: []string{"embeddings"}, USD: literalUSD{Prompt: in, Completion: "0"}, Created: snapshotCreated}
	}
	return []catalogModel{
		embed("openai/text-embedding-3-small", "OpenAI: Text Embedding 3 Small", "text-embedding-3-small"),
		embed("openai/text-embedding-3-large", "OpenAI: Text Embedding 3 Large", "text-embedding-3-large"),
		embed("openai/text-embedding-ada-002", "OpenAI: Text Embedding Ada 002", "text-embedding-ada-002"),
		embed("google/gemini-embedding-001", "Google: Gemini Embedding 001", "gemini/gemini-embedding-001"),
		embed("mistralai/mistral-embed", "Mistral: Mistral Embed", "mistral/mistral-embed"),
	}
}
