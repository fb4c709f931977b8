package anthropic

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/http/internal/apitest"
)

// TestFastMessagesIsTheFullDecode: for conversations of text and tools,
// fastMessages takes the fast way and gives chat's messages as the full
// decode (json.Unmarshal, chatFields) writes them (byte for byte where the
// client's literals are what encoding/json writes, checkSameJSON), and the
// same request fields; for what it cannot be sure of it gives up.
func TestFastMessagesIsTheFullDecode(t *testing.T) {
	for _, tc := range fastCases {
		body := []byte(fastHead + tc.body)
		ok := checkFastMessages(t, body)
		if ok != tc.fast {
			t.Fatalf("%s: fast %v, want %v", body, ok, tc.fast)
		}
	}
	if !checkFastMessages(t, agentMessages(20_000)) {
		t.Fatal("a coding agent's conversation (BenchmarkParseMessages/agent) is not read the fast way")
	}
}

// FuzzFastMessages: on any body, when fastMessages takes the fast way its
// result is the full decode's.
func FuzzFastMessages(f *testing.F) {
	for _, tc := range fastCases {
		f.Add([]byte(fastHead + tc.body))
	}
	f.Add(agentMessages(2000)) // past a few 64-byte blocks in each string
	f.Fuzz(func(t *testing.T, body []byte) { checkFastMessages(t, body) })
}

const fastHead = `{"model":"claude-x","max_tokens":64,"stream":true,"metadata":{"user_id":"u1"},`

var fastCases = []struct {
	body string
	fast bool
}{
	{`"messages":[{"role":"user","content":"hi"}]}`, true},
	{`"system":"be brief","messages":[{"role":"user","content":"a\nb\t\"c\" \\ \b\f"},{"role":"assistant","content":"ok"},{"role":"user","content":"Привет, 世界 😀"}]}`, true},
	{`"system":[{"type":"text","text":"sys","cache_control":{ "type" : "ephemeral" }},{"type":"text","text":""},{"type":"text"}],"messages":[{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":""},{"type":"text","text":"two","cache_control":null}]}]}`, true},
	{`"system":"","messages":[{"role":"user","content":""},{"role":"assistant","content":[{"type":"text","text":""},{"type":"text","text":"said"}]},{"role":"user","content":[]},{"role":"assistant","content":""}]}`, true},
	{`"system":[],"messages":[{"role":"user","content":""}]}`, true},
	{`"messages":[{"role":"user","content":"x","extra":[1,2]}],"tools":[{"name":"f","input_schema":{"type":"object"}}],"tool_choice":{"type":"auto"}}`, true},
	{`"messages":[{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`, true},
	// A coding agent's turns: tool_use, tool_result, thinking.
	{`"messages":[{"role":"user","content":"fix it"},{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"t1","name":"Read","input":{ "path" : "a\"b.go" }}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"pkg a\n\tx := \"<&>\""},{"type":"text","text":"and?","cache_control":{"type":"ephemeral"}},{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"no "},{"type":"text"},{"type":"text","text":"such file"}]}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Run"},{"type":"tool_use","id":"t4","name":"Ls","input":null},{"type":"redacted_thinking","data":"x"}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3"},{"type":"tool_result","tool_use_id":"t4","content":[],"is_error":false,"cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"only"}]},{"role":"user","content":[{"type":"tool_result","content":""}]}]}`, true},
	// Tool definitions, as a coding agent sends them.
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"name":"Bash","description":"Runs a \u003ccommand\u003e.\n\nUsage:\n - one","input_schema":{ "type" : "object", "properties":{"command":{"type":"string","description":"what to run"}},"required":["command"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}},` +
		`{"type":"custom","name":"Read","description":"","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},{"name":"N\u0061me","type":null},{"name":"C","cache_control":null}],"tool_choice":{"type":"tool","name":"Bash","disable_parallel_tool_use":true}}`, true},
	{`"messages":[{"role":"user","content":"x"}],"tools":[],"tool_choice":{"type":"any"}}`, true},
	{`"messages":[{"role":"user","content":"x"}],"tools":null}`, true},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f"}],"tool_choice":{"type":"sometimes"}}`, true},
	// Escapes encoding/json would not write: what anthropic-sdk-go sends
	// (HTML escaped), Python's json.dumps (all but ASCII), a terminal's
	// colours in a tool's output.
	{`"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t\u0031","content":"x"}]}]}`, true},
	{`"system":"caf\u00e9","messages":[{"role":"user","content":"if a \u003c b \u0026\u0026 c \u003e d"},{"role":"assistant","content":[{"type":"text","text":"\u041f\u0440\u0438\u0432\u0435\u0442 \ud83d\ude00"}]}]}`, true},
	{`"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"\u001b[0mok\u001b[0m"},{"type":"text","text":"a\/b line` + "\u2028" + `sep"}]}]}`, true},
	// Not sure: the full decode answers.
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5}]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"type":"custom","name":"f"},null]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"description":"no name"}]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"name":""}]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","description":null}]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","input_schema":null}]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","name":"g"}]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","strict":true}]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"Name":"f"}]}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":{"name":"f"}}`, false},
	{`"messages":[{"role":"user","content":"x"}],"tools":[{"name":"half \ud800"}]}`, false},
	{`"messages":[{"role":"user","content":"half \ud83d a pair"}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"text","text":"\ude00"}]}]}`, false},
	{`"messages":[{"role":"user","content":"bad ` + "\xff" + ` byte"}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":"yes","content":"x"}]}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x","content":"y"}]}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","text":"x"}]}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":7}]}]}`, false},
	{`"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":null,"input":{}}]}]}`, false},
	{`"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{},"extra":1}]}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]}]}`, false},
	{`"messages":[{"Role":"user","content":"x"}]}`, false},
	{`"Messages":[{"role":"user","content":"x"}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]}`, false},
	{`"messages":[{"role":"user","content":[{"type":"text","text":"a","citations":[]}]}]}`, false},
	// A system message mid-conversation (Claude Code's beta) stays where it stands.
	{`"messages":[{"role":"system","content":"x"}]}`, true},
	{`"system":"first","messages":[{"role":"user","content":"hi"},{"role":"system","content":[{"type":"text","text":"now terse","cache_control":{"type":"ephemeral"}}]},{"role":"user","content":"go"}]}`, true},
	{`"messages":[{"role":"system","content":[{"type":"image"}]}]}`, false},
	{`"messages":[{"role":"developer","content":"x"}]}`, false},
	{`"messages":[]}`, false},
	{`"messages":{}}`, false},
	{`"messages":[{"role":"user","content":"x"}],"max_tokens":"many"}`, false},
}

