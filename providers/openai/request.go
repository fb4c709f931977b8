package openai

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/jsonscan"
	"github.com/shlyuz/shlyuz/internal/plainjson"
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
//
// An OpenAI reasoning model (o-series, gpt-5) gets max_completion_tokens,
// never max_tokens, and none of the parameters OpenAI refuses for it.
func buildBody(req *shlyuz.UpstreamRequest, stream bool) (body []byte, clientUsage bool) {
	return appendBody(nil, req, stream, "")
}

// appendBody is buildBody writing into dst's storage (its bytes are
// replaced), without the client's field omit ("": none).
func appendBody(dst []byte, req *shlyuz.UpstreamRequest, stream bool, omit string) (body []byte, clientUsage bool) {
	var keyRoom [24]string // a request's members fit: the keys stay on the stack
	keys := keyRoom[:0]
	size := 64 + len(req.UpstreamModel)
	reasoning := shlyuz.OpenAIReasoningModel(req.UpstreamModel)
	for k, v := range req.Fields {
		if k == omit && omit != "" {
			continue
		}
		switch k {
		case fieldModel, fieldStream, fieldStreamOptions:
			continue
		case fieldMaxTokens, fieldMaxCompletionTokens:
			if req.MaxTokens > 0 || reasoning {
				continue
			}
		}
		if gatewayOnly[k] || !shlyuz.OpenAITakes(k, req.UpstreamModel, req.ExtraParameters) {
			continue // OpenAI refuses what it does not take: dropped, as OpenRouter does
		}
		keys = append(keys, k)
		size += len(k) + len(v) + 4
	}
	slices.Sort(keys)

	so, hasSO := req.Fields[fieldStreamOptions]
	if stream {
		size += len(so) + 32
	}

	b := slices.Grow(dst[:0], size)
	b = append(b, `{"model":`...)
	b = plainjson.AppendString(b, req.UpstreamModel)
	for _, k := range keys {
		v := req.Fields[k]
		if len(v) == 0 {
			continue
		}
		b = append(b, ',')
		b = plainjson.AppendString(b, k)
		b = append(b, ':')
		b = append(b, v...)
	}
	if effort := reasoningEffort(req, reasoning); effort != nil {
		b = append(b, `,"reasoning_effort":`...)
		b = append(b, effort...)
	}
	n := req.MaxTokens
	if n <= 0 && reasoning { // no ceiling decided: the client's, renamed
		n = clientMaxTokens(req.Fields)
	}
	if n > 0 {
		// Keep the client's spelling, except for a reasoning model.
		if _, ok := req.Fields[fieldMaxCompletionTokens]; ok || reasoning {
			b = append(b, `,"max_completion_tokens":`...)
		} else {
			b = append(b, `,"max_tokens":`...)
		}
		b = strconv.AppendInt(b, n, 10)
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

// reasoningEffort is OpenRouter's reasoning.effort as OpenAI's
// reasoning_effort (a JSON string), for a reasoning model whose request sets
// reasoning but not reasoning_effort itself; nil otherwise.
func reasoningEffort(req *shlyuz.UpstreamRequest, reasoning bool) json.RawMessage {
	if !reasoning || len(req.Fields["reasoning_effort"]) > 0 {
		return nil
	}
	v := req.Fields["reasoning"]
	if len(v) == 0 {
		return nil
	}
	var r struct {
		Effort json.RawMessage `json:"effort"`
	}
	if json.Unmarshal(v, &r) != nil || len(r.Effort) == 0 || r.Effort[0] != '"' {
		return nil
	}
	return r.Effort
}

// clientMaxTokens is the client's max_completion_tokens or max_tokens, or 0.
func clientMaxTokens(fields map[string]json.RawMessage) int64 {
	for _, k := range []string{fieldMaxCompletionTokens, fieldMaxTokens} {
		if n, err := strconv.ParseInt(string(fields[k]), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// mergeStreamOptions sets include_usage to true in the client's stream_options
// object, keeping its other members, and reports whether the client had it true.
func mergeStreamOptions(so []byte) (merged []byte, clientUsage bool) {
	it, ok := jsonscan.Members(so, 0)
	if !ok {
		return []byte(`{"include_usage":true}`), false
	}
	members := 0
	for {
		key, _, vs, ve, ok := it.Next()
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
	if it.Err() != nil {
		return []byte(`{"include_usage":true}`), false
	}
	open := jsonscan.SkipSpace(so, 0) + 1
	out := make([]byte, 0, len(so)+24)
	out = append(out, so[:open]...)
	out = append(out, `"include_usage":true`...)
	if members > 0 {
		out = append(out, ',')
	}
	return append(out, so[open:]...), false
}
