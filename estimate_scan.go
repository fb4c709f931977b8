package shlyuz

import (
	"errors"

	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// A walker over a messages array for EstimatePrompt: it finds each message's
// content and each part's type and text without decoding the rest
// (internal/jsonscan, which skips values without checking every number and
// escape: the body it reads was validated when the request was parsed).
// Anything it is not sure of as encoding/json would read it (an escaped or
// non-ASCII key, a value of the wrong type) makes it give up, and
// EstimatePrompt asks encoding/json.

var errWalk = errors.New("not walked")

// walkArray calls each for the span of every element of the array at b[i]
// (after spaces) and returns the index past it.
func walkArray(b []byte, i int, each func(v []byte) error) (int, error) {
	it, ok := jsonscan.Elements(b, i)
	if !ok {
		return 0, errWalk
	}
	for {
		vs, ve, ok := it.Next()
		if !ok {
			break
		}
		if err := each(b[vs:ve]); err != nil {
			return 0, err
		}
	}
	if it.Err() != nil {
		return 0, errWalk
	}
	return it.End(), nil
}

// walkObject calls each for every member of the object v (a whole value,
// from '{' to '}') with the raw key and the value's span.
func walkObject(v []byte, each func(key, val []byte) error) error {
	it, _ := jsonscan.Members(v, 0)
	for {
		key, _, vs, ve, ok := it.Next()
		if !ok {
			break
		}
		if err := each(key, v[vs:ve]); err != nil {
			return err
		}
	}
	if it.Err() != nil {
		return errWalk
	}
	return nil
}

// keyIs reports whether a raw key names the field name (lower-case ASCII) as
// encoding/json matches it, without case; a key it cannot judge so, with an
// escape or a byte above 0x7F, is an error.
func keyIs(key []byte, name string) (bool, error) {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return false, errWalk
		}
	}
	if len(key) != len(name) {
		return false, nil
	}
	for i, c := range key {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false, nil
		}
	}
	return true, nil
}
