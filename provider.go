package shlyuz

import (
	"context"
	"encoding/json"
)

// UpstreamRequest is a chat request on its way to one upstream. Fields holds the
// client's body at the top level, untouched, so that adapters pass through what
// they do not know; the typed fields are what the gateway decided.
type UpstreamRequest struct {
	GenerationID  string                     // our id, stamped on every reply
	Model         string                     // our public model id, echoed to the client
	UpstreamModel string                     // the model's name at the upstream
	Fields        map[string]json.RawMessage // the client's request body, top level
	MaxTokens     int64                      // the completion ceiling to send upstream (reserved for)
	Stream        bool
	Native        *NativeRequest // set: the client spoke this protocol (native.go)
	// Room, when set, lends the buffer around Fields[Room.Key] for the call:
	// an adapter may write its body there rather than copy the value
	// (internal/bodyroom).
	Room *BodyRoom
	// ExtraParameters are the parameters the operator says the upstream
	// takes beyond its protocol's (UpstreamConfig.Parameters).
	ExtraParameters []string
}

// BodyRoom is the buffer holding the value of a request's field Key
// (UpstreamRequest.Fields[Key]), lent to the adapter for the length of one
// call: nothing else reads the buffer meanwhile.
type BodyRoom struct {
	Key string
	Buf []byte // the whole buffer, to its capacity
}

// ChatResponse is a finished, non-streamed completion in OpenAI's shape, minus
// the parts the gateway writes itself (id, model, usage).
type ChatResponse struct {
	Created           int64           // unix seconds
	Choices           json.RawMessage // OpenAI's choices array
	SystemFingerprint string
	Usage             Usage
	FinishReason      string // of the first choice
	// Native is the upstream's reply in the request's native protocol, when
	// the adapter served UpstreamRequest.Native as is; Choices is then still set.
	Native json.RawMessage
}

// StreamEvent is one step of a streamed completion. Data is a complete OpenAI
// chat.completion.chunk JSON object, already carrying our generation id and
// model id, or nil when the event carries only usage. The adapter never emits
// the final usage chunk itself: the gateway writes it after settling.
type StreamEvent struct {
	Data             []byte
	Usage            *Usage // set when the upstream reported usage (running totals are replaced, not added)
	FinishReason     string // set on the chunk that finished a choice
	CompletionTokens int64  // tokens this event carried, when the adapter can tell (for billing a cut stream)
	// Native is the upstream's event in the request's native protocol, framed
	// as SSE ("event: …\ndata: …\n\n"; Gemini's: one chunk's JSON on one
	// line, which the client's form frames as an event or an array element),
	// when the adapter served UpstreamRequest.Native as is; Data may then be nil.
	Native []byte
}

// ChatStream is an open upstream stream. Next returns io.EOF at the normal end,
// an *Error on a failure. Close releases the connection and may be called at any time.
type ChatStream interface {
	Next() (StreamEvent, error)
	Close() error
}

// Provider speaks one upstream protocol. Errors are *Error values; those with
// UpstreamFault set count against the upstream's breaker and allow fallback.
type Provider interface {
	Chat(ctx context.Context, req *UpstreamRequest) (*ChatResponse, error)
	ChatStream(ctx context.Context, req *UpstreamRequest) (ChatStream, error)
}
