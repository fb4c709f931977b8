package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/bodyroom"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/sse"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// nativeBody is the client's own Messages body with the gateway's model,
// completion ceiling and stream flag: everything else (cache_control,
// thinking, tools, documents, betas' fields) goes as the client wrote it,
// byte for byte (each member a span of the client's validated body), in key
// order, with one copy and no pass over the values.
func nativeBody(req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest, stream bool) []byte {
	return nativeBodyWithout(req, n, stream, "")
}

// nativeBodyWithout is nativeBody without the client's member omit ("": none).
func nativeBodyWithout(req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest, stream bool, omit string) []byte {
	own := map[string][]byte{"model": plainjson.AppendString(nil, req.UpstreamModel)}
	if req.MaxTokens > 0 {
		own["max_tokens"] = strconv.AppendInt(nil, req.MaxTokens, 10)
		if th := lowerThinking(n.Body, req.MaxTokens); th != nil {
			own["thinking"] = th
		}
	}
	if stream {
		own["stream"] = []byte("true")
	}
	keys := make([]string, 0, len(n.Body)+len(own))
	size := 1
	for k, v := range n.Body {
		if _, mine := own[k]; !mine && k != "stream" && (k != omit || omit == "") {
			keys = append(keys, k)
			size += len(k) + len(v) + 4
		}
	}
	for k, v := range own {
		keys = append(keys, k)
		size += len(k) + len(v) + 4
	}
	slices.Sort(keys)
	body := make([]byte, 0, size)
	for _, k := range keys { // "model" is one: never empty
		v, mine := own[k]
		if !mine {
			v = n.Body[k]
		}
		body = append(plainjson.AppendString(append(body, ','), k), ':')
		body = append(body, v...)
	}
	body[0] = '{'
	return append(body, '}')
}

// nativeStreamMin is the smallest messages member a stream sends where the
// client's body holds it, not copied into the body: below it a copy costs
// little.
const nativeStreamMin = 32 << 10

// nativeStreamBody is the streamed call's body: in parts
// (bodyroom.MemberFirst), the client's messages in the middle as its body
// holds them, when they are large (a coding agent's context: nothing copies
// them), else whole. A stream keeps the client's body until it ends, and the
// parts are only read.
func nativeStreamBody(req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest) (body []byte, parts [][]byte) {
	msgs := n.Body["messages"]
	if len(msgs) < nativeStreamMin {
		return nativeBody(req, n, true), nil
	}
	return nil, bodyroom.MemberFirst("messages", msgs, nativeBodyWithout(req, n, true, "messages"))
}

// nativeHeader is the adapter's headers and the client's protocol headers.
func (p *Provider) nativeHeader(n *shlyuz.NativeRequest) http.Header {
	if len(n.Headers) == 0 {
		return p.header
	}
	h := p.header.Clone()
	for k, v := range n.Headers {
		h.Set(k, v)
	}
	return h
}

// nativeChat sends a Messages request as is and keeps Anthropic's reply
// whole in Native; its usage and finish are read as for a chat reply.
func (p *Provider) nativeChat(ctx context.Context, req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest) (*shlyuz.ChatResponse, error) {
	body := nativeBody(req, n, false)
	data, err := p.callWith(p.nativeHeader(n), body, false).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	r, err := decodeReply(data, options{})
	if err != nil {
		return nil, err
	}
	r.Created = p.now().Unix()
	r.Native = data
	return r, nil
}

// nativeStream opens a streamed Messages request whose events are passed on
// as Anthropic sent them (Native), read for usage and finish on the way.
func (p *Provider) nativeStream(ctx context.Context, req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest) (shlyuz.ChatStream, error) {
	body, parts := nativeStreamBody(req, n)
	send := upstream.Post(p.client, p.url, p.nativeHeader(n), body, upstream.Accept(true))
	if parts != nil {
		send = upstream.PostParts(p.client, p.url, p.nativeHeader(n), parts, upstream.Accept(true))
	}
	b, err := p.callSend(send).Open(ctx)
	if err != nil {
		return nil, err
	}
	cw := newChunkWriter(req.GenerationID, req.Model, p.now().Unix(), false)
	return sse.NewStream(b, &nativeDecoder{decoder{cw: cw}}, sse.Config{SkipsAlive: true}), nil
}

// nativeDecoder reads Anthropic's events as decoder does (usage, finish,
// failures) and carries each event itself on. Pings and message_stop are
// not carried: the gateway sends its own, the last after the settlement.
type nativeDecoder struct {
	decoder
}

// Decode handles one event.
func (nd *nativeDecoder) Decode(e sse.Event) (shlyuz.StreamEvent, bool, error) {
	ev, _, err := nd.decoder.Decode(e)
	if err != nil || string(e.Name) == "ping" || len(e.Data) == 0 {
		return ev, err == nil, err
	}
	b := make([]byte, 0, len(e.Name)+len(e.Data)+16)
	if len(e.Name) > 0 {
		b = append(append(append(b, "event: "...), e.Name...), '\n')
	}
	data := e.Data
	if bytes.IndexByte(data, '\n') >= 0 { // data lines joined: one line again (JSON's white space)
		data = bytes.ReplaceAll(data, []byte{'\n'}, []byte{' '})
	}
	b = append(append(append(b, "data: "...), data...), "\n\n"...)
	ev.Native = b
	return ev, false, nil
}

// SpeaksNative reports that the adapter serves Anthropic Messages requests as they are.
func (p *Provider) SpeaksNative(protocol string) bool { return protocol == shlyuz.ProtocolAnthropic }

// lowerThinking is the client's thinking member with its budget lowered
// below maxTokens, a cap the gateway lowered to what the call can pay for:
// Anthropic refuses a budget_tokens not below max_tokens. nil when the
// budget fits, or did not fit the client's own max_tokens either (the
// client's mistake goes upstream as written, for Anthropic's own answer).
// The gateway reserves a cap of at least minThinkingBudget+1 for a call
// that thinks, so the budget never falls below Anthropic's least.
func lowerThinking(body map[string]json.RawMessage, maxTokens int64) []byte {
	raw := body["thinking"]
	if len(raw) == 0 {
		return nil
	}
	var th map[string]json.RawMessage
	var budget, asked int64
	if json.Unmarshal(raw, &th) != nil || json.Unmarshal(th["budget_tokens"], &budget) != nil ||
		json.Unmarshal(body["max_tokens"], &asked) != nil {
		return nil
	}
	if budget < maxTokens || budget >= asked {
		return nil
	}
	th["budget_tokens"] = strconv.AppendInt(nil, max(maxTokens-1, minThinkingBudget), 10)
	b, err := plainjson.Marshal(th)
	if err != nil {
		return nil
	}
	return b
}
