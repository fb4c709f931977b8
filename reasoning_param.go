package shlyuz

// Reasoning is OpenRouter's reasoning request parameter; OpenAI's
// reasoning_effort is its Effort. Adapters read it from the request and
// turn it into their provider's thinking setting.
type Reasoning struct {
	Effort    string `json:"effort"`
	MaxTokens int64  `json:"max_tokens"`
	Exclude   bool   `json:"exclude"`
	Enabled   *bool  `json:"enabled"`
}

// Off reports whether the client turned reasoning off: effort "none" or
// enabled false.
func (r Reasoning) Off() bool {
	return r.Effort == "none" || (r.Enabled != nil && !*r.Enabled)
}

// ReasoningEffortShare is OpenRouter's share of the completion ceiling
// that each reasoning effort spends on thinking.
var ReasoningEffortShare = map[string]float64{"xhigh": 0.95, "high": 0.8, "medium": 0.5, "low": 0.2, "minimal": 0.1}

// ReasoningBudget is effort's share of ceiling tokens, within the
// provider's [lo, hi] thinking budget. It is 0 when that share comes to no
// whole token (a ceiling of 0 or too small to think in), leaving the
// adapter to decide, and ok is false for an effort ReasoningEffortShare
// does not know.
func ReasoningBudget(effort string, ceiling, lo, hi int64) (budget int64, ok bool) {
	share, ok := ReasoningEffortShare[effort]
	if !ok {
		return 0, false
	}
	budget = int64(float64(ceiling) * share)
	if budget <= 0 {
		return 0, true
	}
	return min(max(budget, lo), hi), true
}
