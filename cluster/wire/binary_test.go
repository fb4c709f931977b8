package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// sample has a field of every kind the codec writes.
type sample struct {
	B      bool
	I      int
	I8     int8
	I64    int64
	U16    uint16
	U      uint64
	F      float64
	S      string
	Raw    []byte
	Ints   []int64
	Names  []string
	Arr    [3]int32
	M      map[string]int64
	P      *inner
	Nested []inner
	PS     []*inner
	At     time.Time
	Money  shlyuz.Credits
	Err    *shlyuz.Error
	Cause  error         // an interface: stays behind
	Ch     chan struct{} // local only: stays behind
	hidden int           // unexported: stays behind
}

type inner struct {
	Name string
	Tags map[string][]string
	Next *inner
}

// Values round-trip through the binary form with every exported field kept,
// nil and empty apart, a decimal exact, an error without its cause.
func TestBinaryRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 27, 9, 0, 0, 123456789, time.UTC)
	for _, tc := range []struct {
		name string
		in   sample
	}{
		{"zero", sample{}},
		{"empty, not nil", sample{Raw: []byte{}, Ints: []int64{}, M: map[string]int64{}, Names: []string{}}},
		{"full", sample{B: true, I: -1 << 40, I8: -128, I64: 1<<63 - 1, U16: 65535, U: 1<<64 - 1, F: -0.25,
			S: "привет\x00", Raw: []byte{0, 1, 255}, Ints: []int64{-1, 0, 1}, Names: []string{"", "a"}, Arr: [3]int32{-1, 0, 1 << 30},
			M: map[string]int64{"a": 1, "": -2}, P: &inner{Name: "p", Tags: map[string][]string{"k": {"v", ""}, "nil": nil}, Next: &inner{Name: "q"}},
			Nested: []inner{{Name: "n"}}, PS: []*inner{nil, {Name: "x"}}, At: at, Money: -42,
			Err: shlyuz.ErrKeyLimitExceeded(100, 90, at, 5, 10).WithParam("max_tokens")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Cause, in.Ch, in.hidden = errors.New("local"), make(chan struct{}), 7
			c := codecOf(reflect.TypeFor[sample]())
			data := binary.LittleEndian.AppendUint32(nil, c.print)
			data = c.enc(data, reflect.ValueOf(in))
			got, err := decode(reflect.TypeFor[sample](), data)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.in
			if want.Err != nil {
				e := *want.Err
				e.Cause = nil
				want.Err = &e
			}
			if back := got.Elem().Interface().(sample); !reflect.DeepEqual(back, want) {
				t.Fatalf("sent %+v\n got %+v", want, back)
			}
		})
	}
}

// A decimal travels exactly (its GobEncode form), as a message field.
func TestBinaryDecimal(t *testing.T) {
	type priced struct{ Rate shlyuz.Decimal }
	in := priced{shlyuz.MustDecimal("92.123456789012345678")}
	c := codecOf(reflect.TypeFor[priced]())
	got, err := decode(reflect.TypeFor[priced](), c.enc(binary.LittleEndian.AppendUint32(nil, c.print), reflect.ValueOf(in)))
	if err != nil {
		t.Fatal(err)
	}
	if back := got.Elem().Interface().(priced); back.Rate.String() != in.Rate.String() {
		t.Fatalf("sent %s, got %s", in.Rate, back.Rate)
	}
}

// A message of another layout (another build) or a cut or padded one is
// refused, never misread.
func TestBinaryRefusesWhatItCannotRead(t *testing.T) {
	c := codecOf(reflect.TypeFor[sample]())
	good := c.enc(binary.LittleEndian.AppendUint32(nil, c.print), reflect.ValueOf(sample{S: "abc", Ints: []int64{1, 2}}))
	other := bytes.Clone(good)
	other[0] ^= 1
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"another layout", other},
		{"cut", good[:len(good)-1]},
		{"padded", append(bytes.Clone(good), 0)},
		{"a huge length", append(binary.LittleEndian.AppendUint32(nil, c.print), 0, 0xff, 0xff, 0xff, 0xff, 0x0f)},
	} {
		if _, err := decode(reflect.TypeFor[sample](), tc.data); err == nil {
			t.Errorf("%s: decoded", tc.name)
		}
	}
}

// Whatever arrives, decoding never panics, and what it accepts encodes to
// something that decodes to the same value.
func FuzzBinaryDecode(f *testing.F) {
	type fuzzed struct {
		B    bool
		I    int32
		U    uint8
		S    string
		Raw  []byte
		Ints []int64
		M    map[string]*inner
		P    *inner
		At   time.Time
	}
	c := codecOf(reflect.TypeFor[fuzzed]())
	seed := func(v fuzzed) []byte {
		return c.enc(binary.LittleEndian.AppendUint32(nil, c.print), reflect.ValueOf(v))
	}
	f.Add(seed(fuzzed{}))
	f.Add(seed(fuzzed{B: true, I: -5, U: 9, S: "s", Raw: []byte{1}, Ints: []int64{3}, M: map[string]*inner{"a": {Name: "b", Next: &inner{}}},
		P: &inner{Tags: map[string][]string{"t": {"u"}}}, At: time.Unix(1_700_000_000, 5).UTC()}))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decode(reflect.TypeFor[fuzzed](), data)
		if err != nil {
			return
		}
		again, err := decode(reflect.TypeFor[fuzzed](), c.enc(binary.LittleEndian.AppendUint32(nil, c.print), v.Elem()))
		if err != nil {
			t.Fatalf("re-encoded value refused: %v", err)
		}
		a, b := v.Interface().(*fuzzed), again.Interface().(*fuzzed)
		if !a.At.Equal(b.At) || a.At.Format(time.RFC3339Nano) != b.At.Format(time.RFC3339Nano) {
			t.Fatalf("re-encoded time changed: %v, %v", a.At, b.At)
		}
		a.At, b.At = time.Time{}, time.Time{} // a fixed zone is a new *Location each time
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("re-encoded value changed:\n%+v\n%+v", a, b)
		}
	})
}
