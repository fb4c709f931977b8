// Package wire is the wire form of the gateway's actor messages: protoactor
// sends only protobuf messages between nodes, so every message is carried
// in one generated Envelope{type, data} (envelope.proto; the generated code
// is checked in). A message type registers itself once; its Serialize
// method (protoactor's RootSerializable hook) calls Encode, and the
// receiving node's Envelope.Deserialize decodes it back by its type name.
// The data is a compact binary form compiled once per type (binary.go):
// exported fields only, never the HTTP JSON tags, so fields the API hides (a
// key's hash, an error's status) still travel, and no type description
// travels with each message (gob sends one, and compiles a decoder, per
// message, which costs a node a fifth or more of its CPU).
package wire

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"sync"

	"github.com/asynkron/protoactor-go/remote"
)

var (
	mu    sync.RWMutex
	types = map[string]reflect.Type{} // name → struct type
)

// Register makes the message type (a pointer to a struct implementing
// remote.RootSerializable) known to Decode, and compiles its codec.
func Register(msg remote.RootSerializable) {
	t := reflect.TypeOf(msg)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("wire: register %T: not a pointer to a struct", msg))
	}
	codecOf(t.Elem())
	mu.Lock()
	defer mu.Unlock()
	types[name(t.Elem())] = t.Elem()
}

// Registered lists one zero value of every registered message type.
func Registered() []any {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]any, 0, len(types))
	for _, t := range types {
		out = append(out, reflect.New(t).Interface())
	}
	return out
}

func name(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// printSize is the length of the layout fingerprint that leads the data.
const printSize = 4

// Encode wraps a registered message in an Envelope. An *shlyuz.Error field
// travels without its Cause (an arbitrary Go error; interface fields never
// travel); its message, status, retry-after and upstream-fault flag are kept.
func Encode(msg any) (env *Envelope, err error) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, fmt.Errorf("wire: encode %T: not a non-nil pointer", msg)
	}
	t := v.Elem().Type()
	n := name(t)
	mu.RLock()
	_, ok := types[n]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("wire: encode %T: not registered", msg)
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(encodeError)
			if !ok {
				panic(r)
			}
			env, err = nil, fmt.Errorf("wire: encode %s: %w", n, e.err)
		}
	}()
	c := codecOf(t)
	data := binary.LittleEndian.AppendUint32(make([]byte, 0, 64), c.print)
	return &Envelope{Type: n, Data: c.enc(data, v.Elem())}, nil
}

// Deserialize turns a received envelope back into its message.
func (e *Envelope) Deserialize() (remote.RootSerializable, error) {
	mu.RLock()
	t, ok := types[e.GetType()]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("wire: unknown message type %q", e.GetType())
	}
	v, err := decode(t, e.GetData())
	if err != nil {
		return nil, fmt.Errorf("wire: decode %s: %w", e.GetType(), err)
	}
	msg, ok := v.Interface().(remote.RootSerializable)
	if !ok {
		return nil, fmt.Errorf("wire: %s does not implement remote.RootSerializable", e.GetType())
	}
	return msg, nil
}

// decode reads data, written by Encode for a value of type t, into a new *t.
func decode(t reflect.Type, data []byte) (reflect.Value, error) {
	c := codecOf(t)
	if len(data) < printSize {
		return reflect.Value{}, errMalformed
	}
	if p := binary.LittleEndian.Uint32(data); p != c.print {
		return reflect.Value{}, fmt.Errorf("layout %08x, this node's is %08x: the nodes run different builds", p, c.print)
	}
	v := reflect.New(t)
	r := &reader{buf: data[printSize:]}
	if err := c.dec(r, v.Elem()); err != nil {
		return reflect.Value{}, err
	}
	if len(r.buf) > 0 {
		return reflect.Value{}, fmt.Errorf("%d bytes left over: %w", len(r.buf), errMalformed)
	}
	return v, nil
}
