package openai

import (
	"slices"
	"strconv"

	"github.com/shlyuz/shlyuz"
)

// gatewayOnly are request fields the gateway consumes itself (OpenRouter's
// conventions); they never go upstream.
var gatewayOnly = map[string]bool{
	"usage":      true,
	"models":     true,
	"provider":   true,
	"route":      true,
	"transforms": true,
}

// Fields the adapter writes itself.
const (
	fieldModel               = "model"
	fieldStream              = "stream"
	fieldStreamOptions       = "stream_options"
	fieldMaxTokens           = "max_tokens"
	fieldMaxCompletionTokens = "max_completion_tokens"
)

// buildBody turns the client's top-level fields into the body sent upstream:
// "model" first, then the client's other fields in key order with their raw
// values untouched, then the fields the gateway decided (token ceiling,
// stream, stream_options). The stream argument, not req.Stream, decides, so
// that Chat never streams. It also reports whether the client itself asked
// for usage in the stream.
func buildBody(req *shlyuz.UpstreamRequest, stream bool) (body []byte, clientUsage bool) {
	keys := make([]string, 0, len(req.Fields))
	size := 64 + len(req.UpstreamModel)
	for k, v := range req.Fields {
		switch k {
		case fieldModel, fieldStream, fieldStreamOptions:
			continue
		case fieldMaxTokens, fieldMaxCompletionTokens:
			if req.MaxTokens > 0 {
				continue
			}
		}
		if gatewayOnly[k] {
			continue
		}
		keys = append(keys, k)
		size += len(k) + len(v) + 4
	}
	slices.Sort(keys)

	so, hasSO := req.Fields[fieldStreamOptions]
	if stream {
		size += len(so) + 32
	}

	b := make([]byte, 0, size)
	b = append(b, `{"model":`...)
	b = appendJSONString(b, req.UpstreamModel)
	for _, k := range keys {
		v := req.Fields[k]
		if len(v) == 0 {
			continue
		}
		b = append(b, ',')
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = append(b, v...)
	}
	if req.MaxTokens > 0 {
		// Keep the client's spelling: o-series models want max_completion_tokens.
		if _, ok := req.Fields[fieldMaxCompletionTokens]; ok {
			b = append(b, `,"max_completion_tokens":`...)
		} else {
			b = append(b, `,"max_tokens":`...)
		}
		b = strconv.AppendInt(b, req.MaxTokens, 10)
	}
	if !stream {
		// OpenAI refuses stream_options on a non-streamed call.
		return append(b, `,"stream":false}`...), false
	}
	b = append(b, `,"stream":true,"stream_options":`...)
	if hasSO {
		var merged []byte
		merged, clientUsage = mergeStreamOptions(so)
		b = append(b, merged...)
	} else {
		b = append(b, `{"include_usage":true}`...)
	}
	return append(b, '}'), clientUsage
}

// mergeStreamOptions sets include_usage to true in the client's stream_options
// object, keeping its other members, and reports whether the client had it true.
func mergeStreamOptions(so []byte) (merged []byte, clientUsage bool) {
	it, ok := newObjIter(so, 0)
	if !ok {
		return []byte(`{"include_usage":true}`), false
	}
	members := 0
	for {
		key, _, vs, ve, ok := it.next()
		if !ok {
			break
		}
		members++
		if string(key) == "include_usage" {
			clientUsage = string(so[vs:ve]) == "true"
			out := make([]byte, 0, len(so)+4)
			out = append(out, so[:vs]...)
			out = append(out, "true"...)
			return append(out, so[ve:]...), clientUsage
		}
	}
	if it.err != nil {
		return []byte(`{"include_usage":true}`), false
	}
	open := skipSpace(so, 0) + 1
	out := make([]byte, 0, len(so)+24)
	out = append(out, so[:open]...)
	out = append(out, `"include_usage":true`...)
	if members > 0 {
		out = append(out, ',')
	}
	return append(out, so[open:]...), false
}
