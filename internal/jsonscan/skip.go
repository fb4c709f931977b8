// Package jsonscan walks JSON text without decoding it: it finds where a
// value, an object's members or an array's elements begin and end, so that a
// caller can read a few fields, or splice bytes, and leave the rest as it is.
//
// It reads at two strictnesses. The skipping functions (SkipString,
// SkipValue, Members, Elements) check the structure (brackets, terminated
// strings, the three literals) but not every escape and number: they are for
// bytes that were validated before, or that are passed on as they came. The
// validating ones (ValidValue, ValidMembers, ValidElements) accept exactly
// what encoding/json's checkValid accepts, nesting limit included. Both jump
// from quote to quote with bytes.IndexByte, which is faster than a byte loop
// even for short strings.
//
// Every failure is ErrMalformed; callers map it to their own errors.
package jsonscan

import (
	"bytes"
	"errors"
)

// ErrMalformed is the error of every function here.
var ErrMalformed = errors.New("malformed JSON")

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// SkipString returns the index just past the string that opens at
// b[i] == '"'. It does not check the escapes. It jumps from quote to quote
// (bytes.IndexByte): a backslash does not stop it, so prose and code, with
// few quotes, are skipped at memchr's speed (faster than validString's
// 64-byte blocks, which stop at each block with a backslash).
func SkipString(b []byte, i int) (int, error) {
	i++
	start := i
	for i <= len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			break
		}
		end := i + j
		n := 0 // an odd run of backslashes before the quote escapes it
		for k := end - 1; k >= start && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return end + 1, nil
		}
		i = end + 1
	}
	return 0, ErrMalformed
}

// SkipValue returns the index just past the value that starts at b[i] (no
// leading space). An object or array is skipped by counting its brackets
// outside strings; a number is any run of the bytes numbers are made of.
func SkipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, ErrMalformed
	}
	switch c := b[i]; {
	case c == '"':
		return SkipString(b, i)
	case c == '{' || c == '[':
		return skipContainer(b, i)
	case c == 't' || c == 'f' || c == 'n':
		return literal(b, i)
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, nil
	}
	return 0, ErrMalformed
}

// skipContainer skips an object or array by counting brackets outside strings.
func skipContainer(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			j, err := SkipString(b, i)
			if err != nil {
				return 0, err
			}
			i = j
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, ErrMalformed
}

// literal returns the index past the true, false or null that starts at b[i]
// (one of 't', 'f', 'n').
func literal(b []byte, i int) (int, error) {
	lit := "null"
	switch b[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	}
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, ErrMalformed
	}
	return i + len(lit), nil
}
