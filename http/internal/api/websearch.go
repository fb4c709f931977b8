package api

import (
	"encoding/json"
	"slices"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// webEngines are the engine names the web plugin takes: the gateway's own
// engine, whichever the operator configured ("yandex" names Yandex Search
// API, the one engine there is).
var webEngines = []string{"yandex"}

// searchContextResults is how many results each web_search_options
// search_context_size asks for.
var searchContextResults = map[string]int{"low": 3, "medium": 5, "high": 10}

// ReadWebSearch reads the web search a chat request asks the gateway to
// run into call.Web: OpenRouter's web plugin ({"id":"web", max_results,
// search_prompt, engine}), or web_search_options on a model that does not
// search itself (a model whose id says "search" takes them upstream). The
// members read never go upstream.
func ReadWebSearch(fields map[string]json.RawMessage, model string, call *actors.ChatCall) *shlyuz.Error {
	if _, ok := fields["plugins"]; ok { // the plugins' decoding target escapes: made only when needed
		if err := readWebPlugin(fields, call); err != nil {
			return err
		}
	}
	delete(fields, "plugins")  // read here, refused in RefuseUnserved, or disabled: never upstream
	if SearchesItself(model) { // its upstream bills a search per call: reserved and billed at its price, or refused
		call.WebSearches, call.SearchesAlways, call.WebSearchField = 1, true, "model"
		return nil
	}
	v, ok := fields["web_search_options"]
	if !ok || IsNull(v) {
		return nil
	}
	var opts struct {
		SearchContextSize string `json:"search_context_size"`
	}
	if err := Field(fields, "web_search_options", &opts); err != nil {
		return err
	}
	n, known := searchContextResults[opts.SearchContextSize]
	if opts.SearchContextSize != "" && !known {
		return shlyuz.ErrInvalidValue("web_search_options", "web_search_options.search_context_size is low, medium or high, not %q.", opts.SearchContextSize)
	}
	if call.Web == nil {
		call.Web = &actors.WebPlugin{Field: "web_search_options", MaxResults: n}
	}
	delete(fields, "web_search_options")
	return nil
}

// readWebPlugin reads the web plugin from the request's plugins into call.Web.
func readWebPlugin(fields map[string]json.RawMessage, call *actors.ChatCall) *shlyuz.Error {
	var plugins []struct {
		ID           string  `json:"id"`
		Enabled      *bool   `json:"enabled"`
		MaxResults   *int    `json:"max_results"`
		SearchPrompt *string `json:"search_prompt"`
		Engine       string  `json:"engine"`
	}
	if err := Field(fields, "plugins", &plugins); err != nil {
		return err
	}
	for _, p := range plugins {
		if p.ID != "web" || p.Enabled != nil && !*p.Enabled {
			continue
		}
		w := &actors.WebPlugin{Field: "plugins"}
		if p.MaxResults != nil {
			if *p.MaxResults < 1 || *p.MaxResults > shlyuz.WebMaxResults {
				return shlyuz.ErrInvalidValue("plugins", "The web plugin's max_results is between 1 and %d.", shlyuz.WebMaxResults)
			}
			w.MaxResults = *p.MaxResults
		}
		if p.SearchPrompt != nil {
			w.Prompt = *p.SearchPrompt
		}
		switch e := p.Engine; {
		case e == "" || slices.Contains(webEngines, e):
		case e == "native":
			return shlyuz.ErrInvalidValue("plugins", "The web plugin's engine \"native\" is not served: the gateway searches with its own engine (%s); leave engine out.", strings.Join(webEngines, ", "))
		default:
			return shlyuz.ErrInvalidValue("plugins", "The web plugin's engine %q is not served here; the engines are %s (or leave engine out).", e, strings.Join(webEngines, ", "))
		}
		call.Web = w
	}
	return nil
}

// SearchesItself says whether a model searches the web on every call, and
// its upstream bills each call a search fee: OpenAI's search models (an id
// that says "search") and Perplexity's Sonar models.
func SearchesItself(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "search") || strings.HasPrefix(m, "perplexity/")
}
