package openai

import (
	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// spliceBody is the non-streamed body of req written around the lent field
// where the client's body holds it (shlyuz.BodyRoom): that field first, then
// the object appendBody writes without it. ok is false when the room does not
// fit; scratch (a send buffer) then holds nothing the caller needs.
func spliceBody(req *shlyuz.UpstreamRequest, scratch []byte) (s shlyuz.Splice, rest []byte, ok bool) {
	room := req.Room
	value, has := req.Fields[room.Key]
	if !has || len(value) == 0 {
		return shlyuz.Splice{}, scratch, false
	}
	rest, _ = appendBody(scratch, req, false, room.Key) // {"model":…}
	prefix := append(plainjson.AppendString([]byte{'{'}, room.Key), ':')
	rest[0] = ',' // the suffix: the rest of the object after the value
	s, ok = room.Splice(value, prefix, rest)
	return s, rest, ok
}

// streamParts is the streamed body of req in three parts, the lent field's
// value in the middle where the client's body holds it, for a call that
// sends them one after the other (a stream's call may still be writing its
// body when it returns, so nothing is written in the client's buffer).
func streamParts(req *shlyuz.UpstreamRequest) (parts [][]byte, clientUsage bool, ok bool) {
	if req.Room == nil {
		return nil, false, false
	}
	value, has := req.Fields[req.Room.Key]
	if !has || len(value) == 0 {
		return nil, false, false
	}
	rest, clientUsage := appendBody(nil, req, true, req.Room.Key)
	rest[0] = ','
	prefix := append(plainjson.AppendString([]byte{'{'}, req.Room.Key), ':')
	return [][]byte{prefix, value, rest}, clientUsage, true
}
