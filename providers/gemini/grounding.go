package gemini

import "strings"

// groundingMetadata is the part of a candidate's grounding the bill needs:
// the Google Search queries the model ran.
type groundingMetadata struct {
	WebSearchQueries []string `json:"webSearchQueries"`
}

// searchesPerQuery says whether Google bills the model's grounding per
// search query (Gemini 3) rather than per grounded prompt (Gemini 2.x).
func searchesPerQuery(model string) bool {
	return strings.HasPrefix(strings.TrimPrefix(model, "models/"), "gemini-3")
}

// searchesOf is the searches Google bills for the candidates' grounding
// with Google Search: per grounded prompt, one for the reply; per query,
// the distinct queries of its candidates.
func searchesOf(cands []candidate, perQuery bool) int64 {
	seen := map[string]bool{}
	grounded := false
	for i := range cands {
		g := cands[i].GroundingMetadata
		if g == nil || len(g.WebSearchQueries) == 0 {
			continue
		}
		grounded = true
		for _, q := range g.WebSearchQueries {
			seen[q] = true
		}
	}
	switch {
	case !grounded:
		return 0
	case perQuery:
		return int64(len(seen))
	}
	return 1
}
