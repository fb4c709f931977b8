package actors

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/netguard"
)

func TestVideoCallbackIsSignedAndPublicOnly(t *testing.T) {
	var got struct {
		sig, idem string
		body      []byte
	}
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.sig, got.idem = r.Header.Get("X-Shlyuz-Signature"), r.Header.Get("X-Shlyuz-Idempotency-Key")
		got.body, _ = io.ReadAll(r.Body)
	}))
	defer ts.Close()
	now := time.Unix(1_800_000_000, 0)
	j := shlyuz.VideoJob{ID: "video_1", Model: "m", State: shlyuz.VideoCompleted, Credits: 42, CallbackURL: ts.URL + "/hook",
		Request: shlyuz.VideoRequest{Seconds: 4}, CompletedAt: &now}
	if err := sendVideoCallback(t.Context(), ts.Client(), "s3cret", j, now); err != nil {
		t.Fatal(err)
	}
	if want := "t=1800000000,v1=" + SignVideoCallback("s3cret", "1800000000", got.body); got.sig != want || got.idem != "video_1-completed" {
		t.Fatalf("headers %q %q", got.sig, got.idem)
	}
	var ev videoEvent
	if err := json.Unmarshal(got.body, &ev); err != nil || ev.Type != "video.generation.completed" || ev.Data.Credits != 42 || ev.Data.Status != "completed" {
		t.Fatalf("body %s: %v", got.body, err)
	}
	if err := sendVideoCallback(t.Context(), publicOnlyClient(), "s3cret", j, now); !errors.Is(err, netguard.ErrNotPublic) {
		t.Fatalf("a loopback callback was sent: %v", err)
	}
	j.State = shlyuz.VideoCancelled
	_ = sendVideoCallback(t.Context(), ts.Client(), "s3cret", j, now)
	if !strings.Contains(string(got.body), "video.generation.cancelled") {
		t.Fatalf("cancelled: %s", got.body)
	}
}
