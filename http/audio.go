package http

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/tokens"
)

// transcriptionUsage is a transcription's usage: the seconds billed or the
// tokens the upstream counted, and credits, the exact debit. type is
// OpenAI's ("duration" or "tokens"), so that its SDKs read it.
type transcriptionUsage struct {
	Type         string          `json:"type"`
	Seconds      *shlyuz.Decimal `json:"seconds,omitempty"`
	InputTokens  int64           `json:"input_tokens,omitempty"`
	OutputTokens int64           `json:"output_tokens,omitempty"`
	TotalTokens  int64           `json:"total_tokens,omitempty"`
	AudioTokens  int64           `json:"audio_tokens,omitempty"`
	Credits      shlyuz.Credits  `json:"credits"`
}

// createTranscription is POST /api/v1/audio/transcriptions: the transcript,
// billed by the upstream's reported seconds or tokens, or by the audio's
// measured duration; usage.credits (the X-Generation-Credits header for
// text, srt and vtt) is the exact debit.
func (s *Server) createTranscription(c *fiber.Ctx) error {
	cat := s.gw.Catalog()
	in, m, e := parseTranscription(c, cat)
	if e != nil {
		return e
	}
	spec, secs := m.Transcription, in.seconds
	call := &actors.MediaCall{
		GenerationID: newID("gen-"), KeyHash: c.Locals(localKeyHash).(string), Model: m.ID, AllowFallbacks: true,
		Started: time.Now(), Worst: m.TranscriptionWorst(secs, tokens.Text(in.Prompt), cat.Pricing),
		Supports: func(u *actors.Upstream) bool { _, ok := u.Provider.(shlyuz.TranscriptionProvider); return ok },
	}
	applyPrefs(call, in.Provider)
	c.Set("X-Generation-Id", call.GenerationID)
	segments := in.ResponseFormat == "verbose_json" || in.ResponseFormat == "srt" || in.ResponseFormat == "vtt"
	var t *shlyuz.Transcription
	media, err := s.gw.StartMedia(c.UserContext(), call, func(ctx context.Context, u *actors.Upstream, req *shlyuz.UpstreamRequest) error {
		r, err := u.Provider.(shlyuz.TranscriptionProvider).Transcribe(ctx, &shlyuz.TranscriptionRequest{
			Model: req.UpstreamModel, Audio: in.audio, Format: in.format, Language: in.Language, Prompt: in.Prompt,
			Temperature: in.Temperature, Seconds: secs, Segments: segments})
		t = r
		return err
	})
	if err != nil {
		return err
	}
	cost := m.TranscriptionCost(secs, t.Usage, cat.Pricing)
	u := transcriptionUsage{Type: "duration"}
	var tokens shlyuz.Usage
	if spec.Unit == shlyuz.AudioUnitToken && t.Usage != nil {
		u.Type, u.AudioTokens, u.OutputTokens = "tokens", t.Usage.AudioTokens, t.Usage.OutputTokens
		u.InputTokens = t.Usage.TextTokens + t.Usage.AudioTokens
		u.TotalTokens = u.InputTokens + u.OutputTokens
		tokens = shlyuz.Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	} else {
		billed := shlyuz.NewDecimalFrac(spec.BilledSeconds(secs), 1)
		if t.Usage != nil && t.Usage.Seconds != nil {
			billed = shlyuz.NewDecimalFrac(spec.BilledSeconds(*t.Usage.Seconds), 1)
		}
		u.Seconds = &billed
	}
	receipt := media.Settle(cost, tokens, shlyuz.GenerationCompleted, "stop")
	u.Credits = receipt.Credits
	return writeTranscript(c, in.ResponseFormat, t, secs.Float64(), u)
}

