package actors

import (
	"encoding/json"
	"slices"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

// provider.require_parameters keeps only the upstreams whose protocol carries
// every parameter the request sets, and names what none carries.
func TestRequireParameters(t *testing.T) {
	up := func(name, protocol string) *Upstream {
		return &Upstream{Config: shlyuz.UpstreamConfig{Name: name, Protocol: protocol}}
	}
	oa, an, ge, gc, ya := up("oa", "openai"), up("an", "anthropic"), up("ge", "gemini"), up("gc", "gigachat"), up("ya", "yandex")
	all := []*Upstream{oa, an, ge, gc, ya}
	fields := func(body string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		require bool
		model   string
		body    string
		ups     []*Upstream
		want    []string
		missing []string
	}{
		{"off keeps all", false, "m", `{"top_k":5,"seed":1}`, all, []string{"oa", "an", "ge", "gc", "ya"}, nil},
		{"no parameters keeps all", true, "m", `{"model":"m","messages":[],"stream":true}`, all, []string{"oa", "an", "ge", "gc", "ya"}, nil},
		{"seed", true, "m", `{"seed":7}`, all, []string{"oa", "ge"}, nil},
		{"top_k", true, "m", `{"top_k":5}`, all, []string{"an", "ge"}, nil},
		{"null is not set", true, "m", `{"top_k":null,"logprobs":null}`, all, []string{"oa", "an", "ge", "gc", "ya"}, nil},
		{"response_format and tools", true, "m", `{"response_format":{"type":"json_object"},"tools":[]}`, all, []string{"oa", "an", "ge", "ya"}, nil},
		{"openai reasoning model drops temperature", true, "openai/o3", `{"temperature":0.2}`, []*Upstream{oa, gc}, []string{"gc"}, nil},
		{"none carries it", true, "m", `{"seed":1,"temperature":1}`, []*Upstream{an, gc}, []string{}, []string{"seed"}},
		{"none carries them all", true, "m", `{"seed":1,"top_k":2}`, []*Upstream{oa, an}, []string{}, []string{"seed", "top_k"}},
		{"two none carries", true, "m", `{"repetition_penalty":1.1,"logit_bias":{},"top_k":3}`, []*Upstream{ya}, []string{}, []string{"logit_bias", "repetition_penalty", "top_k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept, missing := requireParameters(tc.ups, &ChatCall{Fields: fields(tc.body), RequireParameters: tc.require}, tc.model)
			if got := names(kept); !slices.Equal(got, tc.want) {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
			if !slices.Equal(missing, tc.missing) {
				t.Errorf("missing %v, want %v", missing, tc.missing)
			}
		})
	}
}
