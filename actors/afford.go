package actors

import (
	"encoding/json"
	"fmt"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Anthropic's extended thinking takes a budget of at least this many tokens,
// below max_tokens: a call that thinks there needs a cap one above it.
const anthropicThinkingLeast = 1024

// thinkingNeed is the least completion cap with which the request can be
// served by one of ups: an Anthropic upstream refuses thinking whose budget
// does not fit below max_tokens, and its adapters lower the budget down to
// anthropicThinkingLeast to fit a lowered cap, no further. 0: no need.
func thinkingNeed(c *ChatCall, ups []*Upstream) int64 {
	anthropic := false
	for _, u := range ups {
		anthropic = anthropic || u.Config.Protocol == shlyuz.ProtocolAnthropic
	}
	if !anthropic {
		return 0
	}
	var r shlyuz.Reasoning
	if v := c.Fields["reasoning"]; len(v) > 0 && json.Unmarshal(v, &r) != nil {
		return 0 // the adapter refuses it with its own message
	}
	if v := c.Fields["reasoning_effort"]; r.Effort == "" && len(v) > 0 {
		_ = json.Unmarshal(v, &r.Effort)
	}
	on := r.MaxTokens > 0 || r.Effort != "" || (r.Enabled != nil && *r.Enabled)
	if !on || r.Off() {
		return 0
	}
	return anthropicThinkingLeast + 1
}

// loweredNote is the generation's note on a completion cap the gateway
// lowered below the client's to what its key's ceiling and balance afford.
func (cl *call) loweredNote() string {
	asked := cl.c.MaxTokens
	if cl.fixed > 0 || asked <= 0 || cl.model == nil {
		return ""
	}
	if out := cl.model.MaxOutputTokens; out > 0 {
		asked = min(asked, out) // the model's limit is not a lowering for money
	}
	if cl.maxTokens <= 0 || cl.maxTokens >= asked {
		return ""
	}
	return fmt.Sprintf("max_tokens lowered from %d to %d: what the key's ceiling and the balance afford", asked, cl.maxTokens)
}

// joinNotes is the generation's notes, each said once, in one line.
func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
