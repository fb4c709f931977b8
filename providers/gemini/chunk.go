package gemini

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// toolCall is a functionCall part in OpenAI's terms. Gemini gives function
// calls no ids, so the adapter makes them: "call_<generation>_<n>", n
// counting the calls of the reply, plus the part's thought signature when it
// has one (see sigSep).
type toolCall struct {
	id   string
	name string
	args []byte // a JSON object
}

func newToolCall(generationID string, n string, p *part) toolCall {
	id := "call_"
	if g := strings.TrimPrefix(generationID, "gen-"); g != "" {
		id += g + "_"
	}
	id += n
	if p.ThoughtSignature != "" {
		id += sigSep + p.ThoughtSignature
	}
	args := []byte("{}")
	if a := bytes.TrimSpace(p.FunctionCall.Args); len(a) > 0 && !isNull(a) {
		var buf bytes.Buffer
		if json.Compact(&buf, a) == nil {
			args = buf.Bytes()
		}
	}
	return toolCall{id: id, name: p.FunctionCall.Name, args: args}
}

// appendJSON appends the OpenAI tool call; index >= 0 adds the "index" a
// stream delta carries.
// appendImages writes the image parts of a reply as OpenRouter's
// "images":[{"type":"image_url","image_url":{"url":"data:…"}}], led by a
// comma when sep; it reports whether there was any.
func appendImages(b []byte, parts []part, sep bool) ([]byte, bool) {
	n := 0
	for i := range parts {
		p := &parts[i]
		if p.Thought || p.InlineData == nil || !strings.HasPrefix(p.InlineData.MimeType, "image/") {
			continue
		}
		if n == 0 {
			if sep {
				b = append(b, ',')
			}
			b = append(b, `"images":[`...)
		} else {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"type":"image_url","image_url":{"url":`...)
		b = plainjson.AppendString(b, "data:"+p.InlineData.MimeType+";base64,"+p.InlineData.Data)
		b = append(b, "}}"...)
	}
	if n > 0 {
		b = append(b, ']')
	}
	return b, n > 0
}

func (tc *toolCall) appendJSON(b []byte, index int) []byte {
	b = append(b, '{')
	if index >= 0 {
		b = append(b, `"index":`...)
		b = strconv.AppendInt(b, int64(index), 10)
		b = append(b, ',')
	}
	b = append(b, `"id":`...)
	b = plainjson.AppendString(b, tc.id)
	b = append(b, `,"type":"function","function":{"name":`...)
	b = plainjson.AppendString(b, tc.name)
	b = append(b, `,"arguments":`...)
	b = plainjson.AppendString(b, string(tc.args))
	return append(b, "}}"...)
}

// chunker turns the chunks of a Gemini stream into OpenAI chunks; each
// candidate (candidateCount, the client's n) is a choice of its own.
type chunker struct {
	thoughts     bool // the request asked for the reasoning text
	generationID string
	prefix       []byte // {"id":…,"object":"chat.completion.chunk","created":…,"model":…,"choices":[
	clientUsage  bool   // the client asked for usage: chunks carry "usage":null, as OpenAI's do
	choices      map[int]*choiceState
	counted      int64 // completion tokens reported through CompletionTokens so far
	finished     bool  // a candidate finished
	perQuery     bool  // grounding is billed per search query (grounding.go)
	searches     int64 // the most grounding searches seen so far
}

// choiceState is what a stream said so far of one candidate.
type choiceState struct {
	roleSent bool
	calls    int // function calls so far
}

func newChunker(req *shlyuz.UpstreamRequest, created int64) *chunker {
	c := &chunker{generationID: req.GenerationID, choices: map[int]*choiceState{}, thoughts: showsThoughts(req.Fields),
		perQuery: searchesPerQuery(req.UpstreamModel)}
	var so struct {
		IncludeUsage bool `json:"include_usage"`
	}
	if raw, ok := present(req.Fields, "stream_options"); ok && json.Unmarshal(raw, &so) == nil {
		c.clientUsage = so.IncludeUsage
	}
	b := append([]byte(nil), `{"id":`...)
	b = plainjson.AppendString(b, req.GenerationID)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	b = plainjson.AppendString(b, req.Model)
	b = append(b, `,"choices":[`...)
	c.prefix = b
	return c
}

// convert handles one Gemini chunk; skip means it produced nothing to send.
func (c *chunker) convert(w *wireResponse) (ev shlyuz.StreamEvent, skip bool, err *shlyuz.Error) {
	if w.Error != nil {
		return ev, false, w.Error.streamError()
	}
	c.searches = max(c.searches, searchesOf(w.Candidates, c.perQuery))
	if w.UsageMetadata != nil {
		u := w.UsageMetadata.usage()
		u.WebSearches = c.searches
		ev.Usage = &u
	}
	if len(w.Candidates) == 0 {
		if w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "" {
			return ev, false, blockedError(w.PromptFeedback)
		}
		if ev.Usage == nil {
			return ev, true, nil
		}
		ev.CompletionTokens = c.tokens(ev.Usage, false)
		return ev, false, nil // a usage-only chunk
	}
	var b []byte
	hasContent := false
	for i := range w.Candidates {
		cand := &w.Candidates[i]
		choice, content, finish := c.appendChoice(b, cand, len(b) > 0)
		if choice == nil {
			continue
		}
		b, hasContent = choice, hasContent || content
		if finish != "" {
			ev.FinishReason = finish
		}
	}
	ev.CompletionTokens = c.tokens(ev.Usage, hasContent)
	if b == nil {
		if ev.Usage == nil {
			return ev, true, nil
		}
		return ev, false, nil // thinking, or an empty part: only its usage counts
	}
	out := make([]byte, 0, len(c.prefix)+len(b)+32)
	out = append(out, c.prefix...)
	out = append(out, b...)
	out = append(out, ']')
	if c.clientUsage {
		out = append(out, `,"usage":null`...)
	}
	ev.Data = append(out, '}')
	return ev, false, nil
}

// appendChoice appends the OpenAI choice of one candidate's chunk (led by a
// comma when sep), or returns nil when the candidate said nothing and did
// not finish; content reports whether it said anything.
func (c *chunker) appendChoice(b []byte, cand *candidate, sep bool) (out []byte, content bool, finish string) {
	st := c.choices[cand.Index]
	if st == nil {
		st = &choiceState{}
		c.choices[cand.Index] = st
	}
	var text, reasoning strings.Builder
	var calls []toolCall
	var parts []part
	if cand.Content != nil {
		parts = cand.Content.Parts
		for i := range parts {
			p := &parts[i]
			switch {
			case p.Thought:
				if c.thoughts {
					reasoning.WriteString(p.Text)
				}
			case p.FunctionCall != nil:
				calls = append(calls, newToolCall(c.generationID, callNumber(cand.Index, st.calls+len(calls)), p))
			default:
				text.WriteString(p.Text)
			}
		}
	}
	first := st.calls
	st.calls += len(calls)
	finish = finishReason(cand.FinishReason, st.calls > 0)
	images, hasImages := appendImages(nil, parts, false)
	content = text.Len() > 0 || len(calls) > 0 || hasImages || reasoning.Len() > 0
	if !content && finish == "" {
		return nil, false, ""
	}
	if sep {
		b = append(b, ',')
	}
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(cand.Index), 10)
	b = append(b, `,"delta":{`...)
	sepField := false
	if !st.roleSent {
		st.roleSent = true
		b = append(b, `"role":"assistant","content":`...)
		if text.Len() == 0 && len(calls) > 0 {
			b = append(b, "null"...)
		} else {
			b = plainjson.AppendString(b, text.String())
		}
		sepField = true
	} else if text.Len() > 0 {
		b = append(b, `"content":`...)
		b = plainjson.AppendString(b, text.String())
		sepField = true
	}
	if reasoning.Len() > 0 {
		if sepField {
			b = append(b, ',')
		}
		b = append(b, `"reasoning":`...)
		b = plainjson.AppendString(b, reasoning.String())
		sepField = true
	}
	if len(calls) > 0 {
		if sepField {
			b = append(b, ',')
		}
		b = append(b, `"tool_calls":[`...)
		for i := range calls {
			if i > 0 {
				b = append(b, ',')
			}
			b = calls[i].appendJSON(b, first+i)
		}
		b = append(b, ']')
		sepField = true
	}
	if hasImages {
		if sepField {
			b = append(b, ',')
		}
		b = append(b, images...)
	}
	b = append(b, '}')
	b = upstream.AppendFinish(b, finish)
	if finish != "" {
		c.finished = true
	}
	return append(b, '}'), content, finish
}

// callNumber numbers a candidate's call n in the tool call ids: the first
// candidate's calls 0, 1, …; another candidate's "<index>-<n>", so that ids
// stay unique across choices.
func callNumber(index, n int) string {
	if index == 0 {
		return strconv.Itoa(n)
	}
	return strconv.Itoa(index) + "-" + strconv.Itoa(n)
}

// tokens is the completion tokens an event carried: the growth of the
// running usage when the chunk has usage, else one per content-bearing chunk.
func (c *chunker) tokens(u *shlyuz.Usage, hasContent bool) int64 {
	if u != nil {
		d := max(0, u.CompletionTokens-c.counted)
		c.counted += d
		return d
	}
	if hasContent {
		c.counted++
		return 1
	}
	return 0
}

// blockedError is a prompt Gemini refused to answer (promptFeedback.blockReason).
func blockedError(pf *promptFeedback) *shlyuz.Error {
	detail := ""
	if m := upstream.Clip(pf.BlockReasonMessage); m != "" {
		detail = ": " + m
	}
	e := shlyuz.ErrInvalidValue("messages",
		"The upstream refused to answer this prompt (blocked for %s%s). Rephrase the prompt; nothing was charged.",
		safeWord(pf.BlockReason), detail)
	e.Code = "content_filter"
	return e
}
