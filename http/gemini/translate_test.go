package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/internal/golden"
)

// receipt is a settled call of an upstream that thought: 8 prompt tokens
// (2 cached), 12 completion tokens of which 4 reasoning.
var receipt = &actors.Receipt{Usage: shlyuz.Usage{PromptTokens: 8, CachedTokens: 2, CompletionTokens: 12, ReasoningTokens: 4, TotalTokens: 20},
	Credits: 250, FinishReason: "stop"}

// An OpenAI reply's choices as Google's GenerateContentResponse: thoughts,
// text, function calls (arguments as the object args is), finish reasons,
// candidates by index, usage with the thinking apart.
func TestReplyGolden(t *testing.T) {
	choices := `[
	{"index":0,"message":{"role":"assistant","content":"Hello.","reasoning":"The user greets."},"finish_reason":"stop"},
	{"index":1,"message":{"role":"assistant","content":null,"tool_calls":[
		{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"call_b","type":"function","function":{"name":"get_time","arguments":"not json"}}]},"finish_reason":"tool_calls"},
	{"index":2,"message":{"role":"assistant","content":"Cut sho"},"finish_reason":"length"}]`
	b, err := replyOf(json.RawMessage(choices), "gen-1", "gemini-2.5-flash", receipt)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	golden.Check(t, "reply.golden", out.Bytes())
}

// A chat stream as Google's: text and thoughts as they come, a function call
// whole in the last chunk with the finish and the usage, in both framings;
// a failure is Google's error object in place of a chunk.
func TestStreamGolden(t *testing.T) {
	chunks := []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning":"Thinking."}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Let me check"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":" the weather."}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":12}}`,
	}
	for _, tc := range []struct {
		name    string
		sse     bool
		chunks  int // of chunks, sent before the end
		outcome error
	}{
		{"stream_sse.golden", true, len(chunks), nil},
		{"stream_array.golden", false, len(chunks), nil},
		{"stream_failed.golden", true, 3, shlyuz.ErrUpstream("The upstream's stream broke.")},
		// A durable settlement refused at the end: the failure is the array's only element.
		{"stream_out_of_credits.golden", false, 0, shlyuz.ErrInsufficientCredits(0, 0, 100, false)},
	} {
		t.Run(strings.TrimSuffix(tc.name, ".golden"), func(t *testing.T) {
			var buf bytes.Buffer
			w := bufio.NewWriter(&buf)
			s := &Sink{ID: "gen-1", Model: "openai/gpt-5", SSE: tc.sse}
			for _, c := range chunks[:tc.chunks] {
				s.Event(w, &shlyuz.StreamEvent{Data: []byte(c)})
			}
			s.KeepAlive(w)
			s.End(w, tc.outcome, receipt)
			_ = w.Flush()
			golden.Check(t, tc.name, buf.Bytes())
		})
	}
}

// A Gemini upstream's own chunks pass as they are, framed as the client asked.
func TestStreamNativePasses(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	s := &Sink{ID: "gen-1", Model: "gemini-2.5-flash"}
	chunk := `{"candidates":[{"content":{"parts":[{"text":"hi","thoughtSignature":"c2ln"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4}}`
	s.Event(w, &shlyuz.StreamEvent{Native: []byte(chunk), Data: []byte(`{"choices":[{"index":0,"delta":{"content":"hi"}}]}`)})
	s.End(w, nil, receipt)
	_ = w.Flush()
	if got, want := buf.String(), "["+chunk+"]"; got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

// Each streamed function call stays with its own candidate, whatever the
// index of the call within its choice.
func TestStreamCallsKeepTheirCandidate(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	s := &Sink{ID: "gen-1", Model: "openai/gpt-5", SSE: true}
	for _, c := range []string{
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":64,"id":"call_a","function":{"name":"a","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"call_b","function":{"name":"b","arguments":"{}"}}]}}]}`,
	} {
		s.Event(w, &shlyuz.StreamEvent{Data: []byte(c)})
	}
	s.End(w, nil, receipt)
	_ = w.Flush()
	var last struct {
		Candidates []struct {
			Index   int
			Content struct {
				Parts []struct{ FunctionCall struct{ Name string } }
			}
		}
	}
	data, _ := strings.CutPrefix(strings.TrimSpace(buf.String()), "data: ")
	if err := json.Unmarshal([]byte(data), &last); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	got := map[int][]string{}
	for _, c := range last.Candidates {
		for _, p := range c.Content.Parts {
			got[c.Index] = append(got[c.Index], p.FunctionCall.Name)
		}
	}
	if len(got) != 2 || len(got[0]) != 1 || got[0][0] != "a" || len(got[1]) != 1 || got[1][0] != "b" {
		t.Fatalf("calls by candidate %v in %s", got, buf.String())
	}
}
