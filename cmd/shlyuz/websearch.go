package main

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/netguard"
	"github.com/shlyuz/shlyuz/websearch"
)

// webSearchConfig is the web_search section: the engine of the web plugin,
// the :online variant and web_search_options (docs/web-search.md).
type webSearchConfig struct {
	Engine     string `yaml:"engine"` // yandex; empty: no web search
	URL        string `yaml:"url"`    // default Yandex Search API v2's synchronous search
	FolderID   string `yaml:"folder_id"`
	APIKeyEnv  string `yaml:"api_key_env"` // the variable holding the service account's API key
	SearchType string `yaml:"search_type"` // SEARCH_TYPE_RU (default), _COM, _TR, _KK, _BE, _UZ
	// PriceRUBPer1000 is what 1,000 searches cost at the engine, in rubles
	// (K applies on top, as to every upstream price).
	PriceRUBPer1000 *shlyuz.Decimal `yaml:"price_rub_per_1000"`
	Results         int             `yaml:"results"` // per search when the request sets none; default 5
	Timeout         time.Duration   `yaml:"timeout"` // default 15s
	// AllowAddresses are address prefixes the engine may be at although
	// they are not public (a search proxy in the operator's network).
	AllowAddresses []string `yaml:"allow_addresses"`
}

// webSearchEngine builds the configured engine; nil when none is configured.
func webSearchEngine(c webSearchConfig) (*actors.WebEngine, error) {
	if c.Engine == "" {
		return nil, nil
	}
	if c.Engine != "yandex" {
		return nil, fmt.Errorf("engine is yandex, not %q", c.Engine)
	}
	if c.PriceRUBPer1000 == nil || c.PriceRUBPer1000.Sign() < 0 {
		return nil, errors.New("price_rub_per_1000 is required: every search is billed (Yandex's list price of synchronous searches)")
	}
	if c.Results < 0 || c.Results > shlyuz.WebMaxResults {
		return nil, fmt.Errorf("results is between 1 and %d", shlyuz.WebMaxResults)
	}
	allow := make([]netip.Prefix, 0, len(c.AllowAddresses))
	for _, a := range c.AllowAddresses {
		p, err := netip.ParsePrefix(a)
		if err != nil {
			return nil, fmt.Errorf("allow_addresses: %q is not an address prefix such as 10.0.0.0/8", a)
		}
		allow = append(allow, p)
	}
	key := ""
	if c.APIKeyEnv != "" {
		key = os.Getenv(c.APIKeyEnv)
	}
	y, err := websearch.NewYandex(websearch.YandexConfig{URL: c.URL, FolderID: c.FolderID, APIKey: key,
		SearchType: c.SearchType, Timeout: c.Timeout, Guard: netguard.New(allow...)})
	if err != nil {
		return nil, err
	}
	results := c.Results
	if results == 0 {
		results = 5
	}
	return &actors.WebEngine{Name: c.Engine, Searcher: y, RUBPer1000: *c.PriceRUBPer1000, Results: results}, nil
}
