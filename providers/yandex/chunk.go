package yandex

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// chunker turns the native stream's objects, each carrying the whole text so
// far and running usage totals, into OpenAI chat.completion.chunk objects
// carrying only what is new. It reads the first alternative (the native API
// makes one).
type chunker struct {
	generationID string
	id           []byte // JSON string: our generation id
	model        []byte // JSON string: our public model id
	created      int64
	// clientUsage: the client asked for include_usage, so chunks carry a
	// "usage": null member as OpenAI's do (the gateway writes the usage chunk).
	clientUsage bool

	sent      string        // the text sent so far
	calls     int           // the tool calls sent so far
	started   bool          // an event went out
	finished  bool          // the alternative ended
	usage     *shlyuz.Usage // the latest usage reported
	delivered *shlyuz.Usage // the usage on the last event sent
	counted   int64         // completion tokens attributed to events so far
}

func newChunker(req *shlyuz.UpstreamRequest, created int64) *chunker {
	return &chunker{
		generationID: req.GenerationID,
		id:           plainjson.AppendString(nil, req.GenerationID),
		model:        plainjson.AppendString(nil, req.Model),
		created:      created,
		clientUsage:  clientAskedUsage(req.Fields["stream_options"]),
	}
}

func clientAskedUsage(so json.RawMessage) bool {
	var v struct {
		IncludeUsage bool `json:"include_usage"`
	}
	return present(so) && json.Unmarshal(so, &v) == nil && v.IncludeUsage
}

// step handles one stream object; skip means it produced nothing to send.
func (c *chunker) step(res *wireResult) (ev shlyuz.StreamEvent, skip bool, err *shlyuz.Error) {
	if res.Usage != nil {
		u := res.Usage.usage()
		c.usage = &u
	}
	if c.finished || len(res.Alternatives) == 0 {
		// Nothing more to say; a later usage still counts.
		if c.usage != nil && (c.delivered == nil || *c.usage != *c.delivered) {
			c.delivered = c.usage
			u := *c.usage
			return shlyuz.StreamEvent{Usage: &u}, false, nil
		}
		return ev, true, nil
	}
	a := &res.Alternatives[0]
	calls, cerr := a.toolCalls()
	if cerr != nil {
		return ev, false, upstream.Malformed("a tool call's arguments are not valid JSON")
	}
	finish := finishReason(a.Status, len(calls) > 0)

	text, delta := a.Message.Text, ""
	switch {
	case text == "":
		// A message that holds tool calls has no text; nothing was taken back.
	case strings.HasPrefix(text, c.sent):
		delta = text[len(c.sent):]
	case finish == "content_filter":
		// The text was replaced by a refusal: what was sent stays, the rest is withheld.
		text = c.sent
	default:
		return ev, false, shlyuz.ErrUpstream("The upstream's stream changed text it had already sent.")
	}
	var newCalls []toolCall
	if len(calls) > c.calls {
		newCalls = calls[c.calls:]
	}
	if delta == "" && len(newCalls) == 0 && finish == "" {
		return ev, true, nil
	}

	var tokens int64
	if res.Usage != nil {
		tokens = max(0, c.usage.CompletionTokens-c.counted)
	} else if delta != "" || len(newCalls) > 0 {
		tokens = 1
	}
	c.counted += tokens

	b := make([]byte, 0, 192+len(c.id)+len(c.model)+len(delta))
	b = append(b, `{"id":`...)
	b = append(b, c.id...)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, c.created, 10)
	b = append(b, `,"model":`...)
	b = append(b, c.model...)
	b = append(b, `,"choices":[{"index":0,"delta":{`...)
	sep := false
	if !c.started {
		b = append(b, `"role":"assistant"`...)
		sep = true
	}
	if delta != "" || (!c.started && len(newCalls) == 0) {
		if sep {
			b = append(b, ',')
		}
		b = append(b, `"content":`...)
		b = plainjson.AppendString(b, delta)
		sep = true
	}
	if len(newCalls) > 0 {
		if sep {
			b = append(b, ',')
		}
		if !c.started && delta == "" {
			b = append(b, `"content":null,`...)
		}
		b = append(b, `"tool_calls":`...)
		b = appendToolCalls(b, c.generationID, newCalls, c.calls, true)
	}
	b = append(b, '}')
	b = upstream.AppendChunkEnd(b, finish, c.clientUsage)

	if text != "" {
		c.sent = text
	}
	c.calls = len(calls)
	c.started = true
	if finish != "" {
		c.finished = true
	}
	ev = shlyuz.StreamEvent{Data: b, FinishReason: finish, CompletionTokens: tokens}
	if c.usage != nil {
		u := *c.usage
		ev.Usage = &u
		c.delivered = c.usage
	}
	return ev, false, nil
}
