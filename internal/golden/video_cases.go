package golden

import (
	"net/http"
	"testing"

	"github.com/shlyuz/shlyuz"
)

// VideoGoldens runs the four video jobs every video adapter is checked
// with — a text prompt, a reference picture (with an aspect ratio, a
// resolution, audio and a seed; the job expires), a failed job and a
// moderated one — of seconds long, each against a new upstream (the fake), and checks
// each transcript against testdata/video/<case>.golden. open makes the
// adapter for a base URL.
func VideoGoldens(t *testing.T, upstream func() http.Handler, model string, seconds int, resolution string, open func(base string) (shlyuz.VideoProvider, error)) {
	yes := true
	seed := int64(7)
	for _, c := range []struct {
		name string
		req  shlyuz.VideoRequest
	}{
		{"text", shlyuz.VideoRequest{JobID: "video_golden", Model: model, Prompt: "a red kite", Seconds: seconds, Size: "1280x720"}},
		{"reference", shlyuz.VideoRequest{JobID: "video_golden", Model: model, Prompt: "[expire] from a picture", Seconds: seconds, Size: "720x1280",
			AspectRatio: "9:16", Resolution: resolution, InputReference: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), InputMIME: "image/png", GenerateAudio: &yes, Seed: &seed}},
		{"failed", shlyuz.VideoRequest{JobID: "video_golden", Model: model, Prompt: "[fail] a kite", Seconds: seconds}},
		{"moderated", shlyuz.VideoRequest{JobID: "video_golden", Model: model, Prompt: "[moderate] a kite", Seconds: seconds}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := VideoTranscript(t, upstream(), func(base string) shlyuz.VideoProvider {
				p, err := open(base)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}, &c.req)
			Check(t, "video/"+c.name+".golden", got)
		})
	}
}
