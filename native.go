package shlyuz

import "encoding/json"

// ProtocolAnthropic names Anthropic's Messages API as a client's native protocol.
const ProtocolAnthropic = "anthropic"

// ProtocolGemini names Google's Gemini API (generateContent) as a client's
// native protocol: its Body has no model (the URL names it).
const ProtocolGemini = "gemini"

// NativeRequest is a client's request in an upstream protocol's own shape
// (an Anthropic Messages body). An adapter that speaks Protocol sends Body
// as is, but for the model, the completion ceiling and the stream flag the
// gateway decided, and answers in that protocol too (ChatResponse.Native,
// StreamEvent.Native); every other adapter serves UpstreamRequest.Fields,
// the same request translated into OpenAI's chat shape.
type NativeRequest struct {
	Protocol string
	Body     map[string]json.RawMessage // the client's body, top level
	Headers  map[string]string          // the client's protocol headers to forward (anthropic-beta)
	// Unfit, when set, is why the request cannot be put in chat's shape
	// (an Anthropic server tool): only an adapter speaking Protocol serves it.
	Unfit *Error
}

// NativeOf is the request's native form when it is in protocol, or nil.
func (r *UpstreamRequest) NativeOf(protocol string) *NativeRequest {
	if r.Native != nil && r.Native.Protocol == protocol {
		return r.Native
	}
	return nil
}

// NativeSpeaker is an adapter that serves requests of some client protocols
// as they are (NativeRequest): the Anthropic adapter speaks "anthropic".
type NativeSpeaker interface {
	SpeaksNative(protocol string) bool
}

// NativeUnfit is why req cannot go to the provider: its native form holds
// what only an upstream speaking its protocol can serve (Unfit) and p does
// not speak it. Nil when it can go.
func NativeUnfit(p Provider, req *UpstreamRequest) *Error {
	n := req.Native
	if n == nil || n.Unfit == nil {
		return nil
	}
	if ns, ok := p.(NativeSpeaker); ok && ns.SpeaksNative(n.Protocol) {
		return nil
	}
	return n.Unfit
}
