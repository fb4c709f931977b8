package responses

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/http/internal/apitest"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// TestFastResponsesIsTheFullDecode: for an input of text and calls,
// fastResponses takes the fast way and gives chat's messages as the full
// decode (json.Unmarshal, responsesMessages, plainjson.Marshal) writes them (byte
// for byte where the client's literals are what encoding/json writes,
// checkSameJSON), and the same request; for what it cannot be sure of it
// gives up.
func TestFastResponsesIsTheFullDecode(t *testing.T) {
	for _, tc := range responsesFastCases {
		body := []byte(`{"model":"m","max_output_tokens":64,` + tc.body)
		if ok := checkFastResponses(t, body); ok != tc.fast {
			t.Fatalf("%s: fast %v, want %v", body, ok, tc.fast)
		}
	}
}

// FuzzFastResponses: on any body, when fastResponses takes the fast way its
// result is the full decode's.
func FuzzFastResponses(f *testing.F) {
	for _, tc := range responsesFastCases {
		f.Add([]byte(`{"model":"m",` + tc.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkFastResponses(t, body) })
}

var responsesFastCases = []struct {
	body string
	fast bool
}{
	{`"input":"hi"}`, true},
	{`"input":""}`, true},
	{`"instructions":"be <brief> & kind","input":"a\nb \"c\" \\ 😀 Привет"}`, true},
	{`"input":[{"role":"user","content":"x"},{"type":"message","role":"assistant","content":"y","id":"msg_1","status":"completed"},{"role":"developer","content":[{"type":"input_text","text":"one"},{"type":"output_text"},{"type":"text","text":""}]},{"role":"system","content":[]}],"temperature":0.5,"stream":true}`, true},
	// A coding agent's turn: calls join the assistant message before them,
	// outputs are tool messages, reasoning is left out.
	{`"input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]}`, true},
	{`"instructions":"x","input":[{"role":"user","content":"go"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"},` +
		`{"role":"assistant","content":"ok"},{"type":"function_call","id":"fc_1","call_id":"c1","name":"shell","arguments":"{\"cmd\":\"ls\\n\"}","status":"completed"},` +
		`{"type":"function_call","call_id":"c2","name":"read","arguments":""},` +
		`{"type":"function_call_output","call_id":"c1","output":"a\tb\n"},{"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"one "},{"type":"output_text","text":"two"}],"id":"fco_2"},` +
		`{"type":"function_call","call_id":"c3","name":"f"},{"type":"function_call_output","call_id":"c3","output":[]},{"role":"assistant","content":"done"}]}`, true},
	{`"input":[{"type":"function_call_output","output":"x"},{"type":"reasoning"},{"type":"function_call","name":"f","arguments":"{}"},{"type":"function_call","call_id":"c4","name":"g","arguments":"{}"}]}`, true},
	{`"input":[{"type":"reasoning","content":[{"type":"reasoning_text","text":"hm"}]}]}`, true},
	// Escapes encoding/json would not write (openai-go escapes HTML,
	// Python's json.dumps all but ASCII; a terminal's colours).
	{`"input":"caf\u00e9 \u003cb\u003e"}`, true},
	{`"instructions":"x","input":[{"role":"user","content":[{"type":"input_text","text":"\u041f\u0440\u0438\u0432\u0435\u0442"}]},{"type":"function_call","call_id":"c1","name":"f","arguments":"{\u0022a\u0022:1}"},` +
		`{"type":"function_call_output","call_id":"c1","output":"\u001b[0m"},{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"\ud83d\ude00 a\/b"}]}]}`, true},
	// Instructions as Codex sends them (kilobytes), escaped or not.
	{`"instructions":"You are Codex.\n\n## Rules\n- Use \u003capply_patch\u003e \u0026 shell.\n","input":"x"}`, true},
	{`"instructions":null,"input":"x"}`, true},
	{`"instructions":"","input":"x"}`, true},
	{`"instructions":"a","instructions":"b","input":"x"}`, true}, // the last, as encoding/json reads it
	// Tool definitions, as Codex sends them.
	{`"input":"x","tools":[{"type":"function","name":"shell","description":"Runs a shell \u003ccommand\u003e.","strict":false,"parameters":{ "type" : "object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"],"additionalProperties":false}},` +
		`{"type":"function","name":"update_plan","description":"","parameters":null,"strict":null},{"type":"function","name":"n\u0061me","strict":true}],"tool_choice":"auto","parallel_tool_calls":false}`, true},
	{`"input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"f"}}`, true},
	{`"input":"x","tools":[],"tool_choice":"required"}`, true},
	{`"input":"x","tools":null}`, true},
	{`"input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":"sometimes"}`, true},
	// Not sure: the full decode answers.
	{`"instructions":"half \ud83d","input":"x"}`, false},
	{`"instructions":5,"input":"x"}`, false},
	{`"input":"x","tools":[{"type":"local_shell"}]}`, false},
	{`"input":"x","tools":[{"type":"web_search","name":"w"}]}`, false},
	{`"input":"x","tools":[{"name":"f"}]}`, false},
	{`"input":"x","tools":[{"type":"function","name":""}]}`, false},
	{`"input":"x","tools":[{"type":"function"}]}`, false},
	{`"input":"x","tools":[{"type":"function","name":"f","strict":"yes"}]}`, false},
	{`"input":"x","tools":[{"type":"function","name":"f","description":5}]}`, false},
	{`"input":"x","tools":[{"type":"function","name":"f","name":"g"}]}`, false},
	{`"input":"x","tools":[{"type":"function","name":"f","extra":1}]}`, false},
	{`"input":"x","tools":[null]}`, false},
	{`"input":"x","tools":{"type":"function","name":"f"}}`, false},
	{`"input":"half \ud83d a pair"}`, false},
	{`"input":[{"type":"function_call_output","call_id":"c1","output":"\udfff"}]}`, false},
	{`"input":"bad ` + "\xff" + ` byte"}`, false},
	{`"input":[{"role":"assistant","content":[{"type":"output_text","text":"y"}]}]}`, false},
	{`"input":[{"type":"function_call","call_id":"c1","call_id":"c2","name":"f","arguments":"{}"}]}`, false},
	{`"input":[{"type":"function_call","call_id":"c1","name":"f","arguments":null}]}`, false},
	{`"input":[{"type":"function_call","call_id":"c1","name":"f","arguments":{"a":1}}]}`, false},
	{`"input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}","output":"x"}]}`, false},
	{`"input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}","extra":1}]}`, false},
	{`"input":[{"type":"function_call_output","call_id":"c1"}]}`, false},
	{`"input":[{"type":"function_call_output","call_id":"c1","output":{"ok":true}}]}`, false},
	{`"input":[{"type":"function_call_output","call_id":"c1","output":5}]}`, false},
	{`"input":[{"type":"function_call_output","call_id":"c1","output":[{"type":"input_image","image_url":"https://x/y.png"}]}]}`, false},
	{`"input":[{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"a","text":"b"}]}]}`, false},
	{`"input":[{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":5}]}]}`, false},
	{`"input":[{"type":"function_call_output","call_id":"c1","output":[null]}]}`, false},
	{`"input":[{"type":"reasoning","role":"x"}]}`, false},
	{`"input":[{"type":"reasoning","type":"reasoning"}]}`, false},
	{`"input":[{"type":"web_search_call","id":"ws_1"}]}`, false},
	{`"input":[{"role":"user","content":[{"type":"input_image","image_url":"https://x/y.png"}]}]}`, false},
	{`"input":[{"role":"tool","content":"x"}]}`, false},
	{`"input":[{"Role":"user","content":"x"}]}`, false},
	{`"input":[]}`, false},
	{`"input":{}}`, false},
	{`"input":"x","max_output_tokens":"many"}`, false},
}

// checkFastResponses reports whether fastResponses took the fast way with
// body, failing t when its result differs from the full decode's.
func checkFastResponses(t *testing.T, body []byte) bool {
	t.Helper()
	d, ok := apitest.DecodeBoth(t, body, fastResponses)
	if !ok {
		return false
	}
	fast, full := &d.Fast, &d.Full
	turns, rerr := responsesMessages(full)
	if rerr != nil {
		t.Fatalf("%s: fast, but the full decode refuses it: %v", body, rerr)
	}
	want, err := plainjson.Marshal(turns)
	if err != nil {
		t.Fatal(err)
	}
	apitest.CheckSameJSON(t, body, d.Msgs, want)
	apitest.CheckEstimate(t, body, want, d.Est)
	// The tools, and the tool_choice that goes with them, as responsesTools
	// writes them of the full decode's.
	wantF, gotF := map[string]any{}, map[string]any{}
	werr, gerr := responsesTools(full, wantF), responsesTools(fast, gotF)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%s: tools refused %v, want %v", body, gerr, werr)
	}
	if wantF["tools"] == nil {
		if fast.chatTools != nil {
			t.Fatalf("%s: tools %s, want none", body, fast.chatTools)
		}
	} else {
		apitest.CheckSameJSON(t, body, fast.chatTools, []byte(fmtJSON(t, wantF["tools"])))
	}
	if a, b := fmtJSON(t, wantF["tool_choice"]), fmtJSON(t, gotF["tool_choice"]); a != b {
		t.Fatalf("%s: tool_choice %s, want %s", body, b, a)
	}
	// The instructions, taken as the client wrote them: the same text, and
	// the same Response echoes them.
	var ins string
	if fast.instructions != nil {
		if fast.Instructions != "" || json.Unmarshal(fast.instructions, &ins) != nil {
			t.Fatalf("%s: instructions %q and %s", body, fast.Instructions, fast.instructions)
		}
	}
	if ins != full.Instructions {
		t.Fatalf("%s: instructions %q, want %q", body, ins, full.Instructions)
	}
	top, _ := api.SplitObject(body)
	wantResp := NewResponseBuilder("resp_1", "m", full, top).Response(nil, "", nil)
	gotResp := NewResponseBuilder("resp_1", "m", fast, top).Response(nil, "", nil)
	wantResp.CreatedAt, gotResp.CreatedAt = 0, 0
	apitest.CheckSameJSON(t, body, []byte(fmtJSON(t, gotResp)), []byte(fmtJSON(t, wantResp)))
	full.Input, fast.Input, full.Tools, full.Instructions = nil, nil, nil, ""
	if a, b := fmtJSON(t, full), fmtJSON(t, fast); a != b {
		t.Fatalf("%s: request\n%s\nwant\n%s", body, b, a)
	}
	return true
}

func fmtJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkParseResponses is parseResponses on a 150 KB conversation of
// text (as BenchmarkParseMessages: code and prose, escapes every few bytes),
// as a string input and as input items of text parts, beside the full
// decode the fast path replaces.
func BenchmarkParseResponses(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat("The gateway reserves the worst case.\nfunc settle() {\n\treturn \"held\"\n}\n", 150_000/72))
	head := `{"model":"gpt-x","max_output_tokens":64,"instructions":"You are a careful coding assistant.",`
	for _, tc := range []struct{ name, body string }{
		{"string", head + `"input":` + string(text) + `}`},
		{"items", head + `"input":[{"role":"user","content":[{"type":"input_text","text":` + string(text[:len(text)/2]) + `"}]},` +
			`{"role":"assistant","content":"ok"},{"role":"user","content":"` + string(text[len(text)/2:]) + `}]}`},
		{"codex", head + codexInput()},
	} {
		body := []byte(tc.body)
		if !json.Valid(body) {
			b.Fatalf("%s: not JSON", tc.name)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ParseResponses(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/full-decode", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				var r responsesRequest
				if err := json.Unmarshal(body, &r); err != nil {
					b.Fatal(err)
				}
				if _, err := responsesMessages(&r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// codexInput is the input of a Codex-like turn of about 150 KB: a user
// message, then rounds of an assistant's words, a function_call of a shell
// command and its function_call_output of a long listing or file, as
// the gateway's encoder writes them (no HTML escapes; Codex's serde_json
// escapes alike).
func codexInput() string {
	out := strings.Repeat("func settle(h *Hold) error {\n\tif h.amount > limit {\n\t\treturn fmt.Errorf(\"over %d\", limit)\n\t}\n\treturn nil\n}\n", 15_000/96)
	var b strings.Builder
	b.WriteString(`"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Find why settlement double-counts holds and fix it."}]}`)
	for i := 0; b.Len() < 150_000; i++ {
		id := "call_" + strings.Repeat(string(rune('a'+i%26)), 24)
		args, _ := plainjson.Marshal(map[string]any{"command": []string{"bash", "-lc", "rg -n \"settle\" actors/ | head -200"}, "workdir": "/work/main", "timeout_ms": 10000})
		argLit, _ := plainjson.Marshal(string(args))
		outLit, _ := plainjson.Marshal(out)
		b.WriteString(`,{"type":"message","role":"assistant","content":"Looking at the settlement code next."}`)
		b.WriteString(`,{"type":"function_call","id":"fc_` + id[5:] + `","call_id":"` + id + `","name":"shell","arguments":` + string(argLit) + `}`)
		b.WriteString(`,{"type":"function_call_output","call_id":"` + id + `","output":` + string(outLit) + `}`)
	}
	b.WriteString(`,{"type":"message","role":"assistant","content":"The hold is released twice; patching."}]}`)
	return b.String()
}

// BenchmarkParseResponsesCodex is parseResponses on a request shaped as Codex
// sends one: about 20 KB of instructions, eight function tools and a short
// input.
func BenchmarkParseResponsesCodex(b *testing.B) {
	ins, _ := json.Marshal(strings.Repeat("You are Codex, a coding agent. Keep going until the query is resolved; use `apply_patch` to edit files & <run> tests.\n", 170))
	var tools []string
	for i := range 8 {
		tools = append(tools, `{"type":"function","name":"tool_`+strconv.Itoa(i)+`","description":"Runs a shell command and returns its output.","strict":false,`+
			`"parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}},"workdir":{"type":"string"},"timeout_ms":{"type":"number"}},"required":["command"],"additionalProperties":false}}`)
	}
	body := []byte(`{"model":"gpt-5-codex","instructions":` + string(ins) + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the failing test"}]}],` +
		`"tools":[` + strings.Join(tools, ",") + `],"tool_choice":"auto","parallel_tool_calls":false,"reasoning":{"effort":"medium","summary":"auto"},"store":false,"stream":true}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseResponses(body); err != nil {
			b.Fatal(err)
		}
	}
}