// writeTranscript answers in the response format: json and verbose_json
// with usage; text, srt and vtt as text, the debit in a header.
func writeTranscript(c *fiber.Ctx, format string, t *shlyuz.Transcription, measured float64, u transcriptionUsage) error {
	duration := t.Duration
	if duration == 0 {
		duration = measured
	}
	segs := t.Segments
	if len(segs) == 0 { // one segment, the whole audio, for an upstream that gives none
		segs = []shlyuz.TranscriptSegment{{Start: 0, End: duration, Text: t.Text}}
	}
	c.Set("X-Generation-Credits", strconv.FormatInt(u.Credits, 10))
	switch format {
	case "verbose_json":
		type segment struct {
			ID int `json:"id"`
			shlyuz.TranscriptSegment
		}
		out := make([]segment, len(segs))
		for i, s := range segs {
			out[i] = segment{i, s}
		}
		lang := t.Language
		if lang == "" {
			lang = "unknown"
		}
		return c.JSON(fiber.Map{"task": "transcribe", "language": lang, "duration": duration, "text": t.Text, "segments": out, "usage": u})
	case "text":
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.SendString(t.Text)
	case "srt", "vtt":
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.SendString(subtitles(format, segs))
	}
	return c.JSON(fiber.Map{"text": t.Text, "usage": u})
}

// subtitles renders timed segments as SubRip or WebVTT.
func subtitles(format string, segs []shlyuz.TranscriptSegment) string {
	var b strings.Builder
	sep := ","
	if format == "vtt" {
		b.WriteString("WEBVTT\n\n")
		sep = "."
	}
	stamp := func(secs float64) string {
		ms := int64(secs*1000 + 0.5)
		return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, sep, ms%1000)
	}
	for i, s := range segs {
		if format == "srt" {
			fmt.Fprintf(&b, "%d\n", i+1)
		}
		fmt.Fprintf(&b, "%s --> %s\n%s\n\n", stamp(s.Start), stamp(s.End), strings.TrimSpace(s.Text))
	}
	return b.String()
}

// createSpeech is POST /api/v1/audio/speech: the audio streamed as the
// upstream makes it. Its first bytes are read before the reply starts, so
// that a failure before them is a JSON error (and falls back to the next
// upstream). The charge: in full once any audio went out to the client, 0
// when none did or the upstream failed; the price is in GET
// /api/v1/generation?id= (the id in X-Generation-Id).
func (s *Server) createSpeech(c *fiber.Ctx) error {
	cat := s.gw.Catalog()
	in, m, e := parseSpeech(c.Body(), cat)
	if e != nil {
		return e
	}
	call := &actors.MediaCall{
		GenerationID: newID("gen-"), KeyHash: c.Locals(localKeyHash).(string), Model: m.ID, AllowFallbacks: true,
		Stream: true, Started: time.Now(), Worst: m.SpeechWorst(in.Input, tokens.Text(in.Input), cat.Pricing),
		Supports: func(u *actors.Upstream) bool { _, ok := u.Provider.(shlyuz.SpeechProvider); return ok },
	}
	applyPrefs(call, in.Provider)
	c.Set("X-Generation-Id", call.GenerationID)
	var audio shlyuz.SpeechAudio
	first := make([]byte, 32<<10)
	mc, err := s.gw.StartMedia(c.UserContext(), call, func(ctx context.Context, u *actors.Upstream, req *shlyuz.UpstreamRequest) error {
		a, err := u.Provider.(shlyuz.SpeechProvider).Speak(ctx, &shlyuz.SpeechRequest{
			Model: req.UpstreamModel, Input: in.Input, Voice: in.Voice, Format: in.ResponseFormat, Speed: in.Speed, Instructions: in.Instructions})
		if err != nil {
			return err
		}
		n, err := io.ReadAtLeast(a, first, 1) // a failure after bytes is given again by the next Read
		if n == 0 {
			a.Close()
			if err == nil || errors.Is(err, io.EOF) {
				err = shlyuz.ErrUpstream("The upstream ended the speech before any audio.")
			}
			return err
		}
		audio, first = a, first[:n]
		return nil
	})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, media.AudioMIME(in.ResponseFormat))
	c.Set("X-Accel-Buffering", "no")
	sp := &speech{media: mc, audio: audio, cost: func() shlyuz.Credits {
		return m.SpeechCost(in.Input, tokens.Text(in.Input), audio.Usage(), cat.Pricing)
	},
		log: s.log, id: call.GenerationID}
	// The gateway writes the reply on the connection itself: only so does it
	// know that audio reached the socket (what is billed), and only so can it
	// end the reply broken, without the last chunk, when the upstream fails
	// mid-speech. The connection closes after the speech.
	fctx := c.Context()
	fctx.HijackSetNoResponse(true)
	s.streams.Add(1)
	fctx.Hijack(func(conn net.Conn) {
		defer s.streams.Done()
		fctx.Response.Header.SetContentLength(-1) // chunked
		fctx.Response.Header.SetConnectionClose()
		sp.write(conn, fctx.Response.Header.Header(), first)
	})
	return nil
}

