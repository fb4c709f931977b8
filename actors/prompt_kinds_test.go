package actors

import (
	"encoding/json"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/tokens"
)

// TestPromptKindsAreWhatTheBodySays: the dearer prompt prices a request is
// held at follow what its body asks for and carries, the dearer way when in
// doubt (request shapes from Anthropic's and OpenAI's API references).
func TestPromptKindsAreWhatTheBodySays(t *testing.T) {
	const (
		w5m, w1h = shlyuz.PromptCacheWrite, shlyuz.PromptCacheWrite1h
		audio    = shlyuz.PromptAudio
		image    = shlyuz.PromptImage
	)
	text := `[{"role":"user","content":"Hello"}]`
	tests := []struct {
		name   string
		model  string
		fields map[string]string
		native map[string]string
		prompt tokens.PromptEstimate
		want   shlyuz.PromptKinds
	}{
		{"plain text to Claude", "anthropic/claude-sonnet-4.5", map[string]string{"messages": text}, nil, tokens.PromptEstimate{}, 0},
		{"a marked part (OpenRouter's convention)", "anthropic/claude-sonnet-4.5",
			map[string]string{"messages": `[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]}]`}, nil, tokens.PromptEstimate{}, w5m},
		{"a one-hour mark", "anthropic/claude-sonnet-4.5",
			map[string]string{"messages": `[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral","ttl":"1h"}}]}]`}, nil, tokens.PromptEstimate{}, w5m | w1h},
		{"automatic caching at the top of a native body", "claude-haiku-4-5",
			map[string]string{"messages": text}, map[string]string{"cache_control": `{"type":"ephemeral"}`}, tokens.PromptEstimate{}, w5m},
		{"a one-hour mark spaced out", "anthropic/claude-sonnet-4.5",
			map[string]string{"system": `[{"type":"text","text":"Hi","cache_control" : { "ttl" : "1h" , "type":"ephemeral"}}]`}, nil, tokens.PromptEstimate{}, w5m | w1h},
		{"a five-minute ttl beside a text saying 1h", "anthropic/claude-sonnet-4.5",
			map[string]string{"messages": `[{"role":"user","content":[{"type":"text","text":"Wait 1h, then \"cache_control\":{\"ttl\":\"1h\"}","cache_control":{"type":"ephemeral","ttl":"5m"}}]}]`}, nil, tokens.PromptEstimate{}, w5m},
		{"automatic one-hour caching", "claude-haiku-4-5",
			map[string]string{"messages": text}, map[string]string{"messages": text, "cache_control": `{"type":"ephemeral","ttl":"1h"}`}, tokens.PromptEstimate{}, w5m | w1h},
		{"a mark on a tool", "anthropic/claude-opus-4.5",
			map[string]string{"messages": text, "tools": `[{"name":"f","input_schema":{},"cache_control":{"type":"ephemeral"}}]`}, nil, tokens.PromptEstimate{}, w5m},
		{"a hidden key is taken as anything", "anthropic/claude-sonnet-4.5",
			map[string]string{"messages": `[{"role":"user","content":[{"type":"text","text":"Hi","cache\u005fcontrol":{"type":"ephemeral"}}]}]`}, nil, tokens.PromptEstimate{}, shlyuz.AnyPrompt},
		{"escaped markup is no hiding", "anthropic/claude-sonnet-4.5",
			map[string]string{"messages": `[{"role":"user","content":"\u003cb\u003e \u001b[0m"}]`}, nil, tokens.PromptEstimate{}, 0},
		{"a maker that caches on its own keeps its write prices", "openai/gpt-5.6-sol", map[string]string{"messages": text}, nil, tokens.PromptEstimate{}, w5m | w1h},
		{"input audio", "openai/gpt-4o-audio-preview",
			map[string]string{"messages": `[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]`}, nil,
			tokens.PromptEstimate{Images: 1, Media: &tokens.MediaParts{Parts: []tokens.MediaPart{{Kind: tokens.MediaAudio, Seconds: 1}}}}, w5m | w1h | audio},
		{"an earlier answer's audio by id", "openai/gpt-4o-audio-preview",
			map[string]string{"messages": `[{"role":"assistant","audio":{"id":"audio_1"}},{"role":"user","content":"more"}]`}, nil, tokens.PromptEstimate{}, w5m | w1h | audio},
		{"an image to Claude", "anthropic/claude-sonnet-4.5",
			map[string]string{"messages": `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]`}, nil,
			tokens.PromptEstimate{Images: 1, Media: &tokens.MediaParts{Parts: []tokens.MediaPart{{Kind: tokens.MediaImageURL}}}}, image},
		{"a video may be billed as images and audio", "google/gemini-2.5-flash",
			map[string]string{"messages": `[{"role":"user","content":[{"type":"video_url","video_url":{"url":"data:video/mp4;base64,AAAA"}}]}]`}, nil,
			tokens.PromptEstimate{Images: 1, Media: &tokens.MediaParts{Parts: []tokens.MediaPart{{Kind: tokens.MediaVideo, Seconds: 1}}}}, shlyuz.AnyPrompt},
		{"media parts not measured may be anything", "anthropic/claude-sonnet-4.5",
			map[string]string{"messages": `[{"role":"user","content":[{"type":"file","file":{}}]}]`}, nil, tokens.PromptEstimate{Images: 1}, audio | image},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &ChatCall{Fields: raw(tt.fields), Prompt: tt.prompt}
			if tt.native != nil {
				c.Native = &shlyuz.NativeRequest{Protocol: "anthropic", Body: raw(tt.native)}
			}
			price := &shlyuz.Price{PromptMicro: 1, CacheWriteMicro: 2, CacheWrite1hMicro: 3, AudioInMicro: 4, ImageInMicro: 5} // every kind dearer than input
			if got := c.PromptKinds(tt.model, price); got != tt.want {
				t.Errorf("kinds %04b, want %04b", got, tt.want)
			}
		})
	}
}

// TestPromptKindsLookOnlyForDearerKinds: a kind the price bills as plain
// input is left in the bound (it costs nothing there), and a kind only the
// long-context tier bills dearer is looked for.
func TestPromptKindsLookOnlyForDearerKinds(t *testing.T) {
	c := &ChatCall{Fields: raw(map[string]string{"messages": `[{"role":"user","content":"Hello"}]`})}
	for _, tt := range []struct {
		name  string
		price shlyuz.Price
		want  shlyuz.PromptKinds
	}{
		{"cache writes dearer", shlyuz.Price{PromptMicro: 30, CacheReadMicro: 3, CacheWriteMicro: 37, CacheWrite1hMicro: 60, AudioInMicro: 30, ImageInMicro: 30},
			shlyuz.PromptAudio | shlyuz.PromptImage},
		{"images dearer above the tier", shlyuz.Price{PromptMicro: 30, AudioInMicro: 30, ImageInMicro: 30, CacheWriteMicro: 30, CacheWrite1hMicro: 30,
			LongAbove: 200_000, Long: &shlyuz.Price{PromptMicro: 60, AudioInMicro: 60, ImageInMicro: 90, CacheWriteMicro: 60, CacheWrite1hMicro: 60}},
			shlyuz.PromptAudio | shlyuz.PromptCacheWrite | shlyuz.PromptCacheWrite1h},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.PromptKinds("anthropic/claude-sonnet-4.5", &tt.price); got != tt.want {
				t.Errorf("kinds %04b, want %04b", got, tt.want)
			}
		})
	}
}

func raw(m map[string]string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = json.RawMessage(v)
	}
	return out
}
