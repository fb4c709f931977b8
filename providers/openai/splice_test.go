package openai

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/bodyroom"
)

// TestSplicedBodyIsBuildBodys: the body written around the client's
// messages in their own buffer, and the stream's parts, say what buildBody's
// body says (members in another order), and the client's buffer is whole
// again after the call.
func TestSplicedBodyIsBuildBodys(t *testing.T) {
	for _, tc := range []struct {
		name, client, model string
		maxTokens           int64
	}{
		{"plain", `{"model":"a/b","messages":[{"role":"user","content":"hi"}],"temperature":0.5,"usage":{"include":true}}`, "b", 0},
		{"messages first, a ceiling decided", `{"messages":[{"role":"user","content":"hi"}],"model":"a/b","max_tokens":9,"stream_options":{"x":1}}`, "b", 7},
		{"a reasoning model", `{"model":"openai/o3","messages":[{"role":"user","content":"hi"}],"max_tokens":50,"temperature":1,"top_p":1}`, "o3", 0},
	} {
		for _, stream := range []bool{false, true} {
			buf := make([]byte, len(tc.client), len(tc.client)+256)
			copy(buf, tc.client)
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(buf, &fields); err != nil {
				t.Fatal(err)
			}
			at := bytes.Index(buf, []byte(`[{"role"`))
			fields["messages"] = buf[at : at+len(fields["messages"])]
			req := &shlyuz.UpstreamRequest{Model: "a/b", UpstreamModel: tc.model, Fields: fields, MaxTokens: tc.maxTokens, Stream: stream,
				Room: bodyroom.New(buf, "messages", fields["messages"])}
			want, wantUsage := buildBody(req, stream)
			var got []byte
			var gotUsage bool
			if stream {
				parts, usage, ok := streamParts(req)
				if !ok {
					t.Fatalf("%s: no parts", tc.name)
				}
				got, gotUsage = bytes.Join(parts, nil), usage
			} else {
				s, _, ok := spliceBody(req, nil)
				if !ok {
					t.Fatalf("%s: no splice", tc.name)
				}
				got = bytes.Clone(s.Body)
				if &s.Body[len(`{"messages":`)] != &buf[at] {
					t.Fatalf("%s: the messages were copied", tc.name)
				}
				s.Undo()
			}
			var g, w map[string]any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s (stream %v): %s: %v", tc.name, stream, got, err)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) || gotUsage != wantUsage {
				t.Fatalf("%s (stream %v):\n%s\nwant the members of\n%s", tc.name, stream, got, want)
			}
			if string(buf) != tc.client {
				t.Fatalf("%s: the client's buffer is now %s", tc.name, buf)
			}
		}
	}
}
