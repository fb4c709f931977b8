package gemini

import (
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/golden"
)

// The video wire, both ways, against the fake: golden transcripts of a job's
// requests and of the statuses read from the replies.
func TestVideoGolden(t *testing.T) {
	yes := true
	seed := int64(7)
	for _, c := range []struct {
		name string
		req  shlyuz.VideoRequest
	}{
		{"text", shlyuz.VideoRequest{JobID: "video_golden", Model: "veo-3.1-generate-preview", Prompt: "a red kite", Seconds: 8, Size: "1280x720"}},
		{"reference", shlyuz.VideoRequest{JobID: "video_golden", Model: "veo-3.1-generate-preview", Prompt: "[expire] from a picture", Seconds: 8, Size: "720x1280",
			AspectRatio: "9:16", Resolution: "720p", InputReference: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), InputMIME: "image/png", GenerateAudio: &yes, Seed: &seed}},
		{"failed", shlyuz.VideoRequest{JobID: "video_golden", Model: "veo-3.1-generate-preview", Prompt: "[fail] a kite", Seconds: 8}},
		{"moderated", shlyuz.VideoRequest{JobID: "video_golden", Model: "veo-3.1-generate-preview", Prompt: "[moderate] a kite", Seconds: 8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := golden.VideoTranscript(t, fake.New(fake.Options{}), func(base string) shlyuz.VideoProvider {
				p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: base, APIKey: "golden-key"})
				if err != nil {
					t.Fatal(err)
				}
				return p
			}, &c.req)
			golden.Check(t, "video/"+c.name+".golden", got)
		})
	}
}
