package yandex

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
)

// stereoWAV is seconds of 16-bit stereo silence at rate.
func stereoWAV(seconds float64, rate int) []byte {
	n := int(seconds * float64(rate))
	return append(media.WAVHeader(4*n, rate, 2), make([]byte, 4*n)...)
}

// eightBitWAV is a WAV of 8-bit mono samples.
func eightBitWAV() []byte {
	h := media.WAVHeader(100, 16000, 1)
	binary.LittleEndian.PutUint32(h[28:], 16000)
	binary.LittleEndian.PutUint16(h[32:], 1)
	binary.LittleEndian.PutUint16(h[34:], 8)
	return append(h, make([]byte, 100)...)
}

// withChannels is an Ogg Opus file whose OpusHead says channels (its CRC is left stale).
func withChannels(ogg []byte, channels byte) []byte {
	out := slices.Clone(ogg)
	out[bytes.Index(out, []byte("OpusHead"))+9] = channels
	return out
}

var b64Content = regexp.MustCompile(`"content": "([A-Za-z0-9+/=]*)"`)

// TestTranscriptionRequestGolden checks how audio goes to SpeechKit: v1's
// URL and body, v3's JSON (its base64 content summed up), or the refusal.
func TestTranscriptionRequestGolden(t *testing.T) {
	vorbis := slices.Clone(mediatest.OggOpus(1))
	copy(vorbis[bytes.Index(vorbis, []byte("OpusHead")):], "\x01vorbis\x00")
	for _, tc := range []struct {
		name, lang, format string
		audio              []byte
	}{
		{"stt_v1_wav_16k", "", "wav", mediatest.WAV(2, 16000)},
		{"stt_v1_wav_48k_en", "en", "wav", mediatest.WAV(1, 48000)},
		{"stt_v1_ogg_opus", "kk-KZ", "ogg", mediatest.OggOpus(3)},
		{"stt_v3_mp3", "ru", "mp3", mediatest.MP3(0.1)},
		{"stt_v3_wav_24k", "", "wav", mediatest.WAV(0.05, 24000)},
		{"stt_v3_wav_over_30s", "", "wav", mediatest.WAV(31, 8000)},
		{"stt_v3_ogg_over_30s", "", "ogg", mediatest.OggOpus(40)},
		{"err_stereo_wav", "", "wav", stereoWAV(1, 16000)},
		{"err_8bit_wav", "", "wav", eightBitWAV()},
		{"err_stereo_opus", "", "ogg", withChannels(mediatest.OggOpus(1), 2)},
		{"err_ogg_vorbis", "", "ogg", vorbis},
		{"err_flac", "", "flac", []byte("fLaC\x00\x00\x00\x22")},
		{"err_empty", "", "wav", nil},
		{"err_unknown", "", "m4b", []byte("not audio at all")},
		{"err_wav_without_fmt", "", "wav", []byte("RIFF\x04\x00\x00\x00WAVE")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			plan, err := planSTT(tc.audio, tc.format)
			lang := language(tc.lang)
			switch {
			case err != nil:
				out.WriteString(describeError(err) + "\n")
			case plan.sync:
				kind := media.SniffAudio(plan.audio)
				if kind == "" {
					kind = "raw"
				}
				fmt.Fprintf(&out, "POST %s\nContent-Type: application/octet-stream\nbody: %d bytes, %s\n",
					sttV1URL(sttHost, plan, lang, "b1gfolder"), len(plan.audio), kind)
				if plan.format == "lpcm" && len(plan.audio) != len(tc.audio)-44 {
					t.Errorf("the LPCM body is %d bytes, not the WAV's %d less its header", len(plan.audio), len(tc.audio))
				}
			default:
				body := sttV3Body(plan, lang)
				m := b64Content.FindSubmatch(golden.Indent(t, body))
				raw, derr := base64.StdEncoding.DecodeString(string(m[1]))
				if derr != nil || !bytes.Equal(raw, tc.audio) {
					t.Errorf("the content is not the audio in base64")
				}
				fmt.Fprintf(&out, "POST %s%s\n", sttHost, sttV3Path)
				out.Write(b64Content.ReplaceAll(golden.Indent(t, body), []byte(fmt.Sprintf(`"content": "<base64 of %d bytes>"`, len(raw)))))
				out.WriteString("\n")
			}
			golden.Check(t, "audio/request/"+tc.name+".golden", out.Bytes())
		})
	}
}

