package api

import (
	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// PlainKey is a key of lower-case ASCII letters, digits and underscores: no
// other key folds to it, and it folds to no other.
func PlainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// EachElement calls each for every element of the array arr, in order, and
// returns how many there were; ok is false when each refused one or the
// array does not scan. each reads the element that starts at arr[vs] and
// says where it ends: an element is read once, not skipped and then read.
func EachElement(arr []byte, each func(b []byte, vs int) (ve int, ok bool)) (n int, ok bool) {
	it, _ := jsonscan.Elements(arr, 0)
	for {
		vs, more := it.NextStart()
		if !more {
			break
		}
		n++
		ve, ok := each(arr, vs)
		if !ok {
			return n, false
		}
		it.SetEnd(ve)
	}
	return n, it.Err() == nil
}

// EachMember calls each for the members of the object that opens at b[vs],
// whose keys must be plain (plainKey), and returns where the object ends;
// false when it is no object, a key is not plain, or each says so. verbatim
// tells each whether the value is a string copied as it stands (verbatimString),
// found as the string is read to its end: a long text is read once.
func EachMember(b []byte, vs int, each func(key, v []byte, verbatim bool) bool) (end int, ok bool) {
	if vs >= len(b) || b[vs] != '{' {
		return 0, false
	}
	it, _ := jsonscan.Members(b, vs)
	for {
		key, s, more := it.NextKey()
		if !more {
			break
		}
		e, verbatim, ok := readValue(b, s)
		if !ok || !PlainKey(string(key)) || !each(key, b[s:e], verbatim) {
			return 0, false
		}
		it.SetEnd(e)
	}
	return it.End(), it.Err() == nil
}

// readValue returns the end of the value at b[s] (of a validated body) and
// whether it is a string the fast path may copy as it stands
// (verbatimText): jsonscan.ShortString finds its end 64 bytes at a time
// (code has an escape every few bytes, too many for a search restarted
// after each) and tells whether it has escapes other than \" \\ \b \f \n
// \r \t, whose surrogate halves are then checked.
func readValue(b []byte, s int) (end int, verbatim, ok bool) {
	if s < len(b) && b[s] == '"' {
		e, short, err := jsonscan.ShortString(b, s)
		if err != nil {
			return 0, false, false
		}
		return e, verbatimText(b[s+1:e-1], short), true
	}
	e, err := jsonscan.SkipValue(b, s)
	return e, false, err == nil
}
