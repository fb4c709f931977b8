package gigachat

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestFunctionResult checks a tool's result as GigaChat gets it: a JSON
// object as written, any other JSON value or text wrapped in {"result": …},
// which encoding/json reads back as the client's value, with <, > and & as
// the client wrote them (the model reads the text, not \u003c).
func TestFunctionResult(t *testing.T) {
	tests := []struct {
		name, text string
		want       any // what encoding/json reads from the result
	}{
		{"object as written", ` {"a": 1} `, map[string]any{"a": 1.0}},
		{"number wrapped", "42", map[string]any{"result": 42.0}},
		{"array wrapped", `[1,"x"]`, map[string]any{"result": []any{1.0, "x"}}},
		{"text wrapped", "sunny, 21 °C", map[string]any{"result": "sunny, 21 °C"}},
		{"html as written", `<b>Tom & Jerry</b> > "cats"`, map[string]any{"result": `<b>Tom & Jerry</b> > "cats"`}},
		{"controls escaped", "a\nb\tc\\", map[string]any{"result": "a\nb\tc\\"}},
		{"empty text", "", map[string]any{"result": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := functionResult(tt.text)
			var v any
			if err := json.Unmarshal([]byte(got), &v); err != nil {
				t.Fatalf("functionResult(%q) = %s: %v", tt.text, got, err)
			}
			if !reflect.DeepEqual(v, tt.want) {
				t.Errorf("functionResult(%q) = %s, reads as %#v, want %#v", tt.text, got, v, tt.want)
			}
			if strings.Contains(got, `\u00`) && !strings.Contains(tt.text, `\u00`) {
				t.Errorf("functionResult(%q) = %s: escapes what JSON lets be", tt.text, got)
			}
		})
	}
}
