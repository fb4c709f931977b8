package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
)

// imageTestModels are per-image models of the fake (100,000 credits an image
// at the test pricing), faults chosen by name.
var imageTestModels = func() string {
	var b bytes.Buffer
	for _, id := range []string{"img/small", "img/fault-moderated", "img/fault-empty", "img/fault-500", "img/fault-url", "img/fault-expired-url",
		"imagen/imagen-4.0-fast-generate-001", "imagen/fault-moderated", "imagen/fault-empty",
		"yart/yandex-art", "yart/fault-moderated", "yart/fault-failed"} {
		fmt.Fprintf(&b, `  - {id: %q, name: %q, input_modalities: [text], output_modalities: [image], image: {sizes: ["256x256", "512x256", "1408x768"], default_size: "256x256", formats: [png], max_n: 4, max_prompt_chars: 100, unit: image, usd_per_image: {"*": "0.01"}}}`+"\n", id, id)
	}
	return b.String()
}()

const creditsPerTestImage = 100_000

// fluxTestModels are the FLUX models of the fake's BFL API, priced per
// megapixel with a margin over the fake's reported cost (3 credits of $0.01
// a megapixel, rounded up to a tenth).
const fluxTestModels = `  - {id: "flux/flux-2-pro", name: "FLUX.2 pro", input_modalities: [text], output_modalities: [image], image: {sizes: ["1024x1024", "1024x768"], default_size: "1024x768", formats: [png, jpeg], max_n: 2, max_prompt_chars: 1000, unit: megapixel, usd_per_megapixel: "0.035"}}
`

// withImageUpstreams adds the BFL upstream, the FLUX models and their route
// to the test config.
func withImageUpstreams(root, cfg string) string {
	cfg = strings.Replace(cfg, "upstreams:\n", "upstreams:\n"+fmt.Sprintf("  - {name: bfl, protocol: bfl, base_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY}\n", root+"/bfl"), 1)
	cfg = strings.Replace(cfg, "routes:\n", "routes:\n  - {match: \"flux/\", upstreams: [bfl], strip_prefix: true}\n", 1)
	for _, f := range []string{"moderated", "request-moderated", "error", "expired"} {
		cfg = strings.Replace(cfg, "models:\n", "models:\n"+strings.ReplaceAll(fluxTestModels, "flux-2-pro", "fault-"+f), 1)
	}
	return strings.Replace(cfg, "models:\n", "models:\n"+fluxTestModels, 1)
}

// imageReply is the image API's answer.
type imageReply struct {
	Data []struct {
		B64JSON   string `json:"b64_json"`
		MediaType string `json:"media_type"`
	} `json:"data"`
	Usage struct {
		Images  int   `json:"images"`
		Credits int64 `json:"credits"`
	} `json:"usage"`
}

// decodedSize decodes a base64 image and returns its size.
func decodedSize(t *testing.T, b64 string) (int, int) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the image does not decode: %v", err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

