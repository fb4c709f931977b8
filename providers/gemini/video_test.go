package gemini

import (
	"net/http"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// The video wire, both ways, against the fake: golden transcripts of a job's
// requests and of the statuses read from the replies.
func TestVideoGolden(t *testing.T) {
	golden.VideoGoldens(t, func() http.Handler { return fake.New(fake.Options{}) }, "veo-3.1-generate-preview", 8, "720p", func(base string) (shlyuz.VideoProvider, error) {
		return New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: base, APIKey: "golden-key"})
	})
}
