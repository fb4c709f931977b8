package wire

import (
	"encoding"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"sync"
)

// The binary form of a message: a codec is compiled once per Go
// type, from its exported fields in declaration order, and then only walks
// values; nothing describes the type on the wire. Both ends compile the same
// layout from the same code; the layout's fingerprint leads every message, so
// nodes of different builds whose layouts differ refuse each other's
// messages instead of misreading them.
//
//	bool            one byte, 0 or 1
//	int kinds       zig-zag varint
//	uint kinds      varint
//	float kinds     8 bytes, IEEE 754, little endian
//	string, []byte  varint length, bytes
//	slice, map      varint: 0 for nil, else length+1; the elements (keys, values)
//	pointer         one byte, 0 for nil, else 1 and the value
//	struct          its exported fields; chan, func and interface fields stay behind
//	marshalers      a type with MarshalBinary or GobEncode: varint length, bytes
//
// An interface field (an error's Cause: a Go error of this process) never
// travels, as gob never sent it either.

type codec struct {
	enc    func(b []byte, v reflect.Value) []byte
	dec    func(r *reader, v reflect.Value) error
	layout string // what the fingerprint is taken of
	print  uint32 // the layout's fingerprint (top-level types only)
}

var codecs sync.Map // reflect.Type → *codec

// codecOf returns the type's codec, compiling it on first use.
func codecOf(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	c := compile(t, map[reflect.Type]*codec{})
	h := fnv.New32a()
	h.Write([]byte(c.layout))
	c.print = h.Sum32()
	got, _ := codecs.LoadOrStore(t, c)
	return got.(*codec)
}

var (
	binaryMarshaler   = reflect.TypeFor[encoding.BinaryMarshaler]()
	binaryUnmarshaler = reflect.TypeFor[encoding.BinaryUnmarshaler]()
	gobEncoder        = reflect.TypeFor[gob.GobEncoder]()
	gobDecoder        = reflect.TypeFor[gob.GobDecoder]()
	bytesType         = reflect.TypeFor[[]byte]()
)

// compile builds t's codec. seen holds the codecs being compiled, so a
// recursive type refers to its own (filled in once compiled).
func compile(t reflect.Type, seen map[reflect.Type]*codec) *codec {
	if c, ok := seen[t]; ok {
		return c
	}
	c := &codec{}
	seen[t] = c
	pt := reflect.PointerTo(t)
	switch {
	case t.Implements(binaryMarshaler) && pt.Implements(binaryUnmarshaler):
		viaBytes(c, "bin("+t.String()+")",
			func(v reflect.Value) ([]byte, error) { return v.Interface().(encoding.BinaryMarshaler).MarshalBinary() },
			func(v reflect.Value, raw []byte) error {
				return v.Addr().Interface().(encoding.BinaryUnmarshaler).UnmarshalBinary(raw)
			})
		return c
	case t.Implements(gobEncoder) && pt.Implements(gobDecoder):
		viaBytes(c, "gob("+t.String()+")",
			func(v reflect.Value) ([]byte, error) { return v.Interface().(gob.GobEncoder).GobEncode() },
			func(v reflect.Value, raw []byte) error { return v.Addr().Interface().(gob.GobDecoder).GobDecode(raw) })
		return c
	}
	switch t.Kind() {
	case reflect.Bool:
		c.layout = "b"
		c.enc = func(b []byte, v reflect.Value) []byte {
			if v.Bool() {
				return append(b, 1)
			}
			return append(b, 0)
		}
		c.dec = func(r *reader, v reflect.Value) error {
			x, err := r.byte()
			if err == nil && x > 1 {
				err = errMalformed
			}
			v.SetBool(x == 1)
			return err
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.layout = "i" + t.Kind().String()
		c.enc = func(b []byte, v reflect.Value) []byte { return binary.AppendVarint(b, v.Int()) }
		c.dec = func(r *reader, v reflect.Value) error {
			x, err := r.varint()
			if err == nil && v.OverflowInt(x) {
				err = errMalformed
			}
			v.SetInt(x)
			return err
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.layout = "u" + t.Kind().String()
		c.enc = func(b []byte, v reflect.Value) []byte { return binary.AppendUvarint(b, v.Uint()) }
		c.dec = func(r *reader, v reflect.Value) error {
			x, err := r.uvarint()
			if err == nil && v.OverflowUint(x) {
				err = errMalformed
			}
			v.SetUint(x)
			return err
		}
	case reflect.Float32, reflect.Float64:
		c.layout = "f" + t.Kind().String()
		c.enc = func(b []byte, v reflect.Value) []byte {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
		}
		c.dec = func(r *reader, v reflect.Value) error {
			raw, err := r.take(8)
			if err != nil {
				return err
			}
			v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(raw)))
			return nil
		}
	case reflect.String:
		c.layout = "s"
		c.enc = func(b []byte, v reflect.Value) []byte {
			b = binary.AppendUvarint(b, uint64(v.Len()))
			return append(b, v.String()...)
		}
		c.dec = func(r *reader, v reflect.Value) error {
			raw, err := r.bytes()
			v.SetString(string(raw))
			return err
		}
	case reflect.Pointer:
		elem := compile(t.Elem(), seen)
		c.enc = func(b []byte, v reflect.Value) []byte {
			if v.IsNil() {
				return append(b, 0)
			}
			return elem.enc(append(b, 1), v.Elem())
		}
		c.dec = func(r *reader, v reflect.Value) error {
			x, err := r.byte()
			if err != nil || x == 0 {
				return err
			}
			if x != 1 {
				return errMalformed
			}
			p := reflect.New(t.Elem())
			if err := r.nest(func() error { return elem.dec(r, p.Elem()) }); err != nil {
				return err
			}
			v.Set(p)
			return nil
		}
		c.layout = "*" + elem.layout
	case reflect.Slice:
		compileSlice(c, t, seen)
	case reflect.Array:
		elem := compile(t.Elem(), seen)
		c.layout = fmt.Sprintf("[%d]%s", t.Len(), elem.layout)
		c.enc = func(b []byte, v reflect.Value) []byte {
			for i := range v.Len() {
				b = elem.enc(b, v.Index(i))
			}
			return b
		}
		c.dec = func(r *reader, v reflect.Value) error {
			for i := range v.Len() {
				if err := elem.dec(r, v.Index(i)); err != nil {
					return err
				}
			}
			return nil
		}
	case reflect.Map:
		compileMap(c, t, seen)
	case reflect.Struct:
		compileStruct(c, t, seen)
	default: // chan, func, interface: never travel
		c.layout = "-"
		c.enc = func(b []byte, _ reflect.Value) []byte { return b }
		c.dec = func(*reader, reflect.Value) error { return nil }
	}
	return c
}

