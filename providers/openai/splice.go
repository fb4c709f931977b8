package openai

import (
	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// bodyParts is req's body in three parts, the lent field's value in the
// middle as the client's body holds it (shlyuz.BodyRoom): before it
// {"key":, after it the rest of the object appendBody writes without it,
// into dst's storage. ok is false when req lends no value.
func bodyParts(dst []byte, req *shlyuz.UpstreamRequest, stream bool) (prefix, value, rest []byte, clientUsage, ok bool) {
	if req.Room == nil {
		return nil, nil, dst, false, false
	}
	value, has := req.Fields[req.Room.Key]
	if !has || len(value) == 0 {
		return nil, nil, dst, false, false
	}
	rest, clientUsage = appendBody(dst, req, stream, req.Room.Key) // {"model":…}
	rest[0] = ','                                                  // after the value, the object goes on
	prefix = append(plainjson.AppendString([]byte{'{'}, req.Room.Key), ':')
	return prefix, value, rest, clientUsage, true
}

// spliceBody is the non-streamed body of req written around the lent value
// in the client's buffer (rest, in scratch's storage, is its end). ok is
// false when req lends none or the room does not fit; rest then holds
// nothing the caller needs.
func spliceBody(req *shlyuz.UpstreamRequest, scratch []byte) (s shlyuz.Splice, rest []byte, ok bool) {
	prefix, value, rest, _, ok := bodyParts(scratch, req, false)
	if !ok {
		return shlyuz.Splice{}, rest, false
	}
	s, ok = req.Room.Splice(value, prefix, rest)
	return s, rest, ok
}

// streamParts is the streamed body of req in parts, for a call that sends
// them one after the other: a stream's call may still be writing its body
// when it returns, so nothing is written in the client's buffer.
func streamParts(req *shlyuz.UpstreamRequest) (parts [][]byte, clientUsage bool, ok bool) {
	prefix, value, rest, clientUsage, ok := bodyParts(nil, req, true)
	return [][]byte{prefix, value, rest}, clientUsage, ok
}
