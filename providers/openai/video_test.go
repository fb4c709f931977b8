package openai

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
	golden.VideoGoldens(t, func() http.Handler { return fake.New(fake.Options{}) }, "sora-2", 4, "720p", func(base string) (shlyuz.VideoProvider, error) {
		return New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: base + "/v1", APIKey: "sk-golden"}), nil
	})
}
