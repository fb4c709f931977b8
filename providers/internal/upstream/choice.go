package upstream

import "github.com/shlyuz/shlyuz/internal/plainjson"

// AppendFinish appends the end of an OpenAI chat choice after its message or
// delta object, as every adapter that writes choices of its own ends them:
// no logprobs, and finish_reason, null while finish is "". The choice's
// closing brace is the caller's.
func AppendFinish(b []byte, finish string) []byte {
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		return append(b, "null"...)
	}
	return plainjson.AppendString(b, finish)
}

// AppendChunkEnd appends the end of a one-choice chat.completion.chunk after
// its delta object: the choice's finish, the choices closed, and
// "usage":null where the client asked for usage (which comes in a chunk of
// its own at the end).
func AppendChunkEnd(b []byte, finish string, clientUsage bool) []byte {
	b = AppendFinish(b, finish)
	b = append(b, "}]"...)
	if clientUsage {
		b = append(b, `,"usage":null`...)
	}
	return append(b, '}')
}
