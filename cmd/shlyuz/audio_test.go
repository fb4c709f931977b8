package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// audioTestModels are the fake's speech models (100 credits a character at
// the test pricing) and transcription models (100,000 credits a second, or
// tokens), faults chosen by name; all routed to the fake's OpenAI API.
var audioTestModels = func() string {
	var b strings.Builder
	for _, id := range []string{"tts/speech", "tts/fault-500", "tts/fault-cut", "tts/fault-slow", "tts/fault-gate"} {
		fmt.Fprintf(&b, `  - {id: %q, name: %q, input_modalities: [text], output_modalities: [speech], speech: {voices: [alloy, nova], default_voice: alloy, formats: [mp3, opus, wav, pcm], default_format: mp3, max_input_chars: 2000, unit: character, usd_per_mchars: "10"}}`+"\n", id, id)
	}
	for _, id := range []string{"stt/whisper", "stt/fault-500", "stt/fault-nousage"} {
		fmt.Fprintf(&b, `  - {id: %q, name: %q, input_modalities: [audio], output_modalities: [transcription], transcription: {formats: [wav, mp3, ogg, flac, m4a, webm], response_formats: [json, verbose_json, text, srt, vtt], max_bytes: 300000, max_seconds: 30, unit: second, usd_per_minute: "0.6"}}`+"\n", id, id)
	}
	// whisper-1 at OpenAI's price ($0.006 a minute: litellm-model-prices.json's input_cost_per_second 0.0001).
	for _, id := range []string{"stt/whisper-1", "stt/whisper-1-fault-nousage"} {
		fmt.Fprintf(&b, `  - {id: %q, name: %q, input_modalities: [audio], output_modalities: [transcription], transcription: {formats: [wav, mp3, ogg, flac], response_formats: [json], max_bytes: 1000000, max_seconds: 1500, unit: second, usd_per_minute: "0.006"}}`+"\n", id, id)
	}
	b.WriteString(`  - {id: "stt/whisper-1-30s", name: "30 seconds", input_modalities: [audio], output_modalities: [transcription], transcription: {formats: [wav, mp3, ogg, flac], response_formats: [json], max_bytes: 1000000, max_seconds: 30, unit: second, usd_per_minute: "0.006"}}` + "\n")
	b.WriteString(`  - {id: "stt/transcribe-tokens", name: "tokens", max_output_tokens: 100, input_modalities: [audio], output_modalities: [transcription], usd: {prompt_usd_per_mtok: "10", completion_usd_per_mtok: "20"}, transcription: {formats: [wav, mp3, ogg], response_formats: [json, text], max_bytes: 300000, max_seconds: 30, unit: token, usd_per_m_audio_tokens: "30", audio_tokens_per_second: 10}}` + "\n")
	return b.String()
}()

const (
	creditsPerChar   = 100
	creditsPerSecond = 100_000
)

// transcriptionReply is the transcription API's JSON answer.
type transcriptionReply struct {
	Text     string  `json:"text"`
	Duration float64 `json:"duration"`
	Segments []struct {
		Start, End float64
		Text       string
	} `json:"segments"`
	Usage struct {
		Type         string          `json:"type"`
		Seconds      *shlyuz.Decimal `json:"seconds"`
		InputTokens  int64           `json:"input_tokens"`
		OutputTokens int64           `json:"output_tokens"`
		AudioTokens  int64           `json:"audio_tokens"`
		Credits      int64           `json:"credits"`
	} `json:"usage"`
}

func b64Audio(audio []byte, format string) map[string]any {
	return map[string]any{"data": base64.StdEncoding.EncodeToString(audio), "format": format}
}