// checkFastMessages reports whether fastMessages took the fast way with body,
// failing t when its result differs from the full decode's.
func checkFastMessages(t *testing.T, body []byte) bool {
	t.Helper()
	d, ok := apitest.DecodeBoth(t, body, fastMessages)
	if !ok {
		return false
	}
	fast, full := &d.Fast, &d.Full
	if fast.MaxTokens == nil {
		return true // parseMessages refuses it before chatFields
	}
	{
		want, _, werr := chatFields(full, nil)
		got, _, gerr := chatFields(fast, d.Msgs)
		if werr != nil || gerr != nil {
			if werr != nil && gerr != nil && werr.Error() == gerr.Error() {
				return true // refused alike (a tool without a name)
			}
			t.Fatalf("%s: errors %v, %v", body, werr, gerr)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: fields %d, want %d", body, len(got), len(want))
		}
		for k, w := range want {
			apitest.CheckSameJSON(t, body, got[k], w)
		}
		apitest.CheckEstimate(t, body, want["messages"], d.Est)
		if len(full.Messages) == 0 || !bytes.Equal(fast.System, full.System) {
			t.Fatalf("%s: fast with %d turns, system %s; want %s", body, len(full.Messages), fast.System, full.System)
		}
	}
	return true
}

// BenchmarkParseMessages is parseMessages on a 150 KB conversation of text,
// beside the full decode it replaces (json.Unmarshal, chatFields).
func BenchmarkParseMessages(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat("The gateway reserves the worst case.\nfunc settle() {\n\treturn \"held\"\n}\n", 150_000/72))
	body := []byte(`{"model":"claude-x","max_tokens":64,"system":"You are a careful coding assistant.","messages":[{"role":"user","content":` + string(text) + `}]}`)
	noHeader := func(string, ...string) string { return "" }
	b.Run("agent", func(b *testing.B) { // a coding agent's turn: tools, tool_use and tool_result blocks (the full decode today)
		body := agentMessages(150_000)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseMessages(body, noHeader, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseMessages(body, noHeader, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	// As anthropic-sdk-go writes it (HTML escaped: \u003c, \u0026 in
	// code) and as Python's json.dumps does (Cyrillic as \u escapes).
	for name, text := range map[string]string{
		"go-sdk": strings.Repeat("if a < b && c > d {\n\treturn \"held\"\n}\n", 150_000/40),
		"python": strings.Repeat("Шлюз резервирует худший случай.\n", 150_000/60),
	} {
		var lit []byte
		if name == "python" {
			lit = []byte(strconv.QuoteToASCII(text)) // \u0428…, as ensure_ascii writes them
		} else {
			lit, _ = json.Marshal(text) // HTML escaped, as encoding/json's Marshal writes by default
		}
		body := []byte(`{"model":"claude-x","max_tokens":64,"messages":[{"role":"user","content":` + string(lit) + `}]}`)
		b.Run("fast-"+name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseMessages(body, noHeader, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("full-decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			var r anthropicRequest
			if err := json.Unmarshal(body, &r); err != nil {
				b.Fatal(err)
			}
			if _, _, err := chatFields(&r, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// agentMessages is a coding agent's Messages body of about n bytes: a system
// prompt of cached text blocks, a few tools, and turns of tool_use and
// tool_result blocks carrying files.
func agentMessages(n int) []byte {
	file, _ := json.Marshal(strings.Repeat("func settle(h *Hold) error {\n\tif h == nil {\n\t\treturn errNoHold\n\t}\n\treturn h.commit()\n}\n", 40))
	var turns []string
	for i := 0; 200+len(strings.Join(turns, ",")) < n; i++ {
		id := `"toolu_` + strings.Repeat("0", 3) + string(rune('a'+i%26)) + `"`
		turns = append(turns,
			`{"role":"assistant","content":[{"type":"text","text":"Reading the file."},{"type":"tool_use","id":`+id+`,"name":"Read","input":{"file_path":"/src/settle.go"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":`+id+`,"content":`+string(file)+`}]}`)
	}
	return []byte(`{"model":"claude-x","max_tokens":4096,"stream":true,` +
		`"system":[{"type":"text","text":"You are a coding agent.","cache_control":{"type":"ephemeral"}}],` +
		`"tools":[{"name":"Read","description":"Reads a file.","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}}],` +
		`"messages":[{"role":"user","content":"Fix the settle bug."},` + strings.Join(turns, ",") + `]}`)
}

// claudeCodeTools is a tools array as a coding agent sends it in every
// request: n tools, each with a description of about 1.5 KB and a schema.
func claudeCodeTools(n int) string {
	desc, _ := json.Marshal(strings.Repeat("Executes a given bash command in a persistent shell session with optional timeout.\n - Always quote paths that contain spaces.\n", 12))
	var tools []string
	for i := range n {
		tools = append(tools, `{"name":"Tool`+strconv.Itoa(i)+`","description":`+string(desc)+
			`,"input_schema":{"type":"object","properties":{"command":{"type":"string","description":"The command to execute"},"timeout":{"type":"number","description":"Optional timeout in milliseconds (max 600000)"}},"required":["command"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}}`)
	}
	return "[" + strings.Join(tools, ",") + "]"
}

// BenchmarkParseMessagesTools is parseMessages on a short turn with twenty
// tool definitions (about 40 KB), as a coding agent's request starts.
func BenchmarkParseMessagesTools(b *testing.B) {
	body := []byte(`{"model":"claude-x","max_tokens":4096,"stream":true,"system":[{"type":"text","text":"You are a coding agent.","cache_control":{"type":"ephemeral"}}],` +
		`"tools":` + claudeCodeTools(20) + `,"messages":[{"role":"user","content":"Fix the settle bug."}]}`)
	noHeader := func(string, ...string) string { return "" }
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseMessages(body, noHeader, false); err != nil {
			b.Fatal(err)
		}
	}
}
