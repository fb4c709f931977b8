package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// WebPlugin is a request's web search: OpenRouter's web plugin, the :online
// variant or web_search_options on a model that does not search itself.
// The gateway runs one search with the request's last user message before
// the upstream call, and puts the results in the prompt as a system message
// just before that user message.
type WebPlugin struct {
	MaxResults int    // 0: the engine's default
	Prompt     string // search_prompt: the words above the results; "": the default
	// Field names the request member that asked, for the 400 of a gateway
	// that cannot search: plugins, model (:online) or web_search_options.
	Field string
}

// WebEngine is the operator's web search engine and its price.
type WebEngine struct {
	Name     string // as the web plugin's "engine" names it, e.g. "yandex"
	Searcher shlyuz.WebSearcher
	// RUBPer1000 is the engine's price of 1,000 searches in rubles; a
	// search is billed at it times K (shlyuz.SearchFeeMicro).
	RUBPer1000 shlyuz.Decimal
	Results    int // results of a search that asks for no number (default 5)
}

// maxSearchPrompt bounds a client's search_prompt.
const maxSearchPrompt = 4 << 10

// defaultSearchPrompt heads the results; %s is the day of the search.
const defaultSearchPrompt = "A web search was run on %s for the user's next message. Use its results below where they help, " +
	"and cite every result you use as a markdown link named by the source's domain, e.g. [example.com](https://example.com/page)."

// WebSearchEngine names the configured engine ("" when none).
func (g *Gateway) WebSearchEngine() string {
	if g.web == nil {
		return ""
	}
	return g.web.Name
}

// WebSearchFee is the price of one search by the configured engine in
// micro-credits at the current pricing (0 when no engine is configured).
func (g *Gateway) WebSearchFee() int64 {
	if g.web == nil {
		return 0
	}
	return shlyuz.SearchFeeMicro(g.web.RUBPer1000, g.Catalog().Pricing)
}

// webReady checks that the call's web search can run, and grows the
// prompt's reservation by the most its results can add.
func (g *Gateway) webReady(c *ChatCall) error {
	w := c.Web
	if c.Native != nil {
		return nativeSearch(c)
	}
	if g.web == nil {
		return shlyuz.ErrInvalidValue(w.Field, "Web search (%s) is not served: this gateway has no search engine configured.", w.Field)
	}
	if w.MaxResults <= 0 {
		w.MaxResults = max(g.web.Results, 1)
	}
	if len(w.Prompt) > maxSearchPrompt {
		return shlyuz.ErrInvalidValue(w.Field, "search_prompt is at most %d bytes.", maxSearchPrompt)
	}
	bound := int64(len(defaultSearchPrompt) + len(w.Prompt) + 64 + w.MaxResults*shlyuz.WebResultBound)
	c.Prompt.Reserve = shlyuz.AddChecked(c.Prompt.Reserve, bound) // a token per byte at most
	c.Prompt.Likely = shlyuz.AddChecked(c.Prompt.Likely, bound/4)
	return nil
}

// nativeSearchUses is how many searches Anthropic's search tool may run
// (its max_uses) for a request that asked for web search by the :online
// variant, and so how many are reserved; groundingQueries is the queries
// reserved for Gemini's grounding, which bills each (Gemini 3) with no cap
// a request can set, as the Gemini route reserves for a client's own
// googleSearch.
const (
	nativeSearchUses = 5
	groundingQueries = 10
)

