// Package wire is the wire form of the gateway's actor messages: protoactor
// sends only protobuf messages between nodes, so every message is carried
// in one generated Envelope{type, data} (envelope.proto; the generated code
// is checked in). A message type registers itself once; its Serialize
// method (protoactor's RootSerializable hook) calls Encode, and the
// receiving node's Envelope.Deserialize decodes it back by its type name.
// The data is gob: exported fields only, never the HTTP JSON tags, so
// fields the API hides (a key's hash, an error's status) still travel.
package wire

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"reflect"
	"sync"

	"github.com/asynkron/protoactor-go/remote"
	shlyuz "github.com/shlyuz/shlyuz"
)

var (
	mu    sync.RWMutex
	types = map[string]reflect.Type{} // name → struct type
)

// Register makes the message type (a pointer to a struct implementing
// remote.RootSerializable) known to Decode.
func Register(msg remote.RootSerializable) {
	t := reflect.TypeOf(msg)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("wire: register %T: not a pointer to a struct", msg))
	}
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

// Encode wraps a registered message in an Envelope. An *shlyuz.Error field
// travels without its Cause (an arbitrary Go error); its message, status,
// retry-after and upstream-fault flag are kept.
func Encode(msg any) (*Envelope, error) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, fmt.Errorf("wire: encode %T: not a non-nil pointer", msg)
	}
	t := v.Elem().Type()
	mu.RLock()
	_, ok := types[name(t)]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("wire: encode %T: not registered", msg)
	}
	cp := reflect.New(t).Elem()
	cp.Set(v.Elem())
	errType := reflect.TypeOf((*shlyuz.Error)(nil))
	exported := false
	for i := 0; i < t.NumField(); i++ {
		f := cp.Field(i)
		if !t.Field(i).IsExported() || f.Kind() == reflect.Chan || f.Kind() == reflect.Func {
			continue
		}
		exported = true
		if f.Type() == errType && !f.IsNil() {
			e := *f.Interface().(*shlyuz.Error)
			e.Cause = nil
			f.Set(reflect.ValueOf(&e))
		}
	}
	env := &Envelope{Type: name(t)}
	if !exported {
		return env, nil // nothing to carry but the type
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).EncodeValue(cp.Addr()); err != nil {
		return nil, fmt.Errorf("wire: encode %s: %w", env.Type, err)
	}
	env.Data = buf.Bytes()
	return env, nil
}

// Deserialize turns a received envelope back into its message.
func (e *Envelope) Deserialize() (remote.RootSerializable, error) {
	mu.RLock()
	t, ok := types[e.GetType()]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("wire: unknown message type %q", e.GetType())
	}
	v := reflect.New(t)
	if len(e.GetData()) > 0 {
		if err := gob.NewDecoder(bytes.NewReader(e.GetData())).DecodeValue(v); err != nil {
			return nil, fmt.Errorf("wire: decode %s: %w", e.GetType(), err)
		}
	}
	msg, ok := v.Interface().(remote.RootSerializable)
	if !ok {
		return nil, fmt.Errorf("wire: %s does not implement remote.RootSerializable", e.GetType())
	}
	return msg, nil
}
