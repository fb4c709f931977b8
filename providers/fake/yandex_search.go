package fake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Yandex Search API v2's synchronous web search (POST /v2/web/search), as
// strict as the service: the REST form of WebSearchRequest and nothing else
// (its schema has additionalProperties: false), query.searchType and
// query.queryText required, the documented enums and ranges, an API key or
// IAM token; errors as Yandex Cloud's REST gateway words them
// ({"code": <gRPC code>, "message", "details"}). The reply is
// {"rawData": base64 of the XML results}: groupsOnPage groups of one
// document each, whose URLs are https://<n>.search.example/<query words>.
// A query with the word "nothing" finds nothing (XML error 15), one with
// "fault-500" is an internal error.

var (
	yandexSearchTypes = []string{"SEARCH_TYPE_RU", "SEARCH_TYPE_TR", "SEARCH_TYPE_COM", "SEARCH_TYPE_KK", "SEARCH_TYPE_BE", "SEARCH_TYPE_UZ"}
	yandexFamily      = []string{"FAMILY_MODE_NONE", "FAMILY_MODE_MODERATE", "FAMILY_MODE_STRICT"}
	yandexFixTypo     = []string{"FIX_TYPO_MODE_ON", "FIX_TYPO_MODE_OFF"}
	yandexSortMode    = []string{"SORT_MODE_BY_RELEVANCE", "SORT_MODE_BY_TIME"}
	yandexSortOrder   = []string{"SORT_ORDER_ASC", "SORT_ORDER_DESC"}
	yandexGroupMode   = []string{"GROUP_MODE_FLAT", "GROUP_MODE_DEEP"}
	yandexL10n        = []string{"LOCALIZATION_RU", "LOCALIZATION_UK", "LOCALIZATION_BE", "LOCALIZATION_KK", "LOCALIZATION_TR", "LOCALIZATION_EN"}
	yandexFormats     = []string{"FORMAT_XML", "FORMAT_HTML"}
)

// yandexWebSearch is WebSearchRequest; int64 fields come as strings (or
// numbers, which the REST gateway takes too).
type yandexWebSearch struct {
	Query *struct {
		SearchType  string          `json:"searchType"`
		QueryText   string          `json:"queryText"`
		FamilyMode  string          `json:"familyMode"`
		Page        json.RawMessage `json:"page"`
		FixTypoMode string          `json:"fixTypoMode"`
	} `json:"query"`
	SortSpec *struct {
		SortMode  string `json:"sortMode"`
		SortOrder string `json:"sortOrder"`
	} `json:"sortSpec"`
	GroupSpec *struct {
		GroupMode    string          `json:"groupMode"`
		GroupsOnPage json.RawMessage `json:"groupsOnPage"`
		DocsInGroup  json.RawMessage `json:"docsInGroup"`
	} `json:"groupSpec"`
	MaxPassages    json.RawMessage `json:"maxPassages"`
	Region         string          `json:"region"`
	L10n           string          `json:"l10n"`
	FolderID       string          `json:"folderId"`
	ResponseFormat string          `json:"responseFormat"`
	UserAgent      string          `json:"userAgent"`
	Metadata       *struct {
		Fields map[string]string `json:"fields"`
	} `json:"metadata"`
}

// YandexSearches is how many web searches the fake answered with results.
func (s *Server) YandexSearches() int64 { return s.searches.Load() }

func (s *Server) yandexSearch(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		yandexCloudError(w, http.StatusNotImplemented, 12, "Method not allowed")
		return
	}
	auth := r.Header.Get("Authorization")
	key, apiKey := strings.CutPrefix(auth, "Api-Key ")
	_, bearer := strings.CutPrefix(auth, "Bearer ")
	if !apiKey && !bearer {
		yandexCloudError(w, http.StatusUnauthorized, 16, "Unauthenticated")
		return
	}
	if s.opts.APIKey != "" && (!apiKey || key != s.opts.APIKey) {
		yandexCloudError(w, http.StatusUnauthorized, 16, "Unknown api key")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	s.Remember(r, body)
	var req yandexWebSearch
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		yandexCloudError(w, http.StatusBadRequest, 3, "invalid JSON body: "+err.Error())
		return
	}
	if msg := req.check(); msg != "" {
		yandexCloudError(w, http.StatusBadRequest, 3, msg)
		return
	}
	if strings.Contains(req.Query.QueryText, "fault-500") {
		yandexCloudError(w, http.StatusInternalServerError, 13, "Internal error")
		return
	}
	groups := 20
	if req.GroupSpec != nil && len(req.GroupSpec.GroupsOnPage) > 0 {
		groups, _ = int64Field(req.GroupSpec.GroupsOnPage)
	}
	xml := yandexResultsXML(req.Query.QueryText, groups)
	if !strings.Contains(xml, "<error") {
		s.searches.Add(1)
	}
	out, _ := json.Marshal(map[string]string{"rawData": base64.StdEncoding.EncodeToString([]byte(xml))})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// check is the request's first schema violation, worded for the error body, or "".
