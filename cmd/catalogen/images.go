package main

import "encoding/json"

// imageSpec is shlyuz.ImageSpec as written to catalog.json, prices as the
// literal text of the source numbers.
type imageSpec struct {
	Sizes          []string               `json:"sizes"`
	DefaultSize    string                 `json:"default_size"`
	Qualities      []string               `json:"qualities,omitempty"`
	DefaultQuality string                 `json:"default_quality,omitempty"`
	Formats        []string               `json:"formats"`
	MaxN           int                    `json:"max_n"`
	MaxPrompt      int                    `json:"max_prompt_chars"`
	Unit           string                 `json:"unit"`
	USDPerImage    map[string]json.Number `json:"usd_per_image,omitempty"`
	OutputTokens   map[string]int64       `json:"output_tokens,omitempty"`
	USDPerMP       json.Number            `json:"usd_per_megapixel,omitempty"`
}

// imageModels are the models of the image API (POST /api/v1/images), from
// the public list prices in shared/research/media-upstreams.md §1:
//   - gpt-image-1, -1.5, -1-mini: priced per token (text in / image out per
//     1M: $5/$40, $5/$32, $2/$8); an image's output tokens by size and
//     quality as OpenAI counts them (272/1056/4160 at 1024², 408/1584/6240 at
//     1024×1536, 400/1568/6208 at 1536×1024), the reservation's worst case;
//     the charge is the upstream's reported usage;
//   - dall-e-3 per image: standard $0.04 (1024²) / $0.08 (1792 wide or tall),
//     hd $0.08 / $0.12; dall-e-2 $0.016 / $0.018 / $0.02 (256² / 512² / 1024²);
//   - Imagen 4 per image: Fast $0.02, Standard $0.04, Ultra $0.06;
//   - FLUX (§1.7): FLUX.2 per megapixel, pro $0.03, flex $0.06, max $0.07
//     (the headline price of the first megapixel, an upper bound of the
//     rest; the charge is the cost BFL reports); Kontext pro $0.04 and
//     FLUX.1 dev $0.025 per image.
func imageModels() []catalogModel {
	const created = 1767225600 // 2026-01-01T00:00:00Z
	gptSizes := []string{"1024x1024", "1024x1536", "1536x1024"}
	gptTokens := map[string]int64{
		"1024x1024/low": 272, "1024x1024/medium": 1056, "1024x1024/high": 4160,
		"1024x1536/low": 408, "1024x1536/medium": 1584, "1024x1536/high": 6240,
		"1536x1024/low": 400, "1536x1024/medium": 1568, "1536x1024/high": 6208,
	}
	gptImage := func(id, name string, in, out json.Number) catalogModel {
		return catalogModel{ID: id, Name: name, InputModalities: []string{"text", "image"}, OutputModalities: []string{"image"},
			USD: literalUSD{Prompt: in, Completion: out}, Created: created,
			Image: &imageSpec{Sizes: gptSizes, DefaultSize: "1024x1024", Qualities: []string{"low", "medium", "high"},
				DefaultQuality: "medium", Formats: []string{"png", "jpeg", "webp"}, MaxN: 10, MaxPrompt: 32000,
				Unit: "token", OutputTokens: gptTokens}}
	}
	perImage := func(id, name string, spec imageSpec) catalogModel {
		spec.Unit = "image"
		return catalogModel{ID: id, Name: name, InputModalities: []string{"text"}, OutputModalities: []string{"image"},
			USD: literalUSD{Prompt: "0", Completion: "0"}, Created: created, Image: &spec}
	}
	imagen := func(id, name string, price json.Number) catalogModel {
		return perImage(id, name, imageSpec{Sizes: []string{"1024x1024", "896x1280", "1280x896", "768x1408", "1408x768"},
			DefaultSize: "1024x1024", Formats: []string{"png", "jpeg"}, MaxN: 4, MaxPrompt: 1920,
			USDPerImage: map[string]json.Number{"*": price}})
	}
	fluxSizes := []string{"1024x1024", "1024x768", "768x1024", "1344x768", "768x1344", "1536x1024", "1024x1536", "2048x2048"}
	flux := func(id, name string, spec imageSpec) catalogModel {
		spec.Sizes, spec.DefaultSize, spec.Formats, spec.MaxN, spec.MaxPrompt = fluxSizes, "1024x1024", []string{"jpeg", "png"}, 4, 10000
		return catalogModel{ID: id, Name: name, InputModalities: []string{"text", "image"}, OutputModalities: []string{"image"},
			USD: literalUSD{Prompt: "0", Completion: "0"}, Created: created, Image: &spec}
	}
	return []catalogModel{
		flux("black-forest-labs/flux-2-pro", "Black Forest Labs: FLUX.2 [pro]", imageSpec{Unit: "megapixel", USDPerMP: "0.03"}),
		flux("black-forest-labs/flux-2-flex", "Black Forest Labs: FLUX.2 [flex]", imageSpec{Unit: "megapixel", USDPerMP: "0.06"}),
		flux("black-forest-labs/flux-2-max", "Black Forest Labs: FLUX.2 [max]", imageSpec{Unit: "megapixel", USDPerMP: "0.07"}),
		flux("black-forest-labs/flux-kontext-pro", "Black Forest Labs: FLUX.1 Kontext [pro]", imageSpec{Unit: "image", USDPerImage: map[string]json.Number{"*": "0.04"}}),
		flux("black-forest-labs/flux-dev", "Black Forest Labs: FLUX.1 [dev]", imageSpec{Unit: "image", USDPerImage: map[string]json.Number{"*": "0.025"}}),
		gptImage("openai/gpt-image-1", "OpenAI: GPT Image 1", "5", "40"),
		gptImage("openai/gpt-image-1.5", "OpenAI: GPT Image 1.5", "5", "32"),
		gptImage("openai/gpt-image-1-mini", "OpenAI: GPT Image 1 Mini", "2", "8"),
		perImage("openai/dall-e-3", "OpenAI: DALL·E 3", imageSpec{Sizes: []string{"1024x1024", "1792x1024", "1024x1792"},
			DefaultSize: "1024x1024", Qualities: []string{"standard", "hd"}, DefaultQuality: "standard", Formats: []string{"png"},
			MaxN: 1, MaxPrompt: 4000, USDPerImage: map[string]json.Number{
				"1024x1024/standard": "0.04", "1792x1024/standard": "0.08", "1024x1792/standard": "0.08",
				"1024x1024/hd": "0.08", "1792x1024/hd": "0.12", "1024x1792/hd": "0.12"}}),
		perImage("openai/dall-e-2", "OpenAI: DALL·E 2", imageSpec{Sizes: []string{"256x256", "512x512", "1024x1024"},
			DefaultSize: "1024x1024", Formats: []string{"png"}, MaxN: 10, MaxPrompt: 1000,
			USDPerImage: map[string]json.Number{"256x256": "0.016", "512x512": "0.018", "1024x1024": "0.02"}}),
		imagen("google/imagen-4.0-fast-generate-001", "Google: Imagen 4 Fast", "0.02"),
		imagen("google/imagen-4.0-generate-001", "Google: Imagen 4", "0.04"),
		imagen("google/imagen-4.0-ultra-generate-001", "Google: Imagen 4 Ultra", "0.06"),
	}
}
