package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/sse"
)

// nativeBody is the client's own Messages body with the gateway's model,
// completion ceiling and stream flag: everything else (cache_control,
// thinking, tools, documents, betas' fields) goes as the client wrote it.
func nativeBody(req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest, stream bool) ([]byte, error) {
	out := make(map[string]json.RawMessage, len(n.Body)+2)
	for k, v := range n.Body {
		out[k] = v
	}
	out["model"] = plainjson.AppendString(nil, req.UpstreamModel)
	if req.MaxTokens > 0 {
		out["max_tokens"] = strconv.AppendInt(nil, req.MaxTokens, 10)
	}
	delete(out, "stream")
	if stream {
		out["stream"] = json.RawMessage("true")
	}
	body, err := plainjson.Marshal(out)
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	return body, nil
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
	body, err := nativeBody(req, n, false)
	if err != nil {
		return nil, err
	}
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
	body, err := nativeBody(req, n, true)
	if err != nil {
		return nil, err
	}
	b, err := p.callWith(p.nativeHeader(n), body, true).Open(ctx)
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
