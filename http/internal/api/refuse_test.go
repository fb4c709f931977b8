package api

import (
	"encoding/json"
	"strings"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The members the gateway does not serve are refused with a 400 naming
// them; the web plugin is served on chat completions only.
func TestRefuseUnservedMembers(t *testing.T) {
	for _, tc := range []struct {
		body        string
		chat, other string // the refused member on each route, "" for none
		says        string // what the refusals say
	}{
		{`{}`, "", "", ""},
		{`{"plugins":[{"id":"web"}]}`, "", "plugins", "completions only"},
		{`{"plugins":[{"id":"web","enabled":false}]}`, "", "", ""},
		{`{"plugins":[{"id":"file-parser"}]}`, "plugins", "plugins", "file-parser"},
		{`{"plugins":[{"id":"web"}],"transforms":["middle-out"]}`, "transforms", "transforms", "middle-out"},
		{`{"transforms":[]}`, "", "", ""},
		{`{"debug":{"echo_upstream_body":true}}`, "debug", "debug", "echo_upstream_body"},
		{`{"plugins":"web"}`, "plugins", "plugins", "wrong type"},
	} {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.body), &fields); err != nil {
			t.Fatal(err)
		}
		for route, refuse := range map[string]func(map[string]json.RawMessage) *shlyuz.Error{"chat": RefuseUnserved, "other": RefuseChatOnly} {
			want := tc.chat
			if route == "other" {
				want = tc.other
			}
			err := refuse(fields)
			switch {
			case want == "" && err != nil:
				t.Errorf("%s on %s: refused: %v", tc.body, route, err)
			case want != "" && (err == nil || err.Status != 400 || err.Param == nil || *err.Param != want || !strings.Contains(err.Message, tc.says)):
				t.Errorf("%s on %s: %v, want a 400 for %s saying %q", tc.body, route, err, want, tc.says)
			}
		}
	}
}
