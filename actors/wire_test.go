package actors

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/protobuf/proto"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/cluster/wire"
)

var (
	timeType    = reflect.TypeOf(time.Time{})
	decimalType = reflect.TypeOf(shlyuz.Decimal{})
)

// fill sets every exported field reachable from v to a non-zero value (an
// error's Cause and local-only channels stay nil: they never travel).
func fill(t *testing.T, v reflect.Value, path string, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(1000 + *n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(1000 + *n))
	case reflect.String:
		v.SetString(fmt.Sprintf("%s-%d", path, *n))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), path, n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(t, v.Index(0), path+"[0]", n)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k, path+".key", n)
		fill(t, e, path+".value", n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		switch v.Type() {
		case timeType:
			v.Set(reflect.ValueOf(time.Unix(1_700_000_000+int64(*n), int64(*n)).UTC()))
			return
		case decimalType:
			v.Set(reflect.ValueOf(shlyuz.MustDecimal(fmt.Sprintf("%d.25", *n))))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				fill(t, v.Field(i), path+"."+f.Name, n)
			}
		}
	case reflect.Interface, reflect.Chan, reflect.Func:
		// an error's Cause and a local waiter: not part of the wire form
	default:
		t.Fatalf("%s: no filler for kind %s", path, v.Kind())
	}
}

// roundTrip encodes msg as the endpoint writer does (RootSerializable, then
// protobuf bytes) and decodes it as the endpoint reader does.
func roundTrip(t *testing.T, msg remote.RootSerializable) remote.RootSerializable {
	t.Helper()
	ser, err := msg.Serialize()
	if err != nil {
		t.Fatalf("%T: %v", msg, err)
	}
	raw, err := proto.Marshal(ser.(*wire.Envelope))
	if err != nil {
		t.Fatal(err)
	}
	var env wire.Envelope
	if err := proto.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	back, err := env.Deserialize()
	if err != nil {
		t.Fatalf("%T: %v", msg, err)
	}
	return back
}

// Every message of the cluster kinds crosses the wire with every field kept.
func TestEveryMessageRoundTripsWithEveryField(t *testing.T) {
	if len(wire.Registered()) != len(clusterMessages) {
		t.Fatalf("%d registered, %d messages", len(wire.Registered()), len(clusterMessages))
	}
	for _, zero := range clusterMessages {
		t.Run(reflect.TypeOf(zero).Elem().Name(), func(t *testing.T) {
			msg := reflect.New(reflect.TypeOf(zero).Elem())
			n := 0
			fill(t, msg.Elem(), "", &n)
			back := roundTrip(t, msg.Interface().(remote.RootSerializable))
			if !reflect.DeepEqual(back, msg.Interface()) {
				t.Fatalf("round trip changed the message:\n sent %+v\n got  %+v", msg.Interface(), back)
			}
		})
	}
}

// An error keeps its status, retry-after and upstream-fault flag; its Cause
// (a Go error of this process) stays behind.
func TestErrorsKeepTheirFlagsAcrossTheWire(t *testing.T) {
	for _, e := range []*shlyuz.Error{
		shlyuz.ErrProviderUnavailable(3*time.Second, "open breaker"),
		shlyuz.ErrAccountMoving(),
		shlyuz.ErrKeyLimitExceeded(100, 90, time.Unix(1_700_000_000, 0).UTC(), 5, 10).WithParam("max_tokens"),
		shlyuz.ErrInternal(fmt.Errorf("disk on fire")),
	} {
		back := roundTrip(t, &reserved{Err: e}).(*reserved).Err
		want := *e
		want.Cause = nil
		if !reflect.DeepEqual(*back, want) {
			t.Errorf("sent %+v, got %+v", want, *back)
		}
	}
	if _, err := wire.Encode(&struct{ X int }{}); err == nil {
		t.Error("an unregistered type was encoded")
	}
	if _, err := (&wire.Envelope{Type: "no.such"}).Deserialize(); err == nil {
		t.Error("an unknown type was decoded")
	}
}

// BenchmarkWireSettle is one settlement's way across nodes: encoded as the
// endpoint writer does and decoded as the reader does.
func BenchmarkWireSettle(b *testing.B) {
	now := time.Unix(1_700_000_000, 0).UTC()
	msg := &acctSettle{GenID: "gen-1795768889-FSQ36XHE2MQKP6WKUQJQFCQ6", KeyID: "key-01", Amount: 1234, Tokens: 96, Now: now,
		Generation: &shlyuz.Generation{ID: "gen-1795768889-FSQ36XHE2MQKP6WKUQJQFCQ6", AccountID: "acc-01", KeyID: "key-01",
			Model: "openai/gpt-4o-mini", Upstream: "openai", Attempts: []shlyuz.Attempt{{Upstream: "openai"}},
			PromptTokens: 80, CompletionTokens: 16, Credits: 1234, Status: shlyuz.GenerationCompleted, FinishReason: "stop", CreatedAt: now}}
	b.ReportAllocs()
	for b.Loop() {
		ser, err := msg.Serialize()
		if err != nil {
			b.Fatal(err)
		}
		raw, err := proto.Marshal(ser.(*wire.Envelope))
		if err != nil {
			b.Fatal(err)
		}
		var env wire.Envelope
		if err := proto.Unmarshal(raw, &env); err != nil {
			b.Fatal(err)
		}
		if _, err := env.Deserialize(); err != nil {
			b.Fatal(err)
		}
	}
}
