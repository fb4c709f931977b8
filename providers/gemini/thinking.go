package gemini

import (
	"encoding/json"

	"github.com/shlyuz/shlyuz"
)

// thinkingConfig is Gemini's reasoning setting: a budget of thinking tokens
// (0 turns thinking off where the model allows it) and whether the thoughts
// come back in the reply.
type thinkingConfig struct {
	ThinkingBudget  *int64 `json:"thinkingBudget,omitempty"`
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
}

// Gemini's thinking budget range.
const (
	minThinkingBudget = 128
	maxThinkingBudget = 32768
)

// readReasoning reads reasoning (OpenRouter's) or reasoning_effort (OpenAI's).
func readReasoning(f map[string]json.RawMessage) (shlyuz.Reasoning, bool, *shlyuz.Error) {
	var r shlyuz.Reasoning
	if ok, err := decodeField(f, "reasoning", &r, `an object such as {"effort":"high"}`); err != nil {
		return r, false, err
	} else if !ok {
		var effort string
		if ok, err := decodeField(f, "reasoning_effort", &effort, "a string"); err != nil || !ok {
			return r, false, err
		}
		r.Effort = effort
	}
	return r, true, nil
}

// translateThinking sets gc.ThinkingConfig from the request's reasoning: a
// budget of max_tokens, or the effort's share of the completion ceiling,
// "none" or enabled:false a budget of 0; the thoughts are included unless
// exclude is set.
func translateThinking(f map[string]json.RawMessage, gc *generationConfig) *shlyuz.Error {
	r, ok, err := readReasoning(f)
	if err != nil || !ok {
		return err
	}
	if r.Off() {
		zero := int64(0)
		gc.ThinkingConfig = &thinkingConfig{ThinkingBudget: &zero}
		return nil
	}
	tc := &thinkingConfig{IncludeThoughts: !r.Exclude}
	budget := r.MaxTokens
	if budget <= 0 && r.Effort != "" {
		ceiling := gc.MaxOutputTokens
		if ceiling <= 0 {
			ceiling = maxThinkingBudget
		}
		var known bool
		if budget, known = shlyuz.ReasoningBudget(r.Effort, ceiling, minThinkingBudget, maxThinkingBudget); !known {
			return shlyuz.ErrInvalidValue("reasoning", "reasoning.effort is one of minimal, low, medium, high, xhigh, none; not %q.", r.Effort)
		}
	}
	if budget > 0 {
		budget = min(max(budget, minThinkingBudget), maxThinkingBudget)
		tc.ThinkingBudget = &budget
	}
	gc.ThinkingConfig = tc
	return nil
}

// showsThoughts reports whether the request asked for the reasoning text.
func showsThoughts(f map[string]json.RawMessage) bool {
	r, ok, err := readReasoning(f)
	return err == nil && ok && !r.Exclude && !r.Off()
}