func TestAudioWithTheOpenAISDK(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	ctx := context.Background()
	before := balance(t, h.base, key).Data.TotalCredits

	tr, err := client.Audio.Transcriptions.New(ctx, openai.AudioTranscriptionNewParams{
		Model: "stt/whisper", File: openai.File(bytes.NewReader(mediatest.WAV(2.5, 16000)), "speech.wav", "audio/wav")})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Text != fake.Transcript(2.5) {
		t.Fatalf("text %q", tr.Text)
	}
	var u transcriptionReply
	if err := json.Unmarshal([]byte(tr.RawJSON()), &u); err != nil {
		t.Fatal(err)
	}
	if want := int64(3 * creditsPerSecond); u.Usage.Credits != want || u.Usage.Type != "duration" || u.Usage.Seconds == nil || u.Usage.Seconds.String() != "3" {
		t.Fatalf("usage %+v, want 3 s and %d credits", u.Usage, want)
	}

	input := "Hello from the gateway, in a voice."
	resp, err := client.Audio.Speech.New(ctx, openai.AudioSpeechNewParams{Model: "tts/speech", Input: input,
		Voice: openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String("nova")}, ResponseFormat: openai.AudioSpeechNewParamsResponseFormatWAV})
	if err != nil {
		t.Fatal(err)
	}
	audio, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "audio/wav" {
		t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	secs, exact := media.AudioSeconds("wav", audio)
	if want := float64(len(input)) * fake.SpeechSecondsPerChar; !exact || secs.Float64() < want-0.01 || secs.Float64() > want+0.01 {
		t.Fatalf("speech lasts %s s (exact %v), want %.2f", secs, exact, want)
	}
	g := generation(t, key, resp.Header.Get("X-Generation-Id"))
	speechCredits := int64(len(input) * creditsPerChar)
	if g.Data.Credits != speechCredits || g.Data.Status != "completed" || !g.Data.Streamed {
		t.Fatalf("generation %+v, want %d credits", g.Data, speechCredits)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; before-after != u.Usage.Credits+speechCredits {
		t.Fatalf("debited %d, want %d", before-after, u.Usage.Credits+speechCredits)
	}
}

// generation reads GET /api/v1/generation?id=.
func generation(t *testing.T, key, id string) generationView {
	t.Helper()
	var g generationView
	if st := call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g); st != 200 {
		t.Fatalf("generation %s: %d", id, st)
	}
	return g
}

func TestTranscriptionFromJSONAndForm(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	wav, mp3, ogg := mediatest.WAV(1.2, 8000), mediatest.MP3(2), mediatest.OggOpus(4.5)
	cases := []struct {
		name    string
		body    any
		seconds int64 // billed
	}{
		{"audio, wav", map[string]any{"model": "stt/whisper", "audio": b64Audio(wav, "wav")}, 2},
		{"input_audio, mp3", map[string]any{"model": "stt/whisper", "input_audio": b64Audio(mp3, "mp3")}, 3},
		{"a data URL, format left out", map[string]any{"model": "stt/whisper", "audio": map[string]any{"data": "data:audio/ogg;base64," + base64.StdEncoding.EncodeToString(ogg)}}, 5},
		{"no usage from the upstream: the measured duration", map[string]any{"model": "stt/fault-nousage", "audio": b64Audio(ogg, "opus")}, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			var r transcriptionReply
			if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, tc.body, &r); st != 200 {
				t.Fatalf("status %d", st)
			}
			want := tc.seconds * creditsPerSecond
			if r.Usage.Credits != want || !strings.HasPrefix(r.Text, "This is the transcript of") {
				t.Fatalf("reply %+v, want %d credits", r, want)
			}
			if after := balance(t, h.base, key).Data.TotalCredits; before-after != want {
				t.Fatalf("debited %d, want %d", before-after, want)
			}
		})
	}
	t.Run("multipart, every response format", func(t *testing.T) {
		for _, format := range []string{"json", "verbose_json", "text", "srt", "vtt"} {
			resp := postForm(t, key, map[string]string{"model": "stt/whisper", "response_format": format, "language": "en"}, "a.wav", wav)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("X-Generation-Id") == "" || resp.Header.Get("X-Generation-Credits") != "200000" {
				t.Fatalf("%s: %d %q %s", format, resp.StatusCode, resp.Header.Get("X-Generation-Credits"), body)
			}
			text := fake.Transcript(1.2)
			ok := map[string]bool{
				"json":         strings.Contains(string(body), `"credits":200000`),
				"verbose_json": strings.Contains(string(body), `"segments":[{"id":0,"start":0,"end":1.2`),
				"text":         string(body) == text,
				"srt":          string(body) == "1\n00:00:00,000 --> 00:00:01,200\n"+text+"\n\n",
				"vtt":          string(body) == "WEBVTT\n\n00:00:00.000 --> 00:00:01.200\n"+text+"\n\n",
			}[format]
			if !ok {
				t.Errorf("%s: %s", format, body)
			}
		}
	})
	t.Run("token-priced: the upstream's tokens", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		var r transcriptionReply
		if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "stt/transcribe-tokens",
			"audio": b64Audio(mediatest.WAV(2, 8000), "wav"), "prompt": "Names: Shlyuz, Fiber."}, &r); st != 200 {
			t.Fatalf("status %d", st)
		}
		text := r.Usage.InputTokens - r.Usage.AudioTokens
		// $10 / $20 / $30 per million text in / out / audio in: 10 credits a dollar-per-million token.
		want := (text*10 + r.Usage.OutputTokens*20 + r.Usage.AudioTokens*30) * 10
		if r.Usage.Type != "tokens" || r.Usage.AudioTokens != 2*fake.AudioTokensPerSecond || text < 1 || r.Usage.Credits != want {
			t.Fatalf("usage %+v, want %d credits", r.Usage, want)
		}
		if after := balance(t, h.base, key).Data.TotalCredits; before-after != want {
			t.Fatalf("debited %d, want %d", before-after, want)
		}
	})
}

