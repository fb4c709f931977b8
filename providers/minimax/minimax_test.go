package minimax

import (
	"context"
	"fmt"
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
		{"text", shlyuz.VideoRequest{JobID: "video_golden", Model: "MiniMax-Hailuo-2.3", Prompt: "a red kite", Seconds: 6, Size: "1280x720"}},
		{"reference", shlyuz.VideoRequest{JobID: "video_golden", Model: "MiniMax-Hailuo-2.3", Prompt: "[expire] from a picture", Seconds: 6, Size: "720x1280",
			AspectRatio: "9:16", Resolution: "768p", InputReference: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), InputMIME: "image/png", GenerateAudio: &yes, Seed: &seed}},
		{"failed", shlyuz.VideoRequest{JobID: "video_golden", Model: "MiniMax-Hailuo-2.3", Prompt: "[fail] a kite", Seconds: 6}},
		{"moderated", shlyuz.VideoRequest{JobID: "video_golden", Model: "MiniMax-Hailuo-2.3", Prompt: "[moderate] a kite", Seconds: 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := golden.VideoTranscript(t, fake.New(fake.Options{}), func(base string) shlyuz.VideoProvider {
				p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: base + "/minimax", APIKey: "mm-key"})
				if err != nil {
					t.Fatal(err)
				}
				return p
			}, &c.req)
			golden.Check(t, "video/"+c.name+".golden", got)
		})
	}
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
