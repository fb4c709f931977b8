package fake

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// Ask is a request in neutral terms: what every protocol's handler reads from
// its native request before the fake decides its answer.
type Ask struct {
	Model            string
	Prompt           Prompt
	MaxTokens        *int64     // the request's output ceiling, if any
	Tools            []string   // names of the tools offered
	LastIsToolResult bool       // the last message carries a tool's result
	Usage            ExtraUsage // asked for by a UsageMarker
	N                int        // choices asked for (OpenAI n, Gemini candidateCount); 0: one
	// Conversation tells one conversation from another (FaultRateOnce): the
	// model and the last message; "" when the protocol does not say.
	Conversation string
	// WebSearches are the searches the request's server tools run (Anthropic's web search).
	WebSearches int
	JSON        string // set: the reply is this JSON text (structured output asked for)
	// ToolArguments, when set, are the arguments of the tool call: the
	// request forces a tool, and these satisfy its schema.
	ToolArguments string
}

// Prompt counts a request's prompt the fake's way: text characters / 4 (at
// least 1) plus 85 per image, plus the tokens of documents, video and its
// sound counted as the provider documents them (media_usage.go).
type Prompt struct{ Chars, Images, Document, Video, Audio int }

// Tokens is the prompt's token count.
func (p Prompt) Tokens() int { return max(1, p.Chars/4) + 85*p.Images + p.Media() }

// Media is the prompt's tokens of documents, video and sound.
func (p Prompt) Media() int { return p.Document + p.Video + p.Audio }

// Script is what the fake answers to one request, whatever the protocol.
type Script struct {
	Fault        string
	ID           string
	Created      int64
	Tokens       int        // completion tokens: the words of Text, or the tool call's cost
	Finish       string     // "stop", "length" or "tool_calls" (OpenAI's names; protocols map them)
	PromptTokens int        // the fresh prompt (see Prompt for the whole)
	Extra        ExtraUsage // usage reported on top (see UsageMarker)
	N            int        // choices; 0: one
	ToolCall     *ToolCall  // set: the reply calls this tool instead of saying text
	JSON         string     // set: the reply's text is this JSON (Ask.JSON), Tokens its cost
}

// ToolCall is the fake's tool call: the first tool offered, with fixed arguments.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // a JSON object as text
}

// ToolArguments are the arguments of every fake tool call.
const ToolArguments = `{"city":"Moscow"}`

// ToolCallTokens is what a fake tool call costs in completion tokens.
const ToolCallTokens = 5

// Script decides the answer: text "tok0 tok1 …" of Options.ReplyTokens words
// (capped by MaxTokens, then finish "length"), or, when tools are offered and
// the last message is not a tool result, a call of the first tool. The fault
// comes from the X-Fake-Fault header or "fault-<name>" in the model name.
func (s *Server) Script(r *http.Request, a Ask) *Script {
	n := s.opts.ReplyTokens
	if v := r.Header.Get(ReplyTokensHeader); v != "" {
		if k, err := strconv.Atoi(v); err == nil && k >= 0 {
			n = k
		}
	}
	sc := &Script{
		Fault:        FaultOf(r, a.Model),
		ID:           strconv.FormatUint(s.seq.Add(1), 10),
		Created:      time.Now().Unix(),
		Tokens:       n,
		Finish:       "stop",
		PromptTokens: a.Prompt.Tokens(),
		Extra:        a.Usage,
		N:            a.N,
	}
	if sc.Fault == FaultRateOnce {
		if _, seen := s.once.LoadOrStore(a.Conversation, true); seen {
			sc.Fault = ""
		}
	}
	if len(a.Tools) > 0 && !a.LastIsToolResult {
		args := ToolArguments
		if a.ToolArguments != "" {
			args = a.ToolArguments
		}
		sc.ToolCall = &ToolCall{ID: "call_fake_" + sc.ID, Name: a.Tools[0], Arguments: args}
		sc.Tokens, sc.Finish = ToolCallTokens, "tool_calls"
		return sc
	}
	if a.JSON != "" { // structured output: the whole object, whatever the reply length asked
		sc.JSON, sc.Tokens = a.JSON, max(1, (len(a.JSON)+3)/4)
		return sc
	}
	if a.MaxTokens != nil && *a.MaxTokens >= 0 && *a.MaxTokens < int64(n) {
		sc.Tokens, sc.Finish = int(*a.MaxTokens), "length"
	}
	return sc
}

// Text is the whole text reply.
func (sc *Script) Text() string {
	var b []byte
	for i := 0; i < sc.Tokens; i++ {
		b = appendToken(b, i)
	}
	return string(b)
}

// ReplyText is the text a reply says: the JSON asked for, or the words.
func (sc *Script) ReplyText() string {
	if sc.JSON != "" {
		return sc.JSON
	}
	return sc.Text()
}

// Token is the text of word i as streamed: "tok0", " tok1", …
func Token(i int) string { return string(appendToken(nil, i)) }

// StreamStop is how many words a stream sends before a fault that interrupts
// it (cut, malformed, midstream-error, stall): half, at least one.
func (sc *Script) StreamStop() int {
	switch sc.Fault {
	case FaultCut, FaultMalformed, FaultMidstreamError, FaultStall:
		return min(sc.Tokens, max(1, sc.Tokens/2))
	}
	return sc.Tokens
}

// FaultOf is the fault a request asks for.
func FaultOf(r *http.Request, model string) string {
	if f := r.Header.Get(FaultHeader); f != "" {
		return f
	}
	return faultFromModel(model)
}

// StatusOf is the HTTP status a fault answers with before any byte (0: none).
// Quota faults say so: each protocol words its quota error its own way.
func StatusOf(fault string) (status int, quota bool) {
	switch fault {
	case Fault500:
		return 500, false
	case Fault429:
		return 429, false
	case FaultQuota:
		return 429, true
	}
	if st, err := strconv.Atoi(fault); err == nil && st >= 400 && st <= 599 {
		return st, false
	}
	return 0, false
}

// Begin applies Options.Latency and the faults that delay or withhold the
// whole answer (hang, slow). It returns false when the request is over.
func (s *Server) Begin(ctx context.Context, fault string) bool {
	if fault == FaultHang {
		s.hold(ctx)
		return false
	}
	delay := s.opts.Latency
	if fault == FaultSlow {
		delay += SlowDelay
	}
	return s.wait(ctx, delay)
}

// Pace waits between two streamed words (Options.TokensPerSec); false when the client left.
func (s *Server) Pace(ctx context.Context, t *time.Ticker) bool {
	if t == nil {
		return true
	}
	return s.await(ctx, t.C)
}

// Pacer is the ticker for Pace, or nil when streams are not paced. Stop it when done.
func (s *Server) Pacer() *time.Ticker {
	if s.opts.TokensPerSec <= 0 {
		return nil
	}
	return time.NewTicker(time.Second / time.Duration(s.opts.TokensPerSec))
}

// Hold keeps a request until the client goes away (the stall fault after some words).
func (s *Server) Hold(ctx context.Context) { s.hold(ctx) }

// Abort drops the connection (the cut fault).
func Abort() { panic(http.ErrAbortHandler) }

// Remember records a request for LastRequest and LastHeader and calls OnRequest.
func (s *Server) Remember(r *http.Request, body []byte) {
	s.last.Store(&body)
	h := r.Header.Clone()
	s.lastHeader.Store(&h)
	if s.opts.OnRequest != nil {
		s.opts.OnRequest(r, body)
	}
}
