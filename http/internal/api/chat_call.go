package api

import (
	"encoding/json"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/tokens"
)

// IsNull reports whether raw is JSON null.
func IsNull(raw json.RawMessage) bool { return len(raw) == 4 && string(raw) == "null" }

// WithDefinitions adds to a prompt's estimate what the upstream renders from request fields (tools,
// a response schema): the largest of the given forms of the same definitions, and the tool-use
// preamble they count (tokens.PromptEstimate.Preamble).
func WithDefinitions(est tokens.PromptEstimate, forms ...tokens.PromptEstimate) tokens.PromptEstimate {
	var defs tokens.PromptEstimate
	var perByte int64 // the largest form's count at a token a byte
	for _, f := range forms {
		defs.Reserve, defs.Likely = max(defs.Reserve, f.Reserve), max(defs.Likely, f.Likely)
		perByte = max(perByte, shlyuz.AddChecked(f.Reserve, f.Saved))
		est.Preamble = max(est.Preamble, f.Preamble)
	}
	est.Reserve, est.Likely = shlyuz.AddChecked(est.Reserve, defs.Reserve), shlyuz.AddChecked(est.Likely, defs.Likely)
	est.Saved = shlyuz.AddChecked(est.Saved, perByte-defs.Reserve)
	return est
}

// LendMin is the smallest messages value an adapter writes its body around
// in place (shlyuz.BodyRoom) rather than copy: below it a copy costs little.
const LendMin = 32 << 10
