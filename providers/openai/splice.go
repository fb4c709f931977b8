package openai

import (
	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/bodyroom"
)

// bodyParts is req's body in three parts (bodyroom.MemberFirst), the lent
// field's value in the middle as the client's body holds it
// (shlyuz.BodyRoom), the rest of the object appendBody writes without it in
// dst's storage (parts[2]). ok is false when req lends no value; rest is then
// dst.
func bodyParts(dst []byte, req *shlyuz.UpstreamRequest, stream bool) (parts [][]byte, rest []byte, clientUsage, ok bool) {
	if req.Room == nil {
		return nil, dst, false, false
	}
	value, has := req.Fields[req.Room.Key]
	if !has || len(value) == 0 {
		return nil, dst, false, false
	}
	rest, clientUsage = appendBody(dst, req, stream, req.Room.Key) // {"model":…}
	return bodyroom.MemberFirst(req.Room.Key, value, rest), rest, clientUsage, true
}

// spliceBody is the non-streamed body of req written around the lent value
// in the client's buffer (rest, in scratch's storage, is its end). ok is
// false when req lends none or the room does not fit; rest then holds
// nothing the caller needs.
func spliceBody(req *shlyuz.UpstreamRequest, scratch []byte) (s bodyroom.Splice, rest []byte, ok bool) {
	parts, rest, _, ok := bodyParts(scratch, req, false)
	if !ok {
		return bodyroom.Splice{}, rest, false
	}
	s, ok = bodyroom.Wrap(req.Room, parts[1], parts[0], parts[2])
	return s, rest, ok
}

// streamParts is the streamed body of req in parts, for a call that sends
// them one after the other: a stream's call may still be writing its body
// when it returns, so nothing is written in the client's buffer.
func streamParts(req *shlyuz.UpstreamRequest) (parts [][]byte, clientUsage bool, ok bool) {
	parts, _, clientUsage, ok = bodyParts(nil, req, true)
	return parts, clientUsage, ok
}
