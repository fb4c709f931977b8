// Package bodyroom writes an upstream body around a field of the client's
// body where that body lies, rather than copying the field (shlyuz.BodyRoom).
//
// A large prompt need not be copied into the body sent upstream: the
// client's body was read into a buffer of the gateway's own, its messages are
// forwarded byte for byte, and JSON does not care where in an object they
// come. So an adapter that writes a body may put the messages first, where
// they lie in that buffer, and write its own bytes just before and after them
// there: "{"messages":" over the bytes of the client's own key, the rest of
// its object over what follows (the client's other fields, read already) and
// the buffer's spare capacity. The overwritten bytes are put back when the
// call is done, so the client's body is whole again for another attempt.
package bodyroom

import (
	"unsafe"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// New lends buf (a body the gateway read, and may overwrite until the
// call is done) around the value of field key, one of its spans; it is nil
// when value does not lie in buf.
func New(buf []byte, key string, value []byte) *shlyuz.BodyRoom {
	buf = buf[:cap(buf)]
	if _, ok := spanAt(buf, value); !ok {
		return nil
	}
	return &shlyuz.BodyRoom{Key: key, Buf: buf}
}

// spanAt is where value, a span of buf, starts in buf. (Spans of a body may
// have their capacity cut to their length, so their place is told by their
// address.)
func spanAt(buf, value []byte) (int, bool) {
	if len(value) == 0 || len(buf) == 0 {
		return 0, false
	}
	at := int(uintptr(unsafe.Pointer(unsafe.SliceData(value))) - uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	if at < 0 || at > len(buf)-len(value) || &buf[at] != &value[0] {
		return 0, false
	}
	return at, true
}

// Splice is a body made in the room: Body is prefix, the field's value and
// suffix, one span of the buffer. Undo puts back the bytes it overwrote.
type Splice struct {
	Body []byte
	buf  []byte
	at   int    // where Body starts in buf
	was  []byte // the bytes of buf that the prefix and the suffix overwrote
	pre  int    // the prefix's length
}

// Wrap writes prefix right before the field's value and suffix right after
// it in r. It reports false, and writes nothing, when the value is no longer
// the field's span of the buffer or there is not the room on either side.
func Wrap(r *shlyuz.BodyRoom, value, prefix, suffix []byte) (Splice, bool) {
	at, ok := spanAt(r.Buf, value)
	end := at + len(value)
	if !ok || at < len(prefix) || len(r.Buf)-end < len(suffix) {
		return Splice{}, false
	}
	s := Splice{buf: r.Buf, at: at - len(prefix), pre: len(prefix)}
	s.was = make([]byte, 0, len(prefix)+len(suffix))
	s.was = append(s.was, r.Buf[s.at:at]...)
	s.was = append(s.was, r.Buf[end:end+len(suffix)]...)
	copy(r.Buf[s.at:], prefix)
	copy(r.Buf[end:], suffix)
	s.Body = r.Buf[s.at : end+len(suffix)]
	return s, true
}

// Undo restores the buffer as it was before the splice.
func (s *Splice) Undo() {
	if s.buf == nil {
		return
	}
	copy(s.buf[s.at:], s.was[:s.pre])
	copy(s.buf[s.at+len(s.Body)-(len(s.was)-s.pre):], s.was[s.pre:])
	s.buf = nil
}

// MemberFirst is a JSON object in three parts with the member key first,
// its value where the client's body holds it: {"key":, value, and obj, the
// rest of the object ({…} written without the member, at least one member
// in it), whose opening brace becomes the comma that goes on after value.
func MemberFirst(key string, value, obj []byte) [][]byte {
	obj[0] = ','
	return [][]byte{append(plainjson.AppendString([]byte{'{'}, key), ':'), value, obj}
}
