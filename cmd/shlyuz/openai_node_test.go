package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/providers/fake"
)

// openaiNodeSDK is OpenAI's TypeScript SDK, pinned (7.x needs Node 22).
const openaiNodeSDK = "openai@6.30.1"

// TestOpenAINodeSDKResponsesAndEmbeddings drives the openai npm package's
// responses.create (plain, a function-calling round trip streamed) over the
// five protocols, embeddings.create, and a stateful request's 400.
func TestOpenAINodeSDKResponsesAndEmbeddings(t *testing.T) {
	modules := npmInstall(t, openaiNodeSDK)
	_, key := account(t, h.base, 10_000_000, nil)
	models, _ := json.Marshal(responsesModels)
	raw := runNode(t, modules, "openai_responses.mjs", "SHLYUZ_BASE="+h.base, "SHLYUZ_KEY="+key, "SHLYUZ_MODELS="+string(models))
	var r struct {
		Models map[string]struct {
			Text, Status string
			Output       int64
			Call         *struct {
				Name string
				Args map[string]any
			}
			Types   []string
			Ordered bool
			Second  string
		}
		Embeddings struct {
			N, Dims, Tokens int
			First           []float32
		}
		Stateful struct {
			Status     int
			Param, Cls string
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	for _, model := range responsesModels {
		m := r.Models[model]
		if m.Text != "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7" || m.Status != "completed" || m.Output != 8 {
			t.Errorf("%s: plain %+v", model, m)
		}
		if m.Call == nil || m.Call.Name != "get_weather" || m.Call.Args == nil {
			t.Errorf("%s: call %+v", model, m.Call)
		}
		for _, want := range []string{"response.created", "response.output_item.added", "response.output_text.delta", "response.completed"} {
			if !slices.Contains(m.Types, want) {
				t.Errorf("%s: no %s in %v", model, want, m.Types)
			}
		}
		if !m.Ordered || !strings.HasPrefix(m.Second, "tok0") {
			t.Errorf("%s: stream ordered %v, text %q", model, m.Ordered, m.Second)
		}
	}
	e := r.Embeddings
	if e.N != 2 || e.Dims != 4 || e.Tokens != 4 || !slices.Equal(e.First, fake.EmbeddingVector(3, 4)) {
		t.Errorf("embeddings %+v", e)
	}
	if s := r.Stateful; s.Status != 400 || s.Param != "previous_response_id" || s.Cls != "BadRequestError" {
		t.Errorf("stateful %+v", s)
	}
}
