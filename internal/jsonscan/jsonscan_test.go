package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

var seeds = []string{
	`{}`, ` [ ] `, `{"a":[1,2.5e-3,-0,true,false,null,{"b":"c\"]"}]}`, `"\u0436\ud83d\ude80"`, `01`, `1.`, `-`, `{"a" 1}`,
	`[1,]`, `{,}`, `{"a":1,}`, `nul`, `"\x"`, "\"\x01\"", `[1 2]`, `{"a":{"b":[]}} x`, `tru`, `"abc`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// valid reads b as one document, spaces around it allowed.
func valid(b []byte) bool {
	i := SkipSpace(b, 0)
	end, err := ValidValue(b, i, 1)
	return err == nil && SkipSpace(b, end) == len(b)
}

// TestValidValueIsJSONValid: ValidValue accepts what json.Valid accepts.
func TestValidValueIsJSONValid(t *testing.T) {
	for _, s := range seeds {
		checkValid(t, []byte(s))
	}
}

func checkValid(t *testing.T, b []byte) {
	want := json.Valid(b)
	if got := valid(b); got != want {
		t.Fatalf("ValidValue(%q) = %v, json.Valid says %v", b, got, want)
	}
	if !want {
		return
	}
	i := SkipSpace(b, 0)
	ve, _ := ValidValue(b, i, 1)
	if end, err := SkipValue(b, i); err != nil || end != ve {
		t.Fatalf("SkipValue(%q) = %d, %v; the value ends at %d", b, end, err, ve)
	}
}

// TestMembersAndElements: the spans of keys and values, and where the walk ends.
func TestMembersAndElements(t *testing.T) {
	b := []byte(` { "a" : [1, "x"] , "b\"":null } `)
	it, ok := Members(b, 0)
	var got []string
	for ok {
		var key []byte
		var ks, vs, ve int
		if key, ks, vs, ve, ok = it.Next(); ok {
			got = append(got, string(b[ks:ks+len(key)+2])+"="+string(b[vs:ve]))
			if elems, isArr := Elements(b, vs); isArr {
				for {
					es, ee, more := elems.Next()
					if !more {
						break
					}
					got = append(got, string(b[es:ee]))
				}
			}
		}
	}
	want := `"a"=[1, "x"]|1|"x"|"b\""=null`
	if strings.Join(got, "|") != want || it.Err() != nil || it.End() != len(b)-1 {
		t.Fatalf("got %s, err %v, end %d; want %s", strings.Join(got, "|"), it.Err(), it.End(), want)
	}
}

// FuzzValidValue: on any input, ValidValue and json.Valid agree, and on a
// valid one SkipValue ends where ValidValue does.
func FuzzValidValue(f *testing.F) {
	for _, s := range seeds {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(checkValid)
}
