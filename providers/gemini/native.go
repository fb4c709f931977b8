package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/sse"
)

// nativeBody is the client's own GenerateContentRequest with the gateway's
// completion ceiling in generationConfig.maxOutputTokens: everything else
// (thinkingConfig, Google's tools, safetySettings, cachedContent, thought
// signatures) goes as the client wrote it, member by member.
func nativeBody(req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest) ([]byte, error) {
	keys := make([]string, 0, len(n.Body)+1)
	for k := range n.Body {
		keys = append(keys, k)
	}
	gc := n.Body["generationConfig"]
	if req.MaxTokens > 0 {
		cfg := map[string]json.RawMessage{}
		if len(gc) > 0 && string(gc) != "null" {
			if err := json.Unmarshal(gc, &cfg); err != nil {
				return nil, shlyuz.ErrInvalidValue("generationConfig", "generationConfig is an object.")
			}
		}
		cfg["maxOutputTokens"] = strconv.AppendInt(nil, req.MaxTokens, 10)
		b, err := plainjson.Marshal(cfg)
		if err != nil {
			return nil, err
		}
		if gc == nil {
			keys = append(keys, "generationConfig")
		}
		gc = b
	}
	slices.Sort(keys)
	body := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			body = append(body, ',')
		}
		v := n.Body[k]
		if k == "generationConfig" {
			v = gc
		}
		body = append(plainjson.AppendString(body, k), ':')
		body = append(body, v...)
	}
	return append(body, '}'), nil
}

// nativeChat sends a generateContent request as is and keeps Google's reply
// whole in Native; its usage and finish are read as for a chat reply.
func (p *Provider) nativeChat(ctx context.Context, req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest) (*shlyuz.ChatResponse, error) {
	body, err := nativeBody(req, n)
	if err != nil {
		return nil, err
	}
	data, err := p.call(req.UpstreamModel, body, false).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	r, err := decodeReply(data, req.GenerationID, p.now(), false, searchesPerQuery(req.UpstreamModel))
	if err != nil {
		return nil, err
	}
	r.Native = data
	return r, nil
}

// nativeStream opens a streamed generateContent request whose chunks are
// passed on as Google sent them (Native), read for usage and finish on the
// way.
func (p *Provider) nativeStream(ctx context.Context, req *shlyuz.UpstreamRequest, n *shlyuz.NativeRequest) (shlyuz.ChatStream, error) {
	body, err := nativeBody(req, n)
	if err != nil {
		return nil, err
	}
	b, err := p.call(req.UpstreamModel, body, true).Open(ctx)
	if err != nil {
		return nil, err
	}
	return sse.NewStream(b, nativeDecoder{decoder{newChunker(req, p.now().Unix())}}, sse.Config{}), nil
}

// nativeDecoder reads Google's chunks as decoder does (usage, finish,
// failures) and carries each chunk itself on, on one line.
type nativeDecoder struct{ decoder }

// Decode handles the data of one event.
func (nd nativeDecoder) Decode(e sse.Event) (shlyuz.StreamEvent, bool, error) {
	ev, skip, err := nd.decoder.Decode(e)
	if err != nil || len(e.Data) == 0 {
		return ev, skip, err
	}
	data := e.Data
	if bytes.IndexByte(data, '\n') >= 0 || bytes.IndexByte(data, '\r') >= 0 { // data lines joined: one line again (JSON's white space)
		data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte{'\r'}, []byte{' '}), []byte{'\n'}, []byte{' '})
	} else {
		data = bytes.Clone(data)
	}
	ev.Native = data
	return ev, false, nil
}

// SpeaksNative reports that the adapter serves Gemini API requests as they are.
func (p *Provider) SpeaksNative(protocol string) bool { return protocol == shlyuz.ProtocolGemini }
