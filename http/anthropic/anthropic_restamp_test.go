package anthropic

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRestamp checks an upstream's Message restamped: our id and model, the
// rest as Anthropic wrote it (read back with encoding/json); anything that
// is not a JSON object passes untouched.
func TestRestamp(t *testing.T) {
	msg := `{"id":"msg_01","type":"message","model":"claude-x","content":[{"type":"text","text":"<b> & </b>"}],"usage":{"input_tokens":3}}`
	got := restamp([]byte(msg), "gen-<1>", "anthropic/claude-x")
	var v, want map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("restamp = %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(msg), &want); err != nil {
		t.Fatal(err)
	}
	want["id"], want["model"] = "gen-<1>", "anthropic/claude-x"
	if !reflect.DeepEqual(v, want) {
		t.Errorf("restamp = %s\nreads as %#v\nwant     %#v", got, v, want)
	}
	for _, bad := range []string{`not json`, `null`, `[1]`} {
		if got := restamp([]byte(bad), "gen-1", "m"); string(got) != bad {
			t.Errorf("restamp(%s) = %s, want it untouched", bad, got)
		}
	}
}