func TestImagesWithTheOpenAISDK(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	client := sdkClient(key)
	resp, err := client.Images.Generate(context.Background(), openai.ImageGenerateParams{
		Prompt: "a red cat", Model: "openai/gpt-image-1", N: openai.Int(2), Size: "1024x1024", Quality: "low"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Data) != 2 {
		t.Fatalf("%d images, want 2", len(resp.Data))
	}
	for _, d := range resp.Data {
		if w, hgt := decodedSize(t, d.B64JSON); w != 1024 || hgt != 1024 {
			t.Fatalf("an image of %dx%d, want 1024x1024", w, hgt)
		}
	}
	var raw imageReply
	if err := json.Unmarshal([]byte(resp.RawJSON()), &raw); err != nil {
		t.Fatal(err)
	}
	// the fake reports 3 prompt tokens ($5/1M: 50 credits each) and 2 × 272
	// image tokens ($40/1M: 400 credits each)
	if want := int64(3*50 + 2*272*400); raw.Usage.Credits != want || resp.Usage.OutputTokens != 544 {
		t.Fatalf("usage.credits %d (output tokens %d), want %d", raw.Usage.Credits, resp.Usage.OutputTokens, want)
	}
	if spent := before - balance(t, h.base, key).Data.TotalCredits; spent != raw.Usage.Credits {
		t.Fatalf("debited %d, usage.credits %d", spent, raw.Usage.Credits)
	}
}

func TestImageAPI(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	post := func(t *testing.T, body map[string]any, out any) int {
		t.Helper()
		return call(t, h.base, "POST", "/api/v1/images", key, body, out)
	}

	t.Run("per image, exact credits, /images/generations too", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		var r imageReply
		if st := call(t, h.base, "POST", "/api/v1/images/generations", key, map[string]any{"model": "img/small", "prompt": "two dogs", "n": 2, "size": "512x256"}, &r); st != 200 {
			t.Fatalf("status %d", st)
		}
		if len(r.Data) != 2 || r.Usage.Images != 2 || r.Usage.Credits != 2*creditsPerTestImage || r.Data[0].MediaType != "image/png" {
			t.Fatalf("reply %+v", r.Usage)
		}
		if w, hgt := decodedSize(t, r.Data[1].B64JSON); w != 512 || hgt != 256 {
			t.Fatalf("%dx%d, want 512x256", w, hgt)
		}
		if spent := before - balance(t, h.base, key).Data.TotalCredits; spent != 2*creditsPerTestImage {
			t.Fatalf("debited %d", spent)
		}
	})

	t.Run("Imagen through the Gemini protocol", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		var r imageReply
		if st := post(t, map[string]any{"model": "imagen/imagen-4.0-fast-generate-001", "prompt": "a harbour", "n": 2, "size": "1408x768"}, &r); st != 200 || len(r.Data) != 2 {
			t.Fatalf("status %d, %d images", st, len(r.Data))
		}
		if w, hgt := decodedSize(t, r.Data[1].B64JSON); w != 113 || hgt != 64 {
			t.Fatalf("%dx%d, want the fake's 16:9 (113x64)", w, hgt)
		}
		if spent := before - balance(t, h.base, key).Data.TotalCredits; spent != 2*creditsPerTestImage || r.Usage.Credits != spent {
			t.Fatalf("debited %d, usage.credits %d", spent, r.Usage.Credits)
		}
	})

	t.Run("YandexART: an operation polled within the request", func(t *testing.T) {
		var r imageReply
		if st := post(t, map[string]any{"model": "yart/yandex-art", "prompt": "рыжий кот в снегу", "n": 2, "size": "512x256"}, &r); st != 200 || len(r.Data) != 2 {
			t.Fatalf("status %d, %d images", st, len(r.Data))
		}
		if w, hgt := decodedSize(t, r.Data[0].B64JSON); w != 128 || hgt != 64 || r.Data[0].MediaType != "image/jpeg" || r.Usage.Credits != 2*creditsPerTestImage {
			t.Fatalf("%dx%d %s, %d credits; want a 2:1 JPEG (128x64) and 2 images' price", w, hgt, r.Data[0].MediaType, r.Usage.Credits)
		}
	})

	t.Run("FLUX: a task polled within the request, billed at the cost BFL reported", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		var r imageReply
		if st := post(t, map[string]any{"model": "flux/flux-2-pro", "prompt": "a red fox", "n": 2}, &r); st != 200 || len(r.Data) != 2 {
			t.Fatalf("status %d, %d images", st, len(r.Data))
		}
		if w, hgt := decodedSize(t, r.Data[0].B64JSON); w != 85 || hgt != 64 {
			t.Fatalf("%dx%d, want the fake's 4:3 sample (85x64)", w, hgt)
		}
		// 1024×768 is 0.786432 MP: the fake reports 2.4 credits ($0.024) an image
		if spent := before - balance(t, h.base, key).Data.TotalCredits; r.Usage.Credits != 2*240_000 || spent != r.Usage.Credits {
			t.Fatalf("usage.credits %d, debited %d; want 480,000", r.Usage.Credits, spent)
		}
	})

	t.Run("an upstream's URL is fetched and inlined", func(t *testing.T) {
		var r imageReply
		if st := post(t, map[string]any{"model": "img/fault-url", "prompt": "a boat", "aspect_ratio": "2:1"}, &r); st != 200 || len(r.Data) != 1 {
			t.Fatalf("status %d, %d images", st, len(r.Data))
		}
		if w, hgt := decodedSize(t, r.Data[0].B64JSON); w != 512 || hgt != 256 {
			t.Fatalf("%dx%d, want 512x256 (aspect_ratio 2:1)", w, hgt)
		}
	})

	cases := []struct {
		name   string
		body   map[string]any
		status int
		code   string
		param  string
	}{
		{"no prompt", map[string]any{"model": "img/small"}, 400, "missing_field", "prompt"},
		{"blank prompt", map[string]any{"model": "img/small", "prompt": "  "}, 400, "missing_field", "prompt"},
		{"no model", map[string]any{"prompt": "x"}, 400, "missing_field", "model"},
		{"n zero", map[string]any{"model": "img/small", "prompt": "x", "n": 0}, 400, "invalid_value", "n"},
		{"n too many", map[string]any{"model": "img/small", "prompt": "x", "n": 5}, 400, "invalid_value", "n"},
		{"n not a number", map[string]any{"model": "img/small", "prompt": "x", "n": "two"}, 400, "invalid_value", "n"},
		{"unknown size", map[string]any{"model": "img/small", "prompt": "x", "size": "999x999"}, 400, "invalid_value", "size"},
		{"unknown quality", map[string]any{"model": "openai/dall-e-3", "prompt": "x", "quality": "ultra"}, 400, "invalid_value", "quality"},
		{"unknown format", map[string]any{"model": "img/small", "prompt": "x", "output_format": "bmp"}, 400, "invalid_value", "output_format"},
		{"bad aspect ratio", map[string]any{"model": "img/small", "prompt": "x", "aspect_ratio": "16:9"}, 400, "invalid_value", "aspect_ratio"},
		{"prompt too long", map[string]any{"model": "img/small", "prompt": string(bytes.Repeat([]byte("я"), 101))}, 400, "invalid_value", "prompt"},
		{"a text model", map[string]any{"model": "test/model", "prompt": "x"}, 400, "invalid_value", "model"},
		{"unknown model", map[string]any{"model": "nope/nope", "prompt": "x"}, 404, "model_not_found", "model"},
		{"stream", map[string]any{"model": "img/small", "prompt": "x", "stream": true}, 400, "stream_not_supported", "stream"},
		{"moderated", map[string]any{"model": "img/fault-moderated", "prompt": "x"}, 400, "content_policy", "prompt"},
		{"empty", map[string]any{"model": "img/fault-empty", "prompt": "x"}, 502, "upstream_error", ""},
		{"failed", map[string]any{"model": "img/fault-500", "prompt": "x"}, 502, "upstream_error", ""},
		{"expired URL", map[string]any{"model": "img/fault-expired-url", "prompt": "x"}, 502, "upstream_error", ""},
		{"Imagen filtered", map[string]any{"model": "imagen/fault-moderated", "prompt": "x", "n": 2}, 400, "content_policy", "prompt"},
		{"Imagen empty", map[string]any{"model": "imagen/fault-empty", "prompt": "x"}, 502, "upstream_error", ""},
		{"YandexART refused", map[string]any{"model": "yart/fault-moderated", "prompt": "x"}, 400, "content_policy", "prompt"},
		{"YandexART failed", map[string]any{"model": "yart/fault-failed", "prompt": "x"}, 502, "upstream_error", ""},
		{"FLUX output moderated", map[string]any{"model": "flux/fault-moderated", "prompt": "x"}, 400, "content_policy", "prompt"},
		{"FLUX request moderated", map[string]any{"model": "flux/fault-request-moderated", "prompt": "x"}, 400, "content_policy", "prompt"},
		{"FLUX error", map[string]any{"model": "flux/fault-error", "prompt": "x"}, 502, "upstream_error", ""},
		{"FLUX sample expired", map[string]any{"model": "flux/fault-expired", "prompt": "x"}, 502, "upstream_error", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := balance(t, h.base, key).Data
			var e apiError
			if st := post(t, tc.body, &e); st != tc.status || e.Error.Code != tc.code {
				t.Fatalf("%d %s (%s), want %d %s", st, e.Error.Code, e.Error.Message, tc.status, tc.code)
			}
			if param := e.Error.Param; (param == nil) != (tc.param == "") || (param != nil && *param != tc.param) {
				t.Fatalf("param %v, want %q", param, tc.param)
			}
			if after := balance(t, h.base, key).Data; after.TotalCredits != before.TotalCredits || after.Reserved != 0 {
				t.Fatalf("charged: %d → %d credits (reserved %d)", before.TotalCredits, after.TotalCredits, after.Reserved)
			}
		})
	}

	t.Run("through chat too", func(t *testing.T) { // chat serves image-only models (chat_images_test.go)
		var r struct {
			Choices []struct {
				Message struct {
					Images []any `json:"images"`
				} `json:"message"`
			} `json:"choices"`
		}
		if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, map[string]any{"model": "openai/dall-e-3",
			"messages": []map[string]any{{"role": "user", "content": "hi"}}}, &r); st != 200 || len(r.Choices) != 1 || len(r.Choices[0].Message.Images) != 1 {
			t.Fatalf("%d %+v", st, r)
		}
	})

	t.Run("the image models and their prices", func(t *testing.T) {
		var list struct {
			Data []struct {
				ID      string `json:"id"`
				Pricing struct {
					Unit            string           `json:"unit"`
					CreditsPerImage map[string]int64 `json:"credits_per_image"`
				} `json:"pricing"`
				N struct{ Max int } `json:"n"`
			} `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/v1/images/models", key, nil, &list); st != 200 {
			t.Fatalf("status %d", st)
		}
		got := map[string]int64{}
		for _, m := range list.Data {
			got[m.ID+" "+m.Pricing.Unit] = m.Pricing.CreditsPerImage["1024x1024/standard"] + m.Pricing.CreditsPerImage["256x256"]
		}
		// dall-e-3 standard 1024²: $0.04 × 100 × 100,000
		if got["openai/dall-e-3 image"] != 400_000 || got["img/small image"] != creditsPerTestImage || got["openai/gpt-image-1 token"] != 0 {
			t.Fatalf("image models %v", got)
		}
		if _, ok := got["test/model text"]; ok {
			t.Fatal("a text model is listed")
		}
	})
}

// TestImagesUnderAKeyCeiling: 200 concurrent image requests against a key
// whose ceiling pays for 10 images spend no more than the ceiling, and the
// credits the clients were told add up to the debit.
func TestImagesUnderAKeyCeiling(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, map[string]any{"limit": 10*creditsPerTestImage + creditsPerTestImage/2})
	before := balance(t, h.base, key).Data.TotalCredits
	var mu sync.Mutex
	var told, ok, refused int64
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r imageReply
			st := call(t, h.base, "POST", "/api/v1/images", key, map[string]any{"model": "img/small", "prompt": "a fox"}, &r)
			mu.Lock()
			defer mu.Unlock()
			switch st {
			case 200:
				ok++
				told += r.Usage.Credits
			case 403:
				refused++
			default:
				t.Errorf("status %d", st)
			}
		}()
	}
	wg.Wait()
	spent := before - balance(t, h.base, key).Data.TotalCredits
	if ok != 10 || refused != 190 || spent != told || spent != 10*creditsPerTestImage {
		t.Fatalf("%d served, %d refused; debited %d, told %d; want 10 images of %d", ok, refused, spent, told, creditsPerTestImage)
	}
}

// TestImageOutputInChat: an image-output model asked without "modalities"
// is asked for its image; the image comes back in message.images (streamed:
// delta.images) as a data URL that decodes, and its tokens are in the debit.
func TestImageOutputInChat(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	body := map[string]any{"model": "google/gemini-2.5-flash-image", "usage": map[string]any{"include": true},
		"messages": []map[string]any{{"role": "user", "content": "draw a cat"}}}
	checkImage := func(t *testing.T, url string) {
		t.Helper()
		b64, ok := strings.CutPrefix(url, "data:image/png;base64,")
		if !ok {
			t.Fatalf("image url %.40q is not a PNG data URL", url)
		}
		decodedSize(t, b64)
	}
	gemini := maps.Clone(body) // the Gemini protocol: modalities become responseModalities, inlineData parts images
	gemini["model"], gemini["modalities"] = "gemini/model", []string{"image", "text"}
	for name, body := range map[string]map[string]any{"openai": body, "gemini": gemini} {
		t.Run(name, func(t *testing.T) { chatImageCases(t, key, body, checkImage) })
	}
	t.Run("gigachat: text2image's file in message.images", func(t *testing.T) {
		giga := maps.Clone(body)
		giga["model"], giga["modalities"] = "giga/model", []string{"image", "text"}
		var r struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
					Images  []struct {
						ImageURL struct {
							URL string `json:"url"`
						} `json:"image_url"`
					} `json:"images"`
				} `json:"message"`
			} `json:"choices"`
		}
		if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, giga, &r); st != 200 || len(r.Choices) != 1 || len(r.Choices[0].Message.Images) != 1 {
			t.Fatalf("status %d, reply %+v", st, r)
		}
		if strings.Contains(r.Choices[0].Message.Content, "<img") {
			t.Fatalf("the <img> tag was left in the text: %q", r.Choices[0].Message.Content)
		}
		b64, ok := strings.CutPrefix(r.Choices[0].Message.Images[0].ImageURL.URL, "data:image/jpeg;base64,")
		if !ok {
			t.Fatalf("not a JPEG data URL: %.40q", r.Choices[0].Message.Images[0].ImageURL.URL)
		}
		decodedSize(t, b64)
	})
}

// chatImageCases asks body's model for a reply with an image, plainly and
// streamed, and checks the image and the debit.
func chatImageCases(t *testing.T, key string, body map[string]any, checkImage func(*testing.T, string)) {
	t.Run("plain", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		var r struct {
			Choices []struct {
				Message struct {
					Images []struct {
						Type     string `json:"type"`
						ImageURL struct {
							URL string `json:"url"`
						} `json:"image_url"`
					} `json:"images"`
				} `json:"message"`
			} `json:"choices"`
			Usage struct {
				CompletionTokens int64 `json:"completion_tokens"`
				Credits          int64 `json:"credits"`
			} `json:"usage"`
		}
		if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &r); st != 200 {
			t.Fatalf("status %d", st)
		}
		if len(r.Choices) != 1 || len(r.Choices[0].Message.Images) != 1 || r.Choices[0].Message.Images[0].Type != "image_url" {
			t.Fatalf("no image in the reply: %+v", r.Choices)
		}
		checkImage(t, r.Choices[0].Message.Images[0].ImageURL.URL)
		if r.Usage.CompletionTokens < 1290 {
			t.Fatalf("completion tokens %d do not count the image's 1290", r.Usage.CompletionTokens)
		}
		if spent := before - balance(t, h.base, key).Data.TotalCredits; spent != r.Usage.Credits || spent == 0 {
			t.Fatalf("debited %d, usage.credits %d", spent, r.Usage.Credits)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		stream := maps.Clone(body)
		stream["stream"] = true
		resp := postChat(t, h.base, key, stream)
		defer resp.Body.Close()
		var found bool
		for _, data := range sseEvents(t, resp.Body) {
			if data == "[DONE]" {
				continue
			}
			var chunk struct {
				Choices []struct {
					Delta struct {
						Images []struct {
							ImageURL struct {
								URL string `json:"url"`
							} `json:"image_url"`
						} `json:"images"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(data), &chunk); err != nil {
				t.Fatalf("chunk %q: %v", data, err)
			}
			for _, c := range chunk.Choices {
				for _, img := range c.Delta.Images {
					checkImage(t, img.ImageURL.URL)
					found = true
				}
			}
		}
		if !found {
			t.Fatal("no delta.images in the stream")
		}
	})
}

