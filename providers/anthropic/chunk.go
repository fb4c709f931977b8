package anthropic

import (
	"encoding/json"
	"strconv"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// chunkWriter builds the OpenAI chat.completion.chunk objects of one stream,
// stamped with our generation id, model id and the stream's creation time.
type chunkWriter struct {
	prefix      []byte // `{"id":…,"object":"chat.completion.chunk","created":…,"model":…,"choices":[{"index":0,"delta":`
	clientUsage bool   // the client asked include_usage: chunks carry "usage": null, as OpenAI's do
}

func newChunkWriter(generationID, model string, created int64, clientUsage bool) *chunkWriter {
	b := make([]byte, 0, 128+len(generationID)+len(model))
	b = append(b, `{"id":`...)
	b = plainjson.AppendString(b, generationID)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	b = plainjson.AppendString(b, model)
	b = append(b, `,"choices":[{"index":0,"delta":`...)
	return &chunkWriter{prefix: b, clientUsage: clientUsage}
}

// chunk is a chunk whose delta is the JSON object delta; finish is OpenAI's
// finish_reason or "" for null.
func (c *chunkWriter) chunk(delta []byte, finish string) []byte {
	b := make([]byte, 0, len(c.prefix)+len(delta)+64)
	b = append(b, c.prefix...)
	b = append(b, delta...)
	return upstream.AppendChunkEnd(b, finish, c.clientUsage)
}

// role is the first chunk: the assistant's role and empty content.
func (c *chunkWriter) role() []byte {
	return c.chunk([]byte(`{"role":"assistant","content":""}`), "")
}

// text is a content delta; s is a JSON string literal, spliced as is.
func (c *chunkWriter) text(s json.RawMessage) []byte {
	d := make([]byte, 0, len(s)+16)
	d = append(d, `{"content":`...)
	d = append(d, s...)
	return c.chunk(append(d, '}'), "")
}

// toolStart opens tool call index with its id and name.
func (c *chunkWriter) toolStart(index int, id, name string) []byte {
	d := make([]byte, 0, 96+len(id)+len(name))
	d = append(d, `{"tool_calls":[{"index":`...)
	d = strconv.AppendInt(d, int64(index), 10)
	d = append(d, `,"id":`...)
	d = plainjson.AppendString(d, id)
	d = append(d, `,"type":"function","function":{"name":`...)
	d = plainjson.AppendString(d, name)
	d = append(d, `,"arguments":""}}]}`...)
	return c.chunk(d, "")
}

// toolArgs is a fragment of tool call index's arguments; frag is a JSON string literal.
func (c *chunkWriter) toolArgs(index int, frag json.RawMessage) []byte {
	d := make([]byte, 0, 64+len(frag))
	d = append(d, `{"tool_calls":[{"index":`...)
	d = strconv.AppendInt(d, int64(index), 10)
	d = append(d, `,"function":{"arguments":`...)
	d = append(d, frag...)
	d = append(d, `}}]}`...)
	return c.chunk(d, "")
}

// finish is the chunk that ends the choice.
func (c *chunkWriter) finish(reason string) []byte {
	return c.chunk([]byte(`{}`), reason)
}

// streamUsage keeps a stream's usage as Anthropic reports it: the prompt in
// message_start, cumulative counts in each message_delta (replaced, never added).
type streamUsage struct {
	reported bool // the upstream reported any usage
	final    bool // a message_delta reported the output count
	w        wireUsage
	counted  int64 // content events seen
}

// start takes message_start's usage.
func (u *streamUsage) start(w *wireUsage) {
	if w == nil {
		return
	}
	u.reported = true
	u.w = *w
}

// delta takes a message_delta's cumulative usage.
func (u *streamUsage) delta(w *deltaUsage) {
	if w == nil {
		return
	}
	u.reported, u.final = true, true
	if w.OutputTokens != nil {
		u.w.OutputTokens = *w.OutputTokens
	}
	// The input counts are cumulative too: when present they update
	// message_start's, but a zero some servers send never erases them.
	if w.InputTokens != nil {
		u.w.InputTokens = max(u.w.InputTokens, *w.InputTokens)
	}
	if w.CacheCreationInputTokens != nil {
		u.w.CacheCreationInputTokens = max(u.w.CacheCreationInputTokens, *w.CacheCreationInputTokens)
	}
	if w.CacheReadInputTokens != nil {
		u.w.CacheReadInputTokens = max(u.w.CacheReadInputTokens, *w.CacheReadInputTokens)
	}
	if w.CacheCreation != nil {
		u.w.CacheCreation = w.CacheCreation
	}
	if w.ServerToolUse != nil { // cumulative as the rest
		u.w.ServerToolUse = w.ServerToolUse
	}
}

// current is the running total, or nil when the upstream reported none.
// Until the final count arrives, the completion is at least what the stream
// carried so far, so that a stream cut by the client is billed for it.
func (u *streamUsage) current() *shlyuz.Usage {
	if !u.reported {
		return nil
	}
	r := u.w.usage()
	if !u.final && u.counted > r.CompletionTokens {
		r.CompletionTokens = u.counted
		r.TotalTokens = r.PromptTokens + r.CompletionTokens
	}
	return &r
}

// deltaUsage is message_delta's usage; absent counts stay nil.
type deltaUsage struct {
	OutputTokens             *int64         `json:"output_tokens"`
	InputTokens              *int64         `json:"input_tokens"`
	CacheCreationInputTokens *int64         `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64         `json:"cache_read_input_tokens"`
	CacheCreation            *cacheCreation `json:"cache_creation"`
	ServerToolUse            *serverToolUse `json:"server_tool_use"`
}
