package fake

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestArgumentsFragment(t *testing.T) {
	for _, args := range []string{ToolArguments, `{"city":"Москва"}`, "", "{}", `{"a":"😀😀"}`} {
		for n := 0; n <= len(args)+2; n++ {
			var b strings.Builder
			for i := range n {
				f := argumentsFragment(args, i, n)
				if !utf8.ValidString(f) {
					t.Errorf("args %q, %d pieces: piece %d %q is not valid UTF-8", args, n, i, f)
				}
				b.WriteString(f)
			}
			if n > 0 && b.String() != args {
				t.Errorf("args %q in %d pieces join to %q", args, n, b.String())
			}
		}
	}
	if got := argumentsFragment(ToolArguments, 0, 5); got == "" || len(got) > len(ToolArguments)/5+1 {
		t.Errorf("first of 5 pieces of %q = %q, want about a fifth", ToolArguments, got)
	}
}