// postForm posts OpenAI's multipart transcription form.
func postForm(t *testing.T, key string, fields map[string]string, filename string, file []byte) *http.Response {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if filename != "" {
		part, _ := w.CreateFormFile("file", filename)
		_, _ = part.Write(file)
	}
	_ = w.Close()
	req, _ := http.NewRequest("POST", h.base+"/api/v1/audio/transcriptions", &b)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestSpeechFormats(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	input := strings.Repeat("Speech in every format. ", 4)
	want := float64(len(input)) * fake.SpeechSecondsPerChar
	for _, tc := range []struct{ format, mime, container string }{
		{"mp3", "audio/mpeg", "mp3"}, {"opus", "audio/ogg", "ogg"}, {"wav", "audio/wav", "wav"}, {"pcm", "audio/pcm", ""},
	} {
		t.Run(tc.format, func(t *testing.T) {
			resp, body := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": "tts/speech", "input": input, "voice": "alloy", "response_format": tc.format})
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.mime || resp.Header.Get("X-Generation-Id") == "" {
				t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			got := float64(len(body)) / 48000 // raw PCM: 24 kHz, 16-bit mono
			if tc.container != "" {
				if media.SniffAudio(body) != tc.container {
					t.Fatalf("the audio is not %s", tc.container)
				}
				secs, exact := media.AudioSeconds(tc.container, body)
				if !exact {
					t.Fatalf("the %s could not be measured", tc.format)
				}
				got = secs.Float64()
			}
			if got < want-0.05 || got > want+0.05 {
				t.Fatalf("%s lasts %.3f s, want %.3f", tc.format, got, want)
			}
			if g := generation(t, key, resp.Header.Get("X-Generation-Id")); g.Data.Credits != int64(len(input)*creditsPerChar) {
				t.Fatalf("generation %+v", g.Data)
			}
		})
	}
}

// postJSON posts a JSON body and reads the whole answer, which must arrive whole.
func postJSON(t *testing.T, key, path string, body any) (*http.Response, []byte) {
	t.Helper()
	resp, out, err := postJSONCut(t, key, path, body)
	if err != nil {
		t.Fatalf("reading the reply: %v", err)
	}
	return resp, out
}

// postJSONCut posts a JSON body and reads the answer as far as it goes.
func postJSONCut(t *testing.T, key, path string, body any) (*http.Response, []byte, error) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", h.base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}

// rawSpeech sends a speech request on its own connection and returns it with
// a reader positioned after the request was written.
func rawSpeech(t *testing.T, key string, body map[string]any) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(body)
	fmt.Fprintf(conn, "POST /api/v1/audio/speech HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", key, len(b), b)
	return conn, bufio.NewReader(conn)
}

func TestSpeechClientLeaves(t *testing.T) {
	t.Run("after the first chunk: billed in full, the upstream stopped", func(t *testing.T) {
		_, key := account(t, h.base, 10_000_000, nil)
		before := balance(t, h.base, key).Data.TotalCredits
		input := strings.Repeat("a long speech that takes a while. ", 30) // ~61 s of audio, ~12 s at the slow pace
		conn, rd := rawSpeech(t, key, map[string]any{"model": "tts/fault-slow", "input": input, "voice": "alloy"})
		resp, err := http.ReadResponse(rd, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		first := make([]byte, 1024)
		if _, err := io.ReadFull(resp.Body, first); err != nil {
			t.Fatal(err)
		}
		if media.SniffAudio(first) != "mp3" {
			t.Fatal("the first bytes are not MP3")
		}
		conn.Close()
		id := resp.Header.Get("X-Generation-Id")
		start := time.Now()
		var g generationView
		waitFor(t, 5*time.Second, "the speech settled", func() bool {
			return call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g) == 200
		})
		if want := int64(len(input) * creditsPerChar); g.Data.Credits != want || g.Data.Status != "cancelled" {
			t.Fatalf("generation %+v, want cancelled and %d credits", g.Data, want)
		}
		t.Logf("settled %v after the client left", time.Since(start))
		if after := balance(t, h.base, key).Data; before-after.TotalCredits != g.Data.Credits || after.Reserved != 0 {
			t.Fatalf("balance %+v, before %d", after, before)
		}
	})
	t.Run("before any byte: billed 0", func(t *testing.T) {
		_, key := account(t, h.base, 10_000_000, nil)
		before := balance(t, h.base, key).Data.TotalCredits
		waiting := h.fake.SpeechWaiting()
		conn, _ := rawSpeech(t, key, map[string]any{"model": "tts/fault-gate", "input": "Never heard.", "voice": "alloy"})
		waitFor(t, 5*time.Second, "the upstream got the call", func() bool { return h.fake.SpeechWaiting() == waiting+1 })
		if r := balance(t, h.base, key).Data.Reserved; r != int64(len("Never heard.")*creditsPerChar) {
			t.Fatalf("reserved %d while the speech is made", r)
		}
		conn.Close()
		h.fake.ReleaseSpeech()
		waitFor(t, 5*time.Second, "the reservation released", func() bool { return balance(t, h.base, key).Data.Reserved == 0 })
		if after := balance(t, h.base, key).Data.TotalCredits; after != before {
			t.Fatalf("charged %d for speech nobody received", before-after)
		}
	})
}

func TestSpeechUpstreamFailures(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	resp, body := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": "tts/fault-500", "input": "x", "voice": "alloy"})
	var e struct{ Error shlyuz.Error }
	if resp.StatusCode < 500 || json.Unmarshal(body, &e) != nil || e.Error.Code == "" {
		t.Fatalf("a failure before any byte: %d %s", resp.StatusCode, body)
	}
	resp, _, err := postJSONCut(t, key, "/api/v1/audio/speech", map[string]any{"model": "tts/fault-cut", "input": strings.Repeat("cut ", 100), "voice": "alloy"})
	if resp.StatusCode != 200 || err == nil {
		t.Fatalf("a speech the upstream cut: %d, read error %v (the client must see it broken)", resp.StatusCode, err)
	}
	g := generation(t, key, resp.Header.Get("X-Generation-Id"))
	if g.Data.Status != "failed" || g.Data.Credits != 0 {
		t.Fatalf("a speech the upstream cut: %+v", g.Data)
	}
	if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "stt/fault-500", "audio": b64Audio(mediatest.WAV(1, 8000), "wav")}, nil); st < 500 {
		t.Fatalf("transcription failure: %d", st)
	}
	if after := balance(t, h.base, key).Data; after.TotalCredits != before || after.Reserved != 0 {
		t.Fatalf("failures cost %d (reserved %d)", before-after.TotalCredits, after.Reserved)
	}
}

