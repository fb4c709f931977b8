package shlyuz

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParametersSet(t *testing.T) {
	big := json.RawMessage(`[{"role":"user","content":"` + strings.Repeat("context ", 20_000) + `"}]`)
	fields := map[string]json.RawMessage{
		"model":       json.RawMessage(`"a/b"`),
		"messages":    big,
		"temperature": json.RawMessage(" null "),
		"top_p":       json.RawMessage("0.5"),
		"tools":       json.RawMessage(`[]`),
		"stream":      json.RawMessage("true"),
	}
	if got, want := ParametersSet(fields), []string{"tools", "top_p"}; !slices.Equal(got, want) {
		t.Fatalf("ParametersSet = %q, want %q", got, want)
	}
	// The members that are no parameters (messages) are never copied: only
	// the result is allocated, however long the prompt.
	if n := testing.AllocsPerRun(20, func() { ParametersSet(fields) }); n > 2 {
		t.Fatalf("ParametersSet allocates %.0f times, want at most 2", n)
	}
}