// viaBytes makes c the codec of a type that marshals itself: the bytes of
// marshal, length first, read back by unmarshal.
func viaBytes(c *codec, layout string, marshal func(reflect.Value) ([]byte, error), unmarshal func(reflect.Value, []byte) error) {
	c.layout = layout
	c.enc = func(b []byte, v reflect.Value) []byte {
		raw, err := marshal(v)
		if err != nil {
			panic(encodeError{err})
		}
		return appendBytes(b, raw)
	}
	c.dec = func(r *reader, v reflect.Value) error {
		raw, err := r.bytes()
		if err != nil {
			return err
		}
		return unmarshal(v, raw)
	}
}

func compileSlice(c *codec, t reflect.Type, seen map[reflect.Type]*codec) {
	if t.Elem().Kind() == reflect.Uint8 && t.ConvertibleTo(bytesType) {
		c.layout = "[]byte"
		c.enc = func(b []byte, v reflect.Value) []byte {
			b, more := appendCount(b, v)
			if !more {
				return b
			}
			return append(b, v.Bytes()...)
		}
		c.dec = func(r *reader, v reflect.Value) error {
			n, err := r.count()
			if err != nil || n < 0 {
				return err
			}
			raw, err := r.take(n)
			if err != nil {
				return err
			}
			v.SetBytes(append(make([]byte, 0, n), raw...))
			return nil
		}
		return
	}
	elem := compile(t.Elem(), seen)
	c.enc = func(b []byte, v reflect.Value) []byte {
		b, more := appendCount(b, v)
		if !more {
			return b
		}
		for i := range v.Len() {
			b = elem.enc(b, v.Index(i))
		}
		return b
	}
	c.dec = func(r *reader, v reflect.Value) error {
		n, err := r.count()
		if err != nil || n < 0 {
			return err
		}
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			if err := r.nest(func() error { return elem.dec(r, s.Index(i)) }); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	c.layout = "[]" + elem.layout
}

func compileMap(c *codec, t reflect.Type, seen map[reflect.Type]*codec) {
	key, elem := compile(t.Key(), seen), compile(t.Elem(), seen)
	c.enc = func(b []byte, v reflect.Value) []byte {
		b, more := appendCount(b, v)
		if !more {
			return b
		}
		it := v.MapRange()
		for it.Next() {
			b = key.enc(b, it.Key())
			b = elem.enc(b, it.Value())
		}
		return b
	}
	c.dec = func(r *reader, v reflect.Value) error {
		n, err := r.count()
		if err != nil || n < 0 {
			return err
		}
		m := reflect.MakeMapWithSize(t, n)
		k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		for range n {
			k.SetZero()
			e.SetZero()
			if err := r.nest(func() error {
				if err := key.dec(r, k); err != nil {
					return err
				}
				return elem.dec(r, e)
			}); err != nil {
				return err
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
		return nil
	}
	c.layout = "map[" + key.layout + "]" + elem.layout
}

func compileStruct(c *codec, t reflect.Type, seen map[reflect.Type]*codec) {
	type field struct {
		index int
		c     *codec
	}
	var fields []field
	layout := t.String() + "{"
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case !f.IsExported():
			continue
		case f.Type.Kind() == reflect.Chan, f.Type.Kind() == reflect.Func, f.Type.Kind() == reflect.Interface:
			continue
		}
		fc := compile(f.Type, seen)
		fields = append(fields, field{i, fc})
		fl := fc.layout
		if fl == "" { // a recursive type, still being compiled
			fl = f.Type.String()
		}
		layout += f.Name + ":" + fl + ";"
	}
	c.layout = layout + "}"
	c.enc = func(b []byte, v reflect.Value) []byte {
		for _, f := range fields {
			b = f.c.enc(b, v.Field(f.index))
		}
		return b
	}
	c.dec = func(r *reader, v reflect.Value) error {
		for _, f := range fields {
			if err := f.c.dec(r, v.Field(f.index)); err != nil {
				return err
			}
		}
		return nil
	}
}

// encodeError carries a marshaler's failure out of an encoder.
type encodeError struct{ err error }

// appendCount appends a slice's or map's length as count reads it: 0 for
// nil (more is false: nothing follows), else the length+1.
func appendCount(b []byte, v reflect.Value) (_ []byte, more bool) {
	if v.IsNil() {
		return append(b, 0), false
	}
	return binary.AppendUvarint(b, uint64(v.Len())+1), true
}

func appendBytes(b, raw []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(raw)))
	return append(b, raw...)
}

