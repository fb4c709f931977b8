package apitest

import (
	"encoding/json"
	"testing"

	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/tokens"
)

// FastPath is a protocol's fast decode of a body's top-level members into
// r: the chat messages and their estimate, or ok false where it gives up.
type FastPath[R any] func(top map[string]json.RawMessage, r *R) (msgs json.RawMessage, est tokens.PromptEstimate, ok bool)

// Decoded is a body read by a protocol's fast path and by the full decode
// (encoding/json) that the fast path stands in for.
type Decoded[R any] struct {
	Fast, Full R
	Msgs       json.RawMessage       // the fast path's chat messages
	Est        tokens.PromptEstimate // and their estimate
}

// DecodeBoth reads body with fast and, when fast takes it, with the full
// decode too, failing t when the full decode refuses a body fast took. It
// returns false when fast gave up (or body is no JSON object).
func DecodeBoth[R any](t *testing.T, body []byte, fast FastPath[R]) (*Decoded[R], bool) {
	t.Helper()
	top, err := api.SplitObject(body)
	if err != nil || top == nil {
		return nil, false
	}
	d := new(Decoded[R])
	var ok bool
	if d.Msgs, d.Est, ok = fast(top, &d.Fast); !ok {
		return nil, false
	}
	if err := json.Unmarshal(body, &d.Full); err != nil {
		t.Fatalf("%s: fast, but the full decode fails: %v", body, err)
	}
	return d, true
}

// CheckEstimate fails t unless est, the fast path's estimate, is what
// tokens.EstimatePrompt makes of want, the full decode's messages.
func CheckEstimate(t *testing.T, body, want []byte, est tokens.PromptEstimate) {
	t.Helper()
	if wantEst, err := tokens.EstimatePrompt(want); err != nil || est != wantEst {
		t.Fatalf("%s: estimate %+v, want EstimatePrompt's %+v (%v)", body, est, wantEst, err)
	}
}
