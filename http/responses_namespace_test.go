package http

import (
	"os"
	"testing"
)

// A namespace's function goes to chat under a flat name and its call comes
// back named as the client named it: name and namespace, as OpenAI's
// Responses API gives a namespaced function's call.
func TestNamespacedCallsAreNamedBack(t *testing.T) {
	raw, err := os.ReadFile("testdata/responses/request/codex_namespace.json")
	if err != nil {
		t.Fatal(err)
	}
	_, req, perr := parseResponses(raw)
	if perr != nil {
		t.Fatal(perr)
	}
	b := newResponseBuilder("gen-1", "openai/gpt-5", req, req.raw)
	b.toolCall(0, "call_2", "multi_agent_v1__spawn_agent", `{"task":"y"}`)
	b.toolCall(1, "call_3", "exec_command", `{"cmd":"ls"}`)
	b.closeLast()
	for i, want := range []struct{ name, namespace string }{{"spawn_agent", "multi_agent_v1"}, {"exec_command", ""}} {
		item := b.items[i].render("completed")
		ns, _ := item["namespace"].(string)
		if item["name"] != want.name || ns != want.namespace {
			t.Fatalf("item %d: %v, want %+v", i, item, want)
		}
	}
}