var errMalformed = errors.New("malformed message")

// maxDepth bounds the nesting a decoder follows (pointers, slices, maps).
const maxDepth = 64

// reader reads a message; every length is checked against what is left, so
// a malformed message cannot make it allocate more than its own size allows.
type reader struct {
	buf   []byte
	depth int
}

func (r *reader) nest(fn func() error) error {
	if r.depth++; r.depth > maxDepth {
		return errMalformed
	}
	err := fn()
	r.depth--
	return err
}

func (r *reader) byte() (byte, error) {
	if len(r.buf) == 0 {
		return 0, errMalformed
	}
	x := r.buf[0]
	r.buf = r.buf[1:]
	return x, nil
}

func (r *reader) take(n int) ([]byte, error) {
	if n < 0 || n > len(r.buf) {
		return nil, errMalformed
	}
	out := r.buf[:n:n]
	r.buf = r.buf[n:]
	return out, nil
}

func (r *reader) uvarint() (uint64, error) {
	x, n := binary.Uvarint(r.buf)
	return x, r.skip(n)
}

func (r *reader) varint() (int64, error) {
	x, n := binary.Varint(r.buf)
	return x, r.skip(n)
}

// skip moves past the n bytes a varint took; n <= 0 (too short, or an
// overflow, where the varint read is 0) is malformed.
func (r *reader) skip(n int) error {
	if n <= 0 {
		return errMalformed
	}
	r.buf = r.buf[n:]
	return nil
}

func (r *reader) bytes() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil || n > uint64(len(r.buf)) {
		return nil, errMalformed
	}
	return r.take(int(n))
}

// count reads a slice's or map's length: -1 for nil. Every element takes at
// least one byte, so no more elements can follow than bytes are left.
func (r *reader) count() (int, error) {
	n, err := r.uvarint()
	if err != nil || n > uint64(len(r.buf))+1 {
		return 0, errMalformed
	}
	return int(n) - 1, nil
}
