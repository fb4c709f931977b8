package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/netguard"
)

// YandexURL is Yandex Search API v2's synchronous web search.
const YandexURL = "https://searchapi.api.cloud.yandex.net/v2/web/search"

// Yandex's limits on a query (Search API's quotas and limits).
const (
	yandexQueryRunes = 400
	yandexQueryWords = 40
	// maxReply bounds the reply read: rawData of 20 results is far below it.
	maxReply = 4 << 20
)

// searchTypes are Search API's SearchType values.
var searchTypes = []string{"SEARCH_TYPE_RU", "SEARCH_TYPE_TR", "SEARCH_TYPE_COM", "SEARCH_TYPE_KK", "SEARCH_TYPE_BE", "SEARCH_TYPE_UZ"}

// YandexConfig configures the Yandex engine.
type YandexConfig struct {
	URL        string // default YandexURL
	FolderID   string
	APIKey     string // a service account's API key (Authorization: Api-Key …)
	SearchType string // default SEARCH_TYPE_RU
	Timeout    time.Duration
	// Guard dials the engine (default netguard.Default: public addresses only).
	Guard *netguard.Guard
}

// Yandex is Yandex Search API v2 (WebSearch.Search, synchronous, XML results).
type Yandex struct {
	cfg    YandexConfig
	client *http.Client
}

// NewYandex checks the configuration and makes the engine.
func NewYandex(cfg YandexConfig) (*Yandex, error) {
	if cfg.URL == "" {
		cfg.URL = YandexURL
	}
	if cfg.SearchType == "" {
		cfg.SearchType = "SEARCH_TYPE_RU"
	}
	if !slices.Contains(searchTypes, cfg.SearchType) {
		return nil, fmt.Errorf("search_type is one of %s, not %q", strings.Join(searchTypes, ", "), cfg.SearchType)
	}
	if cfg.FolderID == "" || len(cfg.FolderID) > 50 {
		return nil, errors.New("folder_id is required (the Yandex Cloud folder of the search service, at most 50 characters)")
	}
	if cfg.APIKey == "" {
		return nil, errors.New("an API key is required (api_key, from the environment)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	if cfg.Guard == nil {
		cfg.Guard = netguard.Default
	}
	return &Yandex{cfg: cfg, client: cfg.Guard.Client(cfg.Timeout)}, nil
}

// yandexRequest is WebSearchRequest in its REST form (int64 fields are strings).
type yandexRequest struct {
	Query struct {
		SearchType string `json:"searchType"`
		QueryText  string `json:"queryText"`
	} `json:"query"`
	GroupSpec struct {
		GroupMode    string `json:"groupMode"`
		GroupsOnPage string `json:"groupsOnPage"`
		DocsInGroup  string `json:"docsInGroup"`
	} `json:"groupSpec"`
	MaxPassages    string `json:"maxPassages"`
	FolderID       string `json:"folderId"`
	ResponseFormat string `json:"responseFormat"`
}

// Search runs one synchronous search.
func (y *Yandex) Search(ctx context.Context, q shlyuz.WebQuery) ([]shlyuz.WebResult, error) {
	n := min(max(q.MaxResults, 1), shlyuz.WebMaxResults)
	var body yandexRequest
	body.Query.SearchType, body.Query.QueryText = y.cfg.SearchType, YandexQuery(q.Text)
	body.GroupSpec.GroupMode, body.GroupSpec.GroupsOnPage, body.GroupSpec.DocsInGroup = "GROUP_MODE_DEEP", strconv.Itoa(n), "1"
	body.MaxPassages, body.FolderID, body.ResponseFormat = "2", y.cfg.FolderID, "FORMAT_XML"
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, y.cfg.URL, bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("yandex search: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Api-Key "+y.cfg.APIKey)
	resp, err := y.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("yandex search: %w", err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxReply+1))
	if err != nil {
		return nil, fmt.Errorf("yandex search: reading the reply: %w", err)
	}
	if len(reply) > maxReply {
		return nil, errors.New("yandex search: the reply is larger than 4 MiB")
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(reply, &e)
		return nil, fmt.Errorf("yandex search: HTTP %d, code %d: %s", resp.StatusCode, e.Code, clip(e.Message, 300))
	}
	var out struct {
		RawData []byte `json:"rawData"` // bytes: base64 in JSON
	}
	if err := json.Unmarshal(reply, &out); err != nil {
		return nil, fmt.Errorf("yandex search: the reply is not WebSearchResponse: %w", err)
	}
	results, err := parseYandexXML(out.RawData)
	if err != nil {
		return nil, err
	}
	return results[:min(len(results), n)], nil
}

// YandexQuery clips a query to Search API's limits: 40 words, 400 characters.
func YandexQuery(text string) string {
	words := strings.Fields(text)
	if len(words) > yandexQueryWords {
		words = words[:yandexQueryWords]
	}
	s := strings.Join(words, " ")
	if utf8.RuneCountInString(s) > yandexQueryRunes {
		s = string([]rune(s)[:yandexQueryRunes])
	}
	return s
}

// xmlText is an element's text with its markup (hlword) dropped.
type xmlText string

func (t *xmlText) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	var b strings.Builder
	for depth := 1; depth > 0; {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			b.Write(v)
		}
	}
	*t = xmlText(b.String())
	return nil
}

// yandexXML is the part of the XML response the engine reads.
type yandexXML struct {
	Response struct {
		Error *struct {
			Code int    `xml:"code,attr"`
			Text string `xml:",chardata"`
		} `xml:"error"`
		Groups []struct {
			Docs []struct {
				URL      string    `xml:"url"`
				Title    xmlText   `xml:"title"`
				Headline xmlText   `xml:"headline"`
				Passages []xmlText `xml:"passages>passage"`
			} `xml:"doc"`
		} `xml:"results>grouping>group"`
	} `xml:"response"`
}

// noResults is the XML error code of a query that found nothing.
const noResults = 15

func parseYandexXML(raw []byte) ([]shlyuz.WebResult, error) {
	var doc yandexXML
	if err := xml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("yandex search: the results are not Search API's XML: %w", err)
	}
	if e := doc.Response.Error; e != nil {
		if e.Code == noResults {
			return nil, nil
		}
		return nil, fmt.Errorf("yandex search: error %d in the results: %s", e.Code, clip(e.Text, 300))
	}
	var out []shlyuz.WebResult
	for _, g := range doc.Response.Groups {
		for _, d := range g.Docs {
			if d.URL == "" || len(d.URL) > shlyuz.WebMaxURL || !(strings.HasPrefix(d.URL, "https://") || strings.HasPrefix(d.URL, "http://")) {
				continue
			}
			parts := make([]string, 0, len(d.Passages)+1)
			if d.Headline != "" {
				parts = append(parts, string(d.Headline))
			}
			for _, p := range d.Passages {
				parts = append(parts, string(p))
			}
			out = append(out, shlyuz.WebResult{URL: d.URL, Title: clip(string(d.Title), shlyuz.WebMaxTitle), Content: clip(strings.Join(parts, " "), shlyuz.WebMaxContent)})
		}
	}
	return out, nil
}