func TestSpeechConcurrentAgainstKeyCeiling(t *testing.T) {
	const each, ceiling = 50 * creditsPerChar, 7 * 50 * creditsPerChar
	_, key := account(t, h.base, 100_000_000, map[string]any{"limit": ceiling})
	before := balance(t, h.base, key).Data.TotalCredits
	input := strings.Repeat("x", 50)
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := json.Marshal(map[string]any{"model": "tts/speech", "input": input, "voice": "alloy", "response_format": "pcm"})
			req, _ := http.NewRequest("POST", h.base+"/api/v1/audio/speech", bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			code := 0
			if err == nil {
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				code = resp.StatusCode
				if code == 200 && n != int64(len(fake.Speech(input, "pcm"))) {
					code = -1
				}
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	after := balance(t, h.base, key).Data
	spent := before - after.TotalCredits
	if codes[200] == 0 || int64(codes[200])*each != spent || spent > ceiling || after.Reserved != 0 || codes[200]+codes[403]+codes[402] != 200 {
		t.Fatalf("codes %v, spent %d of a %d ceiling, reserved %d", codes, spent, ceiling, after.Reserved)
	}
	t.Logf("codes %v, spent %d of %d", codes, spent, ceiling)
}

func TestAudioBadInput(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	wav := mediatest.WAV(1, 8000)
	stt := func(fields map[string]any) map[string]any {
		b := map[string]any{"model": "stt/whisper", "audio": b64Audio(wav, "wav")}
		for k, v := range fields {
			b[k] = v
		}
		return b
	}
	tts := func(fields map[string]any) map[string]any {
		b := map[string]any{"model": "tts/speech", "input": "hello", "voice": "alloy"}
		for k, v := range fields {
			b[k] = v
		}
		return b
	}
	const transcriptions, speech = "/api/v1/audio/transcriptions", "/api/v1/audio/speech"
	cases := []struct {
		name, path string
		body       any
		status     int
		code       string
		param      string
	}{
		{"bad base64", transcriptions, stt(map[string]any{"audio": map[string]any{"data": "%%%not base64", "format": "wav"}}), 400, "invalid_base64", "audio.data"},
		{"empty audio", transcriptions, stt(map[string]any{"audio": map[string]any{"data": "", "format": "wav"}}), 400, "invalid_value", "audio.data"},
		{"unknown format", transcriptions, stt(map[string]any{"audio": b64Audio(wav, "xyz")}), 400, "unsupported_format", "audio.data"},
		{"content not the declared format", transcriptions, stt(map[string]any{"audio": b64Audio(wav, "mp3")}), 400, "invalid_value", "audio.data"},
		{"not audio at all", transcriptions, stt(map[string]any{"audio": b64Audio([]byte("just some text, not audio"), "")}), 400, "unsupported_format", "audio.data"},
		{"a format the model does not read", transcriptions, stt(map[string]any{"model": "stt/transcribe-tokens", "audio": b64Audio([]byte("fLaC\x00\x00\x00\x22"+strings.Repeat("\x00", 40)), "flac")}), 400, "unsupported_format", "audio.data"},
		{"over the model's size", transcriptions, stt(map[string]any{"audio": b64Audio(mediatest.WAV(20, 8000), "wav")}), 413, "request_too_large", "audio.data"},
		{"over the model's duration", transcriptions, stt(map[string]any{"audio": b64Audio(mediatest.OggOpus(31), "ogg")}), 400, "invalid_value", "audio.data"},
		{"no audio", transcriptions, map[string]any{"model": "stt/whisper"}, 400, "missing_field", "audio"},
		{"no model", transcriptions, map[string]any{"audio": b64Audio(wav, "wav")}, 400, "missing_field", "model"},
		{"unknown model", transcriptions, stt(map[string]any{"model": "stt/nope"}), 404, "model_not_found", "model"},
		{"a speech model", transcriptions, stt(map[string]any{"model": "tts/speech"}), 400, "invalid_value", "model"},
		{"streamed", transcriptions, stt(map[string]any{"stream": true}), 400, "stream_not_supported", "stream"},
		{"a response format the model lacks", transcriptions, stt(map[string]any{"model": "stt/transcribe-tokens", "response_format": "srt"}), 400, "unsupported_format", "response_format"},
		{"temperature out of range", transcriptions, stt(map[string]any{"temperature": 3}), 400, "invalid_value", "temperature"},
		{"malformed JSON", transcriptions, `{"model": "stt/whisper", "audio": {`, 400, "invalid_json", ""},
		{"text over the model's limit", speech, tts(map[string]any{"input": strings.Repeat("a", 2001)}), 400, "invalid_value", "input"},
		{"no input", speech, tts(map[string]any{"input": ""}), 400, "missing_field", "input"},
		{"unknown voice", speech, tts(map[string]any{"voice": "robot"}), 400, "invalid_value", "voice"},
		{"unknown format", speech, tts(map[string]any{"response_format": "wma"}), 400, "unsupported_format", "response_format"},
		{"speed out of range", speech, tts(map[string]any{"speed": 9}), 400, "invalid_value", "speed"},
		{"server-sent events", speech, tts(map[string]any{"stream_format": "sse"}), 400, "invalid_value", "stream_format"},
		{"a transcription model", speech, tts(map[string]any{"model": "stt/whisper"}), 400, "invalid_value", "model"},
		{"unknown model (speech)", speech, tts(map[string]any{"model": "tts/nope"}), 404, "model_not_found", "model"},
		{"malformed JSON (speech)", speech, `{"model": `, 400, "invalid_json", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var e struct{ Error shlyuz.Error }
			st := call(t, h.base, "POST", tc.path, key, tc.body, &e)
			param := ""
			if e.Error.Param != nil {
				param = *e.Error.Param
			}
			if st != tc.status || e.Error.Code != tc.code || param != tc.param || e.Error.Message == "" {
				t.Fatalf("%d %+v (param %q), want %d %s %q", st, e.Error, param, tc.status, tc.code, tc.param)
			}
		})
	}
	t.Run("multipart without a file", func(t *testing.T) {
		resp := postForm(t, key, map[string]string{"model": "stt/whisper"}, "", nil)
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Fatalf("%d", resp.StatusCode)
		}
	})
	t.Run("chat refuses audio models", func(t *testing.T) {
		for _, m := range []string{"tts/speech", "stt/whisper"} {
			var e struct{ Error shlyuz.Error }
			if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, map[string]any{"model": m, "messages": []map[string]any{{"role": "user", "content": "hi"}}}, &e); st != 400 || !strings.Contains(e.Error.Message, "/api/v1/audio/") {
				t.Fatalf("%s: %d %+v", m, st, e.Error)
			}
		}
	})
	if after := balance(t, h.base, key).Data; after.TotalCredits != before || after.Reserved != 0 {
		t.Fatalf("bad input cost %d", before-after.TotalCredits)
	}
}