// nativeSearch serves :online on Anthropic's Messages and Gemini's
// protocol by the provider's own search, added to the client's tools:
// Anthropic's web search server tool (at most nativeSearchUses searches),
// Gemini's grounding with Google Search. Each is reserved here and billed
// as the upstream's usage reports it (server_tool_use, groundingMetadata);
// an upstream that does not speak the protocol cannot run it, and is not
// tried.
func nativeSearch(c *ChatCall) error {
	n := c.Native
	var tool string
	var uses int64
	switch n.Protocol {
	case shlyuz.ProtocolAnthropic:
		tool, uses = fmt.Sprintf(`{"type":"web_search_20250305","name":"web_search","max_uses":%d}`, nativeSearchUses), nativeSearchUses
	case shlyuz.ProtocolGemini:
		tool, uses = `{"googleSearch":{}}`, groundingQueries
	default:
		return shlyuz.ErrInvalidValue(c.Web.Field, "Web search (%s) is served by /api/v1/chat/completions and /api/v1/responses.", c.Web.Field)
	}
	var tools []json.RawMessage
	if raw, ok := n.Body["tools"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &tools); err != nil {
			return shlyuz.ErrInvalidValue("tools", "tools must be an array.")
		}
	}
	c.Web = nil
	for _, t := range tools { // the client's own search tool already serves it, and is reserved for
		var has struct {
			Type   string          `json:"type"`
			Google json.RawMessage `json:"googleSearch"`
		}
		if json.Unmarshal(t, &has) == nil && (strings.HasPrefix(has.Type, "web_search_") || has.Google != nil) {
			return nil
		}
	}
	raw, err := json.Marshal(append(tools, json.RawMessage(tool)))
	if err != nil {
		return err
	}
	n.Body["tools"] = raw
	c.WebSearches = shlyuz.AddChecked(c.WebSearches, uses)
	if n.Unfit == nil {
		n.Unfit = shlyuz.ErrInvalidValue("model", "Web search (:online) on this route is the provider's own search, which only an upstream speaking the route's protocol runs.")
	}
	return nil
}

// search runs the call's web search once (a model fallback reuses its
// results) and puts them in the prompt. A failed search fails the call:
// the client asked for fresh facts, and nothing is charged.
func (cl *call) search(ctx context.Context) error {
	w := cl.c.Web
	if w == nil || cl.searched > 0 {
		return nil
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(cl.c.Fields["messages"], &msgs); err != nil {
		return shlyuz.ErrInvalidValue("messages", "messages must be an array.")
	}
	at, query := lastUserText(msgs)
	if at < 0 || strings.TrimSpace(query) == "" {
		return shlyuz.ErrInvalidValue(w.Field, "Web search needs a user message with text to search for.")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	results, err := cl.g.web.Searcher.Search(ctx, shlyuz.WebQuery{Text: query, MaxResults: w.MaxResults})
	if err != nil {
		cl.g.log.Warn("web search failed", "engine", cl.g.web.Name, "generation", cl.c.GenerationID, "error", err.Error())
		return shlyuz.ErrUpstream("The web search engine %q failed; nothing was charged.", cl.g.web.Name)
	}
	if len(results) > w.MaxResults {
		results = results[:w.MaxResults]
	}
	cl.searched, cl.searchFee, cl.results = 1, cl.g.WebSearchFee(), results
	head := w.Prompt
	if head == "" {
		head = fmt.Sprintf(defaultSearchPrompt, cl.g.now().Format("2006-01-02"))
	}
	system, _ := json.Marshal(map[string]string{"role": "system", "content": searchPrompt(head, results)})
	out := make([]json.RawMessage, 0, len(msgs)+1)
	out = append(append(append(out, msgs[:at]...), system), msgs[at:]...)
	raw, _ := json.Marshal(out)
	cl.c.Fields["messages"] = raw
	cl.c.Room = nil // the body's buffer no longer holds the messages sent
	return nil
}

// searchPrompt is the system message of a search's results.
func searchPrompt(head string, results []shlyuz.WebResult) string {
	var b strings.Builder
	b.WriteString(head)
	if len(results) == 0 {
		b.WriteString("\n\nThe search found nothing.")
	}
	for i, r := range results {
		fmt.Fprintf(&b, "\n\n[%d] %s\n%s", i+1, r.Title, r.URL)
		if r.Content != "" {
			b.WriteString("\n" + r.Content)
		}
	}
	return b.String()
}

// lastUserText is the index of the last user message and its text (a
// string content, or its text parts joined); -1 when there is none.
func lastUserText(msgs []json.RawMessage) (int, string) {
	for i := len(msgs) - 1; i >= 0; i-- {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(msgs[i], &m) != nil || m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return i, s
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &parts)
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		return i, strings.Join(texts, " ")
	}
	return -1, ""
}
