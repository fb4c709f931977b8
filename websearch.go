package shlyuz

import "context"

// WebResult is one result of a web search: what the prompt quotes and the
// reply cites (OpenRouter's url_citation annotation).
type WebResult struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Content string `json:"content,omitempty"`
}

// The bounds of one web result as an engine hands it on: a longer URL is
// left out (a citation cut short points nowhere), a longer title or snippet
// is cut.
const (
	WebMaxURL     = 2048
	WebMaxTitle   = 300
	WebMaxContent = 1000
	// WebMaxResults is the most results one search may ask for.
	WebMaxResults = 20
)

// WebResultBound is the most bytes one result takes in the search's prompt,
// its framing included.
const WebResultBound = WebMaxURL + WebMaxTitle + WebMaxContent + 32

// WebQuery is one web search the gateway runs for a request (OpenRouter's
// web plugin, the :online variant, web_search_options).
type WebQuery struct {
	Text       string // the query: the request's last user message, clipped to the engine's limits
	MaxResults int
}

// WebSearcher is the web search engine the operator configured.
type WebSearcher interface {
	// Search runs one search; every search that returns without an error is
	// billed, even one that found nothing.
	Search(ctx context.Context, q WebQuery) ([]WebResult, error)
}

// SearchFeeMicro is the fee of one search in micro-credits, for an engine
// priced in rubles per 1,000 searches: rub_per_1000 / 1000 × K × 100,000
// credits, rounded up to a whole micro-credit (an engine billed in rubles
// takes no exchange rate, as a ruble-priced model does not).
func SearchFeeMicro(rubPer1000 Decimal, p Pricing) int64 {
	v, ok := rubPer1000.Mul(p.K).MulInt(CreditsPerRuble).MulInt(MicroPerCredit).Quo(1000).CeilChecked()
	if !ok || v < 0 {
		return maxPartMicro
	}
	return min(v, maxPartMicro)
}
