package minimax

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// The video wire, both ways, against the fake: golden transcripts of a job's
// requests and of the statuses read from the replies.
func TestVideoGolden(t *testing.T) {
	golden.VideoGoldens(t, func() http.Handler { return fake.New(fake.Options{}) }, "MiniMax-Hailuo-2.3", 6, "768p", func(base string) (shlyuz.VideoProvider, error) {
		return New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: base + "/minimax", APIKey: "mm-key"})
	})
}

// Errors arrive inside HTTP 200 as base_resp.status_code.
func TestErrorsInsideHTTP200(t *testing.T) {
	for _, c := range []struct {
		code      int
		status    int
		permanent bool
	}{
		{1002, 429, false},
		{1004, 502, false},
		{1008, 502, false},
		{1026, 400, true},
		{2013, 400, true},
		{2049, 502, false},
	} {
		url := golden.ServeBytes(t, []byte(fmt.Sprintf(`{"task_id":"","base_resp":{"status_code":%d,"status_msg":"no"}}`, c.code)), "application/json")
		p, err := New(shlyuz.UpstreamConfig{Name: "m", BaseURL: url, APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.SubmitVideo(context.Background(), &shlyuz.VideoRequest{Model: "m", Prompt: "p", Seconds: 6})
		e := shlyuz.AsError(err)
		if e.Status != c.status || (e.Status/100 == 4 && e.Status != 429) != c.permanent {
			t.Errorf("%d: %d %v", c.code, e.Status, e)
		}
	}
}
