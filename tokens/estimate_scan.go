package tokens

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

// walkArray calls each with b and the start of every element of the array
// at b[i] (after spaces); each reads the element and returns where it ends,
// so a long element is read once. walkArray returns the index past the array.
func walkArray(b []byte, i int, each func(b []byte, vs int) (int, error)) (int, error) {
	it, ok := jsonscan.Elements(b, i)
	if !ok {
		return 0, errWalk
	}
	for {
		vs, ok := it.NextStart()
		if !ok {
			break
		}
		if vs >= len(b) {
			return 0, errWalk // the array ends after a comma
		}
		ve, err := each(b, vs)
		if err != nil {
			return 0, err
		}
		it.SetEnd(ve)
	}
	if it.Err() != nil {
		return 0, errWalk
	}
	return it.End(), nil
}

// walkMembers calls each for every member of the object that opens at
// b[start] == '{' with the raw key and the start of its value (after
// spaces, before the end of b); each reads the value (a string it counts
// is read once) and returns where it ends. walkMembers returns the index
// past the object.
func walkMembers(b []byte, start int, each func(key []byte, vs int) (int, error)) (int, error) {
	it, _ := jsonscan.Members(b, start)
	for {
		key, vs, ok := it.NextKey()
		if !ok {
			break
		}
		if vs >= len(b) {
			return 0, errWalk // a colon ends the input
		}
		ve, err := each(key, vs)
		if err != nil {
			return 0, err
		}
		it.SetEnd(ve)
	}
	if it.Err() != nil {
		return 0, errWalk
	}
	return it.End(), nil
}

// skipNull returns the index past the null at b[vs].
func skipNull(b []byte, vs int) (int, error) {
	ve, err := jsonscan.SkipValue(b, vs)
	if err != nil || b[vs] != 'n' {
		return 0, errWalk
	}
	return ve, nil
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

// toolCalls reads a message's tool_calls at b[s], a null or an array of
// calls (objects or nulls), and adds each call's id, function name and
// arguments, as encoding/json would decode them into estimateCall (the last
// of a repeated key wins; the members of repeated function objects merge),
// into *into; it returns where the value ends. A value of another shape is
// left to encoding/json.
func toolCalls(b []byte, s int, into *PromptEstimate) (int, error) {
	if b[s] == 'n' {
		return skipNull(b, s)
	}
	if b[s] != '[' {
		return 0, errWalk
	}
	return walkArray(b, s, func(b []byte, vs int) (int, error) {
		if b[vs] == 'n' {
			return skipNull(b, vs)
		}
		if b[vs] != '{' {
			return 0, errWalk
		}
		var id, name, args PromptEstimate
		ve, err := walkMembers(b, vs, func(key []byte, s int) (int, error) {
			if e, is, err := countMember(key, "id", b, s, &id); is {
				return e, err
			}
			is, err := keyIs(key, "function")
			if err != nil {
				return 0, err
			}
			if !is || b[s] == 'n' { // a null function leaves the one before, as encoding/json does
				return countValue(b, s, false, nil)
			}
			if b[s] != '{' {
				return 0, errWalk
			}
			return walkMembers(b, s, func(key []byte, s int) (int, error) {
				if e, is, err := countMember(key, "name", b, s, &name); is {
					return e, err
				}
				if e, is, err := countMember(key, "arguments", b, s, &args); is {
					return e, err
				}
				return countValue(b, s, false, nil)
			})
		})
		if err != nil {
			return 0, err
		}
		for _, e := range []PromptEstimate{id, name, args} {
			into.Reserve += e.Reserve
			into.Likely += e.Likely
			into.Saved += e.Saved
		}
		return ve, nil
	})
}

// countMember reads a member's value at b[s] when its key is name (is
// true; also on an error): a string's tokens replace *into, any other value
// leaves it empty, as encoding/json keeps the last of a repeated key.
func countMember(key []byte, name string, b []byte, s int, into *PromptEstimate) (end int, is bool, err error) {
	if is, err = keyIs(key, name); err != nil || !is {
		return 0, err != nil, err
	}
	*into = PromptEstimate{}
	end, err = countValue(b, s, true, into)
	return end, true, err
}