// TestSpeechRequestGolden checks the bodies of speech requests: v1's form
// (a field a line) and v3's JSON, or the refusal.
func TestSpeechRequestGolden(t *testing.T) {
	speed := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		name string
		req  shlyuz.SpeechRequest
	}{
		{"tts_v1_mp3", shlyuz.SpeechRequest{Model: "speechkit-tts", Input: "Привет, мир!", Voice: "alena", Format: "mp3"}},
		{"tts_v1_opus_speed", shlyuz.SpeechRequest{Model: "speechkit-tts", Input: "Быстро & громко", Voice: "filipp", Format: "opus", Speed: speed(1.5)}},
		{"tts_v1_wav", shlyuz.SpeechRequest{Model: "speechkit-tts", Input: "wav", Voice: "jane", Format: "wav"}},
		{"tts_v1_pcm_john", shlyuz.SpeechRequest{Model: "speechkit-tts", Input: "Hello", Voice: "john", Format: "pcm"}},
		{"tts_v1_no_voice", shlyuz.SpeechRequest{Model: "speechkit-tts", Input: "текст", Format: "mp3"}},
		{"tts_v3_mp3", shlyuz.SpeechRequest{Model: "speechkit-tts-v3", Input: "Привет, мир!", Voice: "alena", Format: "mp3", Speed: speed(1.1)}},
		{"tts_v3_opus", shlyuz.SpeechRequest{Model: "speechkit-tts-v3", Input: "x", Voice: "zahar", Format: "opus"}},
		{"tts_v3_wav", shlyuz.SpeechRequest{Model: "speechkit-tts-v3", Input: "x", Format: "wav"}},
		{"tts_v3_pcm", shlyuz.SpeechRequest{Model: "speechkit-tts-v3", Input: "x", Voice: "marina", Format: "pcm"}},
		{"err_v1_aac", shlyuz.SpeechRequest{Model: "speechkit-tts", Input: "x", Format: "aac"}},
		{"err_v3_flac", shlyuz.SpeechRequest{Model: "speechkit-tts-v3", Input: "x", Format: "flac"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if strings.Contains(tc.name, "v3") {
				body, err := ttsV3Body(&tc.req)
				if err != nil {
					out.WriteString(describeError(err) + "\n")
				} else {
					fmt.Fprintf(&out, "POST %s%s\n", ttsHost, ttsV3Path)
					out.Write(append(golden.Indent(t, body), '\n'))
				}
			} else {
				form, err := ttsV1Form(&tc.req, "b1gfolder")
				if err != nil {
					out.WriteString(describeError(err) + "\n")
				} else {
					enc := form.Encode()
					fmt.Fprintf(&out, "POST %s%s\nContent-Type: application/x-www-form-urlencoded\n%s\n", ttsHost, ttsV1Path, enc)
					back, _ := url.ParseQuery(enc)
					for _, k := range slices.Sorted(func(yield func(string) bool) {
						for k := range back {
							if !yield(k) {
								return
							}
						}
					}) {
						fmt.Fprintf(&out, "  %s=%q\n", k, back.Get(k))
					}
				}
			}
			golden.Check(t, "audio/request/"+tc.name+".golden", out.Bytes())
		})
	}
}

// TestAudioReplyGolden reads recorded replies: v1's recognition
// (recognize_*.json, billed 15 s), v3's recognition events
// (recognition_*.ndjson), v3's synthesis stream through Speak
// (synthesis_*.ndjson), and error bodies (error_<status>_*.json).
func TestAudioReplyGolden(t *testing.T) {
	now := time.Unix(1760000000, 0)
	p := &Provider{cfg: shlyuz.UpstreamConfig{Name: "golden"}, now: func() time.Time { return now }}
	render := func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		switch kind, rest, _ := strings.Cut(c.Name, "_"); kind {
		case "recognize":
			tr, err := decodeRecognize(raw, "15", "ru-RU")
			writeTranscription(&out, tr, err)
		case "recognition":
			tr, err := p.decodeRecognition(raw, "ru-RU")
			writeTranscription(&out, tr, err)
		case "synthesis":
			writeSynthesis(t, &out, c.Path)
		case "error":
			status, _ := strconv.Atoi(rest[:3])
			out.WriteString(describeError(statusError("golden", status, nil, raw, now)) + "\n")
		default:
			t.Fatalf("unknown case kind %q", kind)
		}
		return out.Bytes()
	}
	for _, ext := range []string{".json", ".ndjson"} {
		golden.Run(t, "audio/reply", ext, render)
	}
}

func writeTranscription(out *bytes.Buffer, tr *shlyuz.Transcription, err error) {
	if err != nil {
		out.WriteString(describeError(err) + "\n")
		return
	}
	fmt.Fprintf(out, "text=%q\nlanguage=%s duration=%g\n", tr.Text, tr.Language, tr.Duration)
	for _, s := range tr.Segments {
		fmt.Fprintf(out, "segment %g..%g %q\n", s.Start, s.End, s.Text)
	}
	if tr.Usage != nil && tr.Usage.Seconds != nil {
		fmt.Fprintf(out, "usage seconds=%s\n", tr.Usage.Seconds)
	}
}

// writeSynthesis serves a v3 stream and renders what Speak makes of it: the
// chunks Read returns, then how it ends.
func writeSynthesis(t *testing.T, out *bytes.Buffer, path string) {
	p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: golden.Serve(t, path, "application/json"), FolderID: "b1gfolder", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.CloseIdleConnections()
	a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: "speechkit-tts-v3", Input: "x", Format: "mp3"})
	if err != nil {
		out.WriteString("speak: " + describeError(err) + "\n")
		return
	}
	defer a.Close()
	buf := make([]byte, 64)
	for {
		n, err := a.Read(buf)
		if n > 0 {
			fmt.Fprintf(out, "read %q\n", buf[:n])
		}
		if err == io.EOF {
			out.WriteString("end: EOF\n")
			break
		} else if err != nil {
			out.WriteString("end: " + describeError(err) + "\n")
			break
		}
	}
	if a.Usage() != nil {
		t.Errorf("usage %+v, want nil", a.Usage())
	}
}
