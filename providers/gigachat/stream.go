package gigachat

import (
	"bytes"
	"encoding/json"
	"io"
	"time"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/sse"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// maxLine bounds one line of GigaChat's SSE stream.
const maxLine = 16 << 20

// newStream reads GigaChat's SSE stream. Its comments are skipped without
// counting as signs of life.
func newStream(body *upstream.Body, tr *translator) *sse.Stream {
	return sse.NewStream(body, &decoder{tr: tr}, sse.Config{MaxLine: maxLine, QuietComments: true})
}

// decoder reads the stream's events through the translator.
type decoder struct {
	tr        *translator
	sawFinish bool
	sawUsage  bool
}

// End handles the upstream closing the stream without [DONE].
func (d *decoder) End() error {
	if d.sawFinish {
		return io.EOF
	}
	return upstream.EndedEarly()
}

// Decode handles the data of one event; skip means it produced nothing to send.
func (d *decoder) Decode(event sse.Event) (ev shlyuz.StreamEvent, skip bool, err error) {
	payload := event.Data
	if len(payload) == 0 {
		return ev, true, nil
	}
	if bytes.Equal(payload, []byte("[DONE]")) {
		if !d.sawFinish && !d.sawUsage {
			return ev, false, upstream.EndedEarly()
		}
		return ev, false, io.EOF
	}
	res := d.tr.translate(payload)
	if res.err != nil {
		return ev, false, res.err
	}
	if res.usage != nil {
		d.sawUsage = true
	}
	if res.finish != "" {
		d.sawFinish = true
	}
	if res.data == nil && res.usage == nil {
		return ev, true, nil
	}
	return shlyuz.StreamEvent{
		Data:             res.data,
		Usage:            res.usage,
		FinishReason:     res.finish,
		CompletionTokens: res.tokens,
	}, false, nil
}

// translator turns GigaChat's chunks into OpenAI chat.completion.chunk
// objects carrying our generation id and model id. Usage is taken out: the
// gateway writes the final usage chunk itself.
type translator struct {
	genID   string
	model   string
	now     func() time.Time
	started map[int]bool // choices whose role was sent
	called  map[int]bool // choices that called a function
}

func newTranslator(genID, model string, now func() time.Time) *translator {
	return &translator{genID: genID, model: model, now: now, started: map[int]bool{}, called: map[int]bool{}}
}

type gcChunk struct {
	Choices []gcChoice `json:"choices"`
	Created int64      `json:"created"`
	Usage   *gcUsage   `json:"usage"`
}

type oaChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []oaChunkChoice `json:"choices"`
}

type oaChunkChoice struct {
	Index        int     `json:"index"`
	Delta        oaDelta `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type oaDelta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []oaOutToolCall `json:"tool_calls,omitempty"`
}

// chunkResult is what one upstream chunk says.
type chunkResult struct {
	data   []byte // the OpenAI chunk, nil when there is nothing to send
	usage  *shlyuz.Usage
	finish string
	tokens int64 // estimated completion tokens of the chunk
	err    *shlyuz.Error
}

// translate reads one chunk (the payload of an SSE data event).
func (t *translator) translate(payload []byte) (res chunkResult) {
	if payload[0] != '{' {
		res.err = upstream.Malformed("a stream chunk is not a JSON object")
		return res
	}
	var c gcChunk
	if err := json.Unmarshal(payload, &c); err != nil {
		res.err = upstream.Malformed("a stream chunk is not valid JSON")
		res.err.Cause = err
		return res
	}
	if c.Choices == nil && c.Usage == nil {
		if e := bodyError(payload); e != nil {
			res.err = e
		} else {
			res.err = upstream.Malformed("a stream chunk has no choices")
		}
		return res
	}
	if c.Usage != nil {
		u := c.Usage.usage()
		res.usage = &u
	}
	out := oaChunk{ID: t.genID, Object: "chat.completion.chunk", Created: c.Created, Model: t.model}
	if out.Created == 0 {
		out.Created = t.now().Unix()
	}
	for _, ch := range c.Choices {
		d := ch.Delta
		var od oaDelta
		if !t.started[ch.Index] {
			t.started[ch.Index] = true
			od.Role = "assistant"
		}
		if d.Content != "" {
			content := d.Content
			od.Content = &content
			res.tokens += estimateTokens(d.Content)
		}
		if d.ReasoningContent != "" {
			od.ReasoningContent = d.ReasoningContent
			res.tokens += estimateTokens(d.ReasoningContent)
		}
		if fc := d.FunctionCall; fc != nil && fc.Name != "" {
			t.called[ch.Index] = true
			tc := toolCall(t.genID, ch.Index, fc, d.FunctionsStateID)
			zero := 0
			tc.Index = &zero
			od.ToolCalls = []oaOutToolCall{tc}
			res.tokens += estimateTokens(fc.Name) + estimateTokens(tc.Function.Arguments)
		}
		if od.Role != "" && od.Content == nil && od.ToolCalls == nil {
			empty := ""
			od.Content = &empty
		}
		var finish *string
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			f := finishReason(*ch.FinishReason)
			if f == "stop" && t.called[ch.Index] {
				f = "tool_calls"
			}
			finish = &f
			if res.finish == "" {
				res.finish = f
			}
		}
		if od.Role == "" && od.Content == nil && od.ReasoningContent == "" && od.ToolCalls == nil && finish == nil {
			continue // an empty delta: nothing to say
		}
		out.Choices = append(out.Choices, oaChunkChoice{Index: ch.Index, Delta: od, FinishReason: finish})
	}
	if len(out.Choices) == 0 {
		return res
	}
	b, err := plainjson.Marshal(&out)
	if err != nil {
		res.err = shlyuz.ErrInternal(err)
		return res
	}
	res.data = b
	return res
}

// estimateTokens guesses the tokens of a piece of text (GigaChat streams
// phrases, not tokens): a quarter of its characters, at least one. It bills
// a stream cut before the upstream reported its usage.
func estimateTokens(s string) int64 {
	return int64(max(1, utf8.RuneCountInString(s)/4))
}
