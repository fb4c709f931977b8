package salute

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
)

// recorder is an upstream that records the request it gets (after the
// OAuth call) and answers it with status and body.
type recorder struct {
	status int
	ct     string
	body   []byte
	got    bytes.Buffer
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/oauth" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"tok-golden","expires_at":4102444800000}`))
		return
	}
	b, _ := io.ReadAll(r.Body)
	fmt.Fprintf(&rec.got, "%s %s\nContent-Type: %s\nAuthorization: %s\n", r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Get("Authorization"))
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/text") {
		fmt.Fprintf(&rec.got, "body: %q\n", b)
	} else {
		fmt.Fprintf(&rec.got, "body: %d bytes: %s…\n", len(b), hex.EncodeToString(b[:min(len(b), 16)]))
	}
	w.Header().Set("Content-Type", rec.ct)
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body)
}

func openRecorder(t *testing.T, rec *recorder) *Provider {
	t.Helper()
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: ts.URL + "/rest/v1", AuthURL: ts.URL + "/oauth", APIKey: "key"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}

// TestRequestGolden checks what goes to SaluteSpeech for a transcription or
// speech request (testdata/request), or the refusal.
func TestRequestGolden(t *testing.T) {
	golden.Run(t, "request", ".json", func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		var rc struct {
			Transcription *shlyuz.TranscriptionRequest `json:"transcription"`
			Speech        *shlyuz.SpeechRequest        `json:"speech"`
		}
		if err := json.Unmarshal(raw, &rc); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{status: 200, ct: "application/json", body: []byte(`{"result":["ok"],"status":200}`)}
		p := openRecorder(t, rec)
		if rc.Transcription != nil {
			_, err = p.Transcribe(context.Background(), rc.Transcription)
		} else {
			rec.ct, rec.body = "audio/ogg;codecs=opus", []byte("OggS")
			var a shlyuz.SpeechAudio
			if a, err = p.Speak(context.Background(), rc.Speech); err == nil {
				_, err = io.ReadAll(a)
				a.Close()
			}
		}
		if err != nil {
			rec.got.WriteString(golden.Describe(t, err))
		}
		return rec.got.Bytes()
	})
}

// TestReplyGolden feeds recorded recognition replies through Transcribe.
func TestReplyGolden(t *testing.T) {
	golden.Run(t, "reply", ".json", func(t *testing.T, c golden.Case) []byte {
		body, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		p := openRecorder(t, &recorder{status: 200, ct: "application/json", body: body})
		tr, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Audio: []byte("ID3\x04\x00\x00\x00\x00\x00\x00"), Format: "mp3", Language: "ru"})
		if err != nil {
			return []byte(golden.Describe(t, err))
		}
		return fmt.Appendf(nil, "text=%q language=%q duration=%v usage=%v\n", tr.Text, tr.Language, tr.Duration, tr.Usage)
	})
}

// TestErrorGolden maps recorded error replies (testdata/error/<status>_*.json)
// of recognition and of synthesis alike.
func TestErrorGolden(t *testing.T) {
	golden.Run(t, "error", ".json", func(t *testing.T, c golden.Case) []byte {
		body, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		status, _ := strconv.Atoi(c.Name[:3])
		p := openRecorder(t, &recorder{status: status, ct: "application/json", body: body})
		_, terr := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Audio: []byte("ID3\x04\x00\x00\x00\x00\x00\x00"), Format: "mp3"})
		_, serr := p.Speak(context.Background(), &shlyuz.SpeechRequest{Input: "hi", Format: "opus"})
		a, b := golden.Describe(t, terr), golden.Describe(t, serr)
		if a != b {
			t.Errorf("recognition and synthesis map HTTP %d differently:\n%s%s", status, a, b)
		}
		return []byte(a)
	})
}