func (q *yandexWebSearch) check() string {
	if q.Query == nil {
		return "query: Field required"
	}
	if !slices.Contains(yandexSearchTypes, q.Query.SearchType) {
		return fmt.Sprintf("query.search_type: invalid value %q", q.Query.SearchType)
	}
	if q.Query.QueryText == "" {
		return "query.query_text: Field required"
	}
	if utf8.RuneCountInString(q.Query.QueryText) > 400 {
		return "query.query_text: the maximum string length in characters is 400"
	}
	if len(strings.Fields(q.Query.QueryText)) > 40 {
		return "query.query_text: a query has at most 40 words"
	}
	type enum struct {
		name, v string
		in      []string
	}
	enums := []enum{{"query.family_mode", q.Query.FamilyMode, yandexFamily}, {"query.fix_typo_mode", q.Query.FixTypoMode, yandexFixTypo},
		{"l10n", q.L10n, yandexL10n}, {"response_format", q.ResponseFormat, yandexFormats}}
	type span struct {
		name   string
		raw    json.RawMessage
		lo, hi int
	}
	spans := []span{{"max_passages", q.MaxPassages, 1, 5}, {"query.page", q.Query.Page, 0, 1 << 30}}
	if q.SortSpec != nil {
		enums = append(enums, enum{"sort_spec.sort_mode", q.SortSpec.SortMode, yandexSortMode}, enum{"sort_spec.sort_order", q.SortSpec.SortOrder, yandexSortOrder})
	}
	if q.GroupSpec != nil {
		enums = append(enums, enum{"group_spec.group_mode", q.GroupSpec.GroupMode, yandexGroupMode})
		spans = append(spans, span{"group_spec.groups_on_page", q.GroupSpec.GroupsOnPage, 1, 100}, span{"group_spec.docs_in_group", q.GroupSpec.DocsInGroup, 1, 3})
	}
	for _, e := range enums {
		if e.v != "" && !slices.Contains(e.in, e.v) {
			return fmt.Sprintf("%s: invalid value %q", e.name, e.v)
		}
	}
	for _, sp := range spans {
		if len(sp.raw) == 0 {
			continue
		}
		if n, ok := int64Field(sp.raw); !ok || n < sp.lo || n > sp.hi {
			return fmt.Sprintf("%s: acceptable values are %d to %d, inclusive, not %s", sp.name, sp.lo, sp.hi, sp.raw)
		}
	}
	if len(q.FolderID) > 50 || len(q.Region) > 100 || len(q.UserAgent) > 300 {
		return "folder_id, region or user_agent: longer than its maximum"
	}
	if q.FolderID == "" {
		return "folder_id: the folder of an API key's service account is required"
	}
	if q.ResponseFormat == "FORMAT_HTML" {
		return "response_format: this fake answers FORMAT_XML only"
	}
	return ""
}

// int64Field reads an int64 as protojson takes it: a string of digits or a number.
func int64Field(raw json.RawMessage) (int, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// yandexResultsXML is the XML response to a text search: groups results.
func yandexResultsXML(query string, groups int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n<yandexsearch version=\"1.0\">\n<request><query>")
	b.WriteString(html.EscapeString(query))
	b.WriteString("</query><page>0</page></request>\n<response date=\"20261129T100000\">\n")
	if strings.Contains(query, "nothing") {
		b.WriteString(`<error code="15">Sorry, there are no results for this search</error><reqid>fake-reqid</reqid></response></yandexsearch>`)
		return b.String()
	}
	slug := strings.ToLower(strings.Join(strings.Fields(query), "-"))
	slug = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return -1
	}, slug)
	fmt.Fprintf(&b, "<reqid>fake-reqid</reqid><found priority=\"all\">%d</found><results><grouping attr=\"d\" mode=\"deep\" groups-on-page=\"%d\" docs-in-group=\"1\" curcateg=\"-1\">\n", groups, groups)
	for i := 1; i <= groups; i++ {
		fmt.Fprintf(&b, "<group><categ attr=\"d\" name=\"%d.search.example\"/><doccount>1</doccount><relevance priority=\"all\"/>"+
			"<doc id=\"Z%d\"><relevance priority=\"phrase\"/><url>https://%d.search.example/%s</url><domain>%d.search.example</domain>"+
			"<title>Result %d: <hlword>%s</hlword></title><headline>About %s.</headline><modtime>20261128T120000</modtime>"+
			"<passages><passage>Passage %d on <hlword>%s</hlword> &amp; more.</passage></passages>"+
			"<properties><_PassagesType>0</_PassagesType><lang>ru</lang></properties><mime-type>text/html</mime-type></doc></group>\n",
			i, i, i, slug, i, i, html.EscapeString(query), html.EscapeString(query), i, html.EscapeString(query))
	}
	b.WriteString("</grouping></results></response>\n</yandexsearch>\n")
	return b.String()
}

// yandexCloudError writes a Yandex Cloud REST error: the gRPC status as JSON.
func yandexCloudError(w http.ResponseWriter, status, code int, msg string) {
	out, _ := json.Marshal(map[string]any{"code": code, "message": msg, "details": []any{}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}