// TestImagePricesAreShownAndOverridable: the public catalog and the keyed
// model list show an image model's prices; the operator adds an image model
// at run time (no rebuild) and it is listed, priced and served at once;
// bad image output options in chat are a 400 naming the field.
func TestImagePricesAreShownAndOverridable(t *testing.T) {
	var public struct {
		Data []struct {
			ID           string `json:"id"`
			ImagePricing *struct {
				Unit            string           `json:"unit"`
				CreditsPerImage map[string]int64 `json:"credits_per_image"`
			} `json:"image_pricing"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/models", "", nil, &public); st != 200 {
		t.Fatalf("public models %d", st)
	}
	found := false
	for _, m := range public.Data {
		if m.ID == "openai/dall-e-3" {
			found = m.ImagePricing != nil && m.ImagePricing.Unit == "image" && m.ImagePricing.CreditsPerImage["1024x1792/hd"] == 1_200_000
		}
		if m.ID == "test/model" && m.ImagePricing != nil {
			t.Fatal("a text model shows image prices")
		}
	}
	if !found {
		t.Fatal("the public catalog does not show dall-e-3's prices per image")
	}

	model := map[string]any{"id": "ops/poster", "name": "Poster", "input_modalities": []string{"text"}, "output_modalities": []string{"image"},
		"usd": map[string]any{"prompt_usd_per_mtok": "0", "completion_usd_per_mtok": "0"},
		"image": map[string]any{"sizes": []string{"256x256"}, "default_size": "256x256", "formats": []string{"png"}, "max_n": 1,
			"unit": "image", "usd_per_image": map[string]any{"*": "0.02"}}}
	if st := call(t, h.base, "POST", "/api/admin/models", adminToken, model, nil); st != 200 && st != 201 {
		t.Fatalf("add an image model: %d", st)
	}
	_, key := account(t, h.base, 10_000_000, nil)
	var r imageReply
	if st := call(t, h.base, "POST", "/api/v1/images", key, map[string]any{"model": "ops/poster", "prompt": "a poster"}, &r); st != 200 || r.Usage.Credits != 2*creditsPerTestImage {
		t.Fatalf("the operator's image model: %d, %d credits (want 200,000)", st, r.Usage.Credits)
	}

	for _, tc := range []struct {
		name  string
		extra map[string]any
		param string
	}{
		{"aspect ratio", map[string]any{"image_config": map[string]any{"aspect_ratio": "wide"}}, "image_config"},
		{"image size", map[string]any{"image_config": map[string]any{"image_size": "8K"}}, "image_config"},
		{"not an object", map[string]any{"image_config": "16:9"}, "image_config"},
		{"modality", map[string]any{"modalities": []string{"image", "smell"}}, "modalities"},
	} {
		body := chatBody("google/gemini-2.5-flash-image", false, 0)
		maps.Copy(body, tc.extra)
		var e apiError
		if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &e); st != 400 || e.Error.Param == nil || *e.Error.Param != tc.param {
			t.Errorf("%s: %d %+v", tc.name, st, e.Error)
		}
	}
}
