package media_test

import (
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
)

func TestAudioSecondsAndSniff(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		audio        []byte
		want         shlyuz.Decimal // seconds
		exact        bool
	}{
		{"wav 1 s 24 kHz", "wav", mediatest.WAV(1, 24000), shlyuz.NewDecimalFrac(1, 1), true},
		{"wav 2.5 s 16 kHz", "wav", mediatest.WAV(2.5, 16000), shlyuz.NewDecimalFrac(5, 2), true},
		{"mp3 2 s", "mp3", mediatest.MP3(2), shlyuz.NewDecimalFrac(77*1152, 44100), true},
		{"ogg opus 2 s: 101 packets of 20 ms", "ogg", mediatest.OggOpus(2), shlyuz.NewDecimalFrac(101*960, 48000), true},
		{"unknown: size bound", "m4a", append([]byte("\x00\x00\x00\x20ftypM4A "), make([]byte, 3988)...), shlyuz.NewDecimalFrac(2, 1), false},
		{"broken wav: size bound", "wav", []byte("RIFF\x00\x00\x00\x00WAVEjunk"), shlyuz.NewDecimalFrac(16, 2000), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := media.SniffAudio(tc.audio); got != tc.format {
				t.Errorf("SniffAudio = %q, want %q", got, tc.format)
			}
			secs, exact := media.AudioSeconds(tc.format, tc.audio)
			if exact != tc.exact || secs.Cmp(tc.want) != 0 {
				t.Errorf("AudioSeconds = %s, %v; want %s, %v", secs, exact, tc.want, tc.exact)
			}
		})
	}
}

func TestAudioFormatMatches(t *testing.T) {
	for _, tc := range []struct {
		declared, sniffed string
		want              bool
	}{
		{"mp3", "mp3", true}, {"mpga", "mp3", true}, {"opus", "ogg", true}, {"mp4", "m4a", true},
		{"wav", "mp3", false}, {"flac", "", false}, {"webm", "webm", true},
	} {
		if got := media.AudioFormatMatches(tc.declared, tc.sniffed); got != tc.want {
			t.Errorf("AudioFormatMatches(%q, %q) = %v", tc.declared, tc.sniffed, got)
		}
	}
}

func TestWAVRoundTrip(t *testing.T) {
	w, ok := media.ParseWAV(mediatest.WAV(0.5, 16000))
	if !ok || w.Rate != 16000 || w.Channels != 1 || w.Bits != 16 || len(w.Data) != 16000 {
		t.Fatalf("ParseWAV = %+v, %v", w, ok)
	}
	if _, ok := media.ParseWAV(mediatest.MP3(1)); ok {
		t.Error("an MP3 parsed as WAV")
	}
}