func TestAudioModelLists(t *testing.T) {
	_, key := account(t, h.base, 0, nil)
	ids := func(modality string) map[string]json.RawMessage {
		var l struct {
			Data []map[string]json.RawMessage `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/v1/models?output_modalities="+modality, key, nil, &l); st != 200 {
			t.Fatalf("%s: %d", modality, st)
		}
		out := map[string]json.RawMessage{}
		for _, m := range l.Data {
			var id string
			_ = json.Unmarshal(m["id"], &id)
			out[id] = m[modality+"_pricing"]
		}
		return out
	}
	speech, transcription, text := ids("speech"), ids("transcription"), ids("text")
	if _, ok := speech["tts/speech"]; !ok || string(speech["tts/speech"]) == "" || strings.Contains(string(speech["tts/speech"]), `"credits_per_1k_chars":100000`) == false {
		t.Errorf("speech list: %s", speech["tts/speech"])
	}
	if p := string(transcription["stt/whisper"]); !strings.Contains(p, `"credits_per_minute":6000000`) || !strings.Contains(p, `"unit":"second"`) {
		t.Errorf("transcription list: %s", p)
	}
	if _, ok := text["tts/speech"]; ok {
		t.Error("a speech model in the text list")
	}
	var pub struct {
		Data []struct {
			ID            string          `json:"id"`
			SpeechPricing json.RawMessage `json:"speech_pricing"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/models", "", nil, &pub); st != 200 {
		t.Fatal(st)
	}
	shown := false
	for _, m := range pub.Data {
		if m.ID == "openai/tts-1" {
			shown = strings.Contains(string(m.SpeechPricing), `"credits_per_1k_chars":150000`)
		}
	}
	if !shown {
		t.Error("the public catalog does not show tts-1's price per 1,000 characters")
	}
}

func TestAudioModelsByTheOperator(t *testing.T) {
	// An override of a speech model's price takes effect at once; a new
	// transcription model is served at once.
	speech := map[string]any{"id": "tts/speech", "name": "Speech, dearer", "input_modalities": []string{"text"}, "output_modalities": []string{"speech"},
		"usd": map[string]any{"prompt_usd_per_mtok": "0", "completion_usd_per_mtok": "0"},
		"speech": map[string]any{"voices": []string{"alloy"}, "default_voice": "alloy", "formats": []string{"mp3"}, "default_format": "mp3",
			"max_input_chars": 100, "unit": "character", "usd_per_mchars": "20"}}
	stt := map[string]any{"id": "ops/stt", "name": "Operator's transcription", "input_modalities": []string{"audio"}, "output_modalities": []string{"transcription"},
		"usd": map[string]any{"prompt_usd_per_mtok": "0", "completion_usd_per_mtok": "0"},
		"transcription": map[string]any{"formats": []string{"wav"}, "response_formats": []string{"json"}, "max_bytes": 100000, "max_seconds": 10,
			"unit": "second", "usd_per_minute": "1.2", "block_seconds": 5}}
	for _, m := range []map[string]any{speech, stt} {
		if st := call(t, h.base, "POST", "/api/admin/models", adminToken, m, nil); st != 200 && st != 201 {
			t.Fatalf("add %s: %d", m["id"], st)
		}
	}
	t.Cleanup(func() { // back to the test config's speech model
		speech["name"], speech["speech"].(map[string]any)["usd_per_mchars"], speech["speech"].(map[string]any)["max_input_chars"] = "tts/speech", "10", 2000
		speech["speech"].(map[string]any)["voices"], speech["speech"].(map[string]any)["formats"] = []string{"alloy", "nova"}, []string{"mp3", "opus", "wav", "pcm"}
		call(t, h.base, "POST", "/api/admin/models", adminToken, speech, nil)
	})
	_, key := account(t, h.base, 10_000_000, nil)
	resp, _ := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": "tts/speech", "input": "twelve chars", "voice": "alloy"})
	if g := generation(t, key, resp.Header.Get("X-Generation-Id")); g.Data.Credits != 12*2*creditsPerChar {
		t.Fatalf("overridden speech price: %+v", g.Data)
	}
	var r transcriptionReply
	if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "ops/stt", "audio": b64Audio(mediatest.WAV(1.2, 8000), "wav")}, &r); st != 200 {
		t.Fatalf("the operator's transcription model: %d", st)
	}
	if want := int64(5 * 2 * creditsPerSecond); r.Usage.Credits != want { // 1.2 s → a 5-second block at $1.2 a minute
		t.Fatalf("credits %d, want %d", r.Usage.Credits, want)
	}
}
