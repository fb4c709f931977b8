package yandex

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
)

// TestSynthesisLineTooLong: a line of v3's stream over maxChunkLine is a
// malformed reply, said as such, not a connection broken off.
func TestSynthesisLineTooLong(t *testing.T) {
	url := golden.ServeBytes(t, append(bytes.Repeat([]byte("a"), maxChunkLine+1<<16), '\n'), "application/json")
	p, err := New(shlyuz.UpstreamConfig{Name: "long", BaseURL: url, FolderID: "b1gfolder", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.CloseIdleConnections()
	a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: "speechkit-tts-v3", Input: "x", Format: "mp3"})
	if err == nil {
		a.Close()
		t.Fatal("a line over the limit was taken")
	}
	if e := golden.AsError(t, err); e.Status != 502 || !strings.Contains(e.Message, "longer than 16 MB") {
		t.Errorf("%+v, want a 502 saying the line is too long", e)
	}
}