// speechWriteTimeout bounds each write of speech to a client that stopped reading.
const speechWriteTimeout = 2 * time.Minute

// speech is one speech reply on its way to the client.
type speech struct {
	media *actors.Media
	audio shlyuz.SpeechAudio
	cost  func() shlyuz.Credits
	log   *slog.Logger
	id    string
}

// write sends the response head and the audio in chunks on conn, then
// settles: in full once any audio reached the socket, 0 when the client left
// before or the upstream failed (the reply then ends without its last chunk,
// so the client sees it broken).
func (sp *speech) write(conn net.Conn, head, first []byte) {
	settled := false
	defer func() { // the hijack handler runs outside Fiber's recover
		if r := recover(); r != nil {
			sp.log.Error("speech writer panicked", "generation", sp.id, "panic", r)
		}
		sp.audio.Close()
		if !settled {
			sp.media.Fail(shlyuz.ErrInternal(fmt.Errorf("speech writer ended early")))
		}
	}()
	settle := func(cost shlyuz.Credits, status, finish string) {
		sp.media.Settle(cost, shlyuz.Usage{}, status, finish)
		settled = true
	}
	if clientLeft(conn) { // before any byte: nothing is owed (the deferred Close stops the upstream)
		settle(0, shlyuz.GenerationCancelled, "cancelled")
		return
	}
	bw := bufio.NewWriterSize(conn, len(first)+len(head)+64)
	_, _ = bw.Write(head)
	send := func(b []byte) error {
		_ = conn.SetWriteDeadline(time.Now().Add(speechWriteTimeout))
		fmt.Fprintf(bw, "%x\r\n", len(b))
		_, _ = bw.Write(b)
		_, _ = bw.WriteString("\r\n")
		return bw.Flush()
	}
	delivered, buf := false, make([]byte, cap(first))
	var readErr error // the upstream's outcome, acted on once the bytes read with it are sent
	for chunk := first; ; {
		if len(chunk) > 0 {
			if err := send(chunk); err != nil { // the client left (the deferred Close stops the upstream)
				cost := shlyuz.Credits(0)
				if delivered {
					cost = sp.cost()
				}
				settle(cost, shlyuz.GenerationCancelled, "cancelled")
				return
			}
			delivered = true
		}
		switch {
		case errors.Is(readErr, io.EOF):
			// Settled before the last chunk: a client that has the whole
			// speech finds its charge in GET /generation, and under durable
			// settlement a charge that could not be committed withholds it.
			receipt := sp.media.Settle(sp.cost(), shlyuz.Usage{}, shlyuz.GenerationCompleted, "stop")
			settled = true
			if receipt == nil || receipt.Err == nil {
				_, _ = bw.WriteString("0\r\n\r\n")
				_ = bw.Flush()
			}
			return
		case readErr != nil: // the upstream failed mid-speech: no last chunk, nothing charged
			sp.media.Fail(readErr)
			settled = true
			return
		}
		var n int
		n, readErr = sp.audio.Read(buf)
		chunk = buf[:n]
	}
}

// clientLeft reports whether the client closed its connection while the
// reply waited for the upstream: a read that ends at once (EOF or reset)
// rather than timing out.
func clientLeft(conn net.Conn) bool {
	if conn == nil {
		return false
	}
	if err := conn.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		return true
	}
	var b [1]byte
	n, err := conn.Read(b[:])
	_ = conn.SetReadDeadline(time.Time{})
	var ne net.Error
	return n == 0 && err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// applyPrefs applies OpenRouter's provider preferences to a media call.
func applyPrefs(call *actors.MediaCall, p *providerPrefs) {
	if p == nil {
		return
	}
	call.Order, call.Only, call.Ignore, call.Sort = p.Order, p.Only, p.Ignore, p.Sort
	if p.AllowFallbacks != nil {
		call.AllowFallbacks = *p.AllowFallbacks
	}
}

func (s *Server) audioRoutes(v1 fiber.Router) {
	v1.Post("/audio/transcriptions", s.authenticated, s.createTranscription)
	v1.Post("/audio/speech", s.authenticated, s.createSpeech)
}
