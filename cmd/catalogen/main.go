// Command catalogen generates catalog.json, the model catalog that the shlyuz
// binary embeds (see catalog_data.go in the root package). catalog.json is a
// generated file: do not edit it by hand; change this program or its inputs and
// run it again from the repository root:
//
//	go run ./cmd/catalogen -prices ../shared/data/genai-prices.json -modelsdev ../shared/data/models-dev.json \
//	    -litellm ../shared/data/litellm-model-prices.json -out catalog.json
//
// Prices come from the "openrouter" provider of genai-prices.json (USD per
// million tokens, ids shaped "<provider>/<model_name>"): input, output, cache
// reads and writes, audio, per-request fees and the long-context tier of a
// tiered price; DeepSeek's models take DeepSeek's own list (the "deepseek"
// provider, its standard-hours price set, the dearer), not a reseller's.
// Modalities, context length, maximum output and the release date come from
// models-dev.json when a matching record exists; limits it lacks and the
// one-hour cache write price come from litellm-model-prices.json. A text
// model whose context length no file knows is left out (never listed with
// 0); a model with no known release date is dated the data's snapshot
// (created is required by OpenAI's Model schema). Video and embedding models
// are listed by hand (video.go) with prices from litellm-model-prices.json. Prices are copied as the literal text of the source
// numbers, never through a float, so no digit changes on the way. The output
// is sorted by id and byte-for-byte deterministic. A few demo models, served
// by the gateway's built-in demo upstream, are added.
//
// Entries left out: ids without a "<provider>/" prefix (legacy aliases, most
// of which also appear with a prefix), OpenRouter's "~provider/...-latest"
// router aliases (their price follows whatever model they point at), and
// models with no usable price (the ":free" variants carry none).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
)

func main() {
	pricesPath := flag.String("prices", "../shared/data/genai-prices.json", "genai-prices data.json")
	modelsDevPath := flag.String("modelsdev", "../shared/data/models-dev.json", "models.dev catalog")
	litellmPath := flag.String("litellm", "../shared/data/litellm-model-prices.json", "LiteLLM's model prices and limits")
	outPath := flag.String("out", "catalog.json", "where to write the catalog")
	flag.BoolVar(&verbose, "v", false, "log which models.dev record each model was matched with")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("catalogen: ")

	prices, err := readPrices(*pricesPath)
	if err != nil {
		log.Fatal(err)
	}
	dev, err := readModelsDev(*modelsDevPath)
	if err != nil {
		log.Fatal(err)
	}
	lite, err := readLiteLLM(*litellmPath)
	if err != nil {
		log.Fatal(err)
	}
	deepseek, err := readProvider(*pricesPath, "deepseek")
	if err != nil {
		log.Fatal(err)
	}
	models, stats := build(prices, dev, lite, deepseek)
	models = append(models, videoModels(lite)...)
	models = append(models, embeddingModels(lite)...)
	models = append(models, demoModels()...)
	models = append(models, russianModels()...)
	models = append(models, imageModels()...)
	models = append(models, audioModels()...)
	withTranscription(models)
	if err := withLifecycle(models, lite, *pricesPath); err != nil {
		log.Fatal(err)
	}
	if err := withAliases(models, *litellmPath, *modelsDevPath); err != nil {
		log.Fatal(err)
	}
	sort.Slice(models, func(i, j int) bool { return models[i].ID < models[j].ID })

	out, err := encode(models)
	if err != nil {
		log.Fatal(err)
	}
	if err := verify(out, models); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*outPath, out, 0o644); err != nil {
		log.Fatal(err)
	}
	images := 0
	for _, m := range models {
		if contains(m.OutputModalities, "image") {
			images++
		}
	}
	log.Printf("wrote %s: %d models (%d with image output, %d matched in models.dev, %d at DeepSeek's own prices); skipped %d without a provider prefix, %d router aliases, %d without a usable price, %d text models with no known context length",
		*outPath, len(models), images, stats.matched, stats.deepseek, stats.noPrefix, stats.aliases, stats.noPrice, stats.noContext)
}

// catalogModel is shlyuz.Model as written to catalog.json, with the USD
// prices held as the literal text of the source numbers.
type catalogModel struct {
	ID               string             `json:"id"`
	Name             string             `json:"name"`
	ContextLength    int64              `json:"context_length,omitempty"` // left out when unknown, never 0
	MaxOutputTokens  int64              `json:"max_output_tokens,omitempty"`
	InputModalities  []string           `json:"input_modalities"`
	OutputModalities []string           `json:"output_modalities"`
	USD              literalUSD         `json:"usd"`
	RUB              *literalRUB        `json:"rub,omitempty"`
	Created          int64              `json:"created,omitempty"`
	Video            *videoSpec         `json:"video,omitempty"`
	Image            *imageSpec         `json:"image,omitempty"`
	Speech           *speechSpec        `json:"speech,omitempty"`
	Transcription    *transcriptionSpec `json:"transcription,omitempty"`
	DeprecationDate  string             `json:"deprecation_date,omitempty"`
	ExpirationDate   string             `json:"expiration_date,omitempty"`
	Successor        string             `json:"successor,omitempty"`
	Aliases          []string           `json:"aliases,omitempty"` // aliases.go
}

type literalRUB struct {
	Prompt     json.Number `json:"prompt_rub_per_mtok"`
	Completion json.Number `json:"completion_rub_per_mtok"`
	literalParts
}

type literalUSD struct {
	Prompt     json.Number `json:"prompt_usd_per_mtok"`
	Completion json.Number `json:"completion_usd_per_mtok"`
	literalParts
}

// --- genai-prices.json ---

type pricesProvider struct {
	ID     string        `json:"id"`
	Models []pricesModel `json:"models"`
}

type pricesModel struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	ContextWindow int64           `json:"context_window"`
	Prices        json.RawMessage `json:"prices"`
}

// priced is one OpenRouter model with its base prices as literal decimals.
type priced struct {
	pricesModel
	input, output json.Number
	parts         literalParts
}

func readPrices(path string) ([]pricesModel, error) { return readProvider(path, "openrouter") }

// readProvider reads one provider's models from genai-prices.json.
func readProvider(path, provider string) ([]pricesModel, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var providers []pricesProvider
	if err := dec.Decode(&providers); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range providers {
		if p.ID == provider {
			return p.Models, nil
		}
	}
	return nil, fmt.Errorf("%s: no %s provider", path, provider)
}

// basePrices picks the price set in force without conditions. "prices" is
// either an object of prices or a list of conditional price sets
// ({"constraint": {...}, "prices": {...}}); from a list we take the first set
// without a constraint (the base; later ones start at a date or time of day),
// or else the first set.
func basePrices(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		var m map[string]json.RawMessage
		err := json.Unmarshal(raw, &m)
		return m, err
	}
	var sets []struct {
		Constraint json.RawMessage            `json:"constraint"`
		Prices     map[string]json.RawMessage `json:"prices"`
	}
	if err := json.Unmarshal(raw, &sets); err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return nil, nil
	}
	for _, s := range sets {
		if len(s.Constraint) == 0 || string(s.Constraint) == "null" {
			return s.Prices, nil
		}
	}
	return sets[0].Prices, nil
}

// priceValue reads one price as the literal text of its JSON number. A tiered
// price ({"base": 3, "tiers": [{"start": 200000, "price": 6}]}) gives its base
// tier: the gateway charges one price per token, and the higher tiers only
// start with very long prompts. ok is false when the price is absent or null.
func priceValue(raw json.RawMessage) (n json.Number, ok bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] == '{' {
		var tiered struct {
			Base json.RawMessage `json:"base"`
		}
		if err := json.Unmarshal(raw, &tiered); err != nil {
			return "", false, err
		}
		return priceValue(tiered.Base)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return "", false, err
	}
	return n, true, nil
}

// usablePrice reports whether a literal is a price the gateway can charge:
// an exact decimal, not negative.
func usablePrice(n json.Number) bool {
	d, err := shlyuz.ParseDecimal(n.String())
	return err == nil && d.Sign() >= 0
}

// --- models-dev.json ---

type devProvider struct {
	ID     string              `json:"id"`
	Models map[string]devModel `json:"models"`
}

type devModel struct {
	Provider   string `json:"-"` // the models.dev provider the record came from
	ID         string `json:"id"`
	Name       string `json:"name"`
	Modalities struct {
		Input  []string `json:"input"`
		Output []string `json:"output"`
	} `json:"modalities"`
	Limit struct {
		Context int64 `json:"context"`
		Output  int64 `json:"output"`
	} `json:"limit"`
	ReleaseDate string `json:"release_date"`
}

// devIndex finds models.dev records by several keys. Every list is ordered by
// provider: "openrouter" first (its ids are OpenRouter's), then by name.
type devIndex struct {
	byFullID   map[string][]devModel            // "openai/gpt-5" as some aggregators spell it
	byProvider map[string]map[string][]devModel // models.dev provider → normalised key → records
	anyByKey   map[string][]devModel            // normalised key → records, all providers
}

func readModelsDev(path string) (*devIndex, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var providers map[string]devProvider
	if err := json.Unmarshal(b, &providers); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	names := make([]string, 0, len(providers))
	for name := range providers {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "openrouter") != (names[j] == "openrouter") {
			return names[i] == "openrouter"
		}
		return names[i] < names[j]
	})
	idx := &devIndex{
		byFullID:   map[string][]devModel{},
		byProvider: map[string]map[string][]devModel{},
		anyByKey:   map[string][]devModel{},
	}
	for _, pname := range names {
		p := providers[pname]
		ids := make([]string, 0, len(p.Models))
		for id := range p.Models {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		byKey := map[string][]devModel{}
		for _, id := range ids {
			m := p.Models[id]
			m.Provider = pname
			lower := strings.ToLower(m.ID)
			if strings.Contains(lower, "/") {
				idx.byFullID[lower] = append(idx.byFullID[lower], m)
			}
			seen := map[string]bool{}
			for _, k := range []string{"id:" + lastPart(lower), "norm:" + normalize(lastPart(lower)), "name:" + normalize(displayName(m.Name))} {
				if seen[k] || strings.HasSuffix(k, ":") {
					continue
				}
				seen[k] = true
				byKey[k] = append(byKey[k], m)
				idx.anyByKey[k] = append(idx.anyByKey[k], m)
			}
		}
		idx.byProvider[pname] = byKey
	}
	return idx, nil
}

// nativeProviders maps an OpenRouter provider prefix to the models.dev
// providers that serve the same models under their own names.
var nativeProviders = map[string][]string{
	"openai":     {"openai", "azure", "github-models"},
	"anthropic":  {"anthropic", "google-vertex-anthropic"},
	"google":     {"google", "google-vertex"},
	"x-ai":       {"xai"},
	"mistralai":  {"mistral"},
	"mistral":    {"mistral"},
	"deepseek":   {"deepseek"},
	"moonshotai": {"moonshotai"},
	"z-ai":       {"zai", "zhipuai"},
	"thudm":      {"zhipuai", "zai"},
	"qwen":       {"alibaba"},
	"perplexity": {"perplexity"},
	"meta-llama": {"llama"},
	"inception":  {"inception"},
	"morph":      {"morph"},
	"nvidia":     {"nvidia"},
	"upstage":    {"upstage"},
}

// match finds the models.dev record that best describes an OpenRouter model:
// the same full id (without a ":variant" suffix), then the model's own
// provider under the same or a normalised model name or display name, then
// any provider under the same or a normalised model name.
func (idx *devIndex) match(id, name string) (devModel, bool) {
	lower := strings.ToLower(id)
	base := stripVariant(lower)
	for _, k := range []string{lower, base} {
		if ms := idx.byFullID[k]; len(ms) > 0 {
			return ms[0], true
		}
	}
	prefix, model, _ := strings.Cut(base, "/")
	keys := []string{"id:" + model, "norm:" + normalize(model)}
	if n := normalize(displayName(name)); n != "" {
		keys = append(keys, "name:"+n)
	}
	for _, k := range keys {
		for _, p := range nativeProviders[prefix] {
			if ms := idx.byProvider[p][k]; len(ms) > 0 {
				return ms[0], true
			}
		}
	}
	for _, k := range keys[:2] {
		if ms := idx.anyByKey[k]; len(ms) > 0 {
			return ms[0], true
		}
	}
	return devModel{}, false
}

// --- building the catalog ---

// idShape is what a catalog id looks like: "<provider>/<model_name>".
var idShape = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._:-]*$`)

var verbose bool

type buildStats struct{ matched, noPrefix, aliases, noPrice, noContext, deepseek int }

// snapshotCreated dates a model no file dates: the day of the price data's
// snapshot (genai-prices at 2026-08-21), 2026-08-21T00:00:00Z.
const snapshotCreated = 1787270400

func build(source []pricesModel, dev *devIndex, lite litellmIndex, deepseek []pricesModel) ([]catalogModel, buildStats) {
	var st buildStats
	var out []catalogModel
	// Legacy entries without a provider prefix often carry the display name
	// that the prefixed entry of the same model lacks.
	legacyNames := map[string]string{}
	for _, src := range source {
		if !strings.Contains(src.ID, "/") && src.Name != "" {
			legacyNames[src.ID] = src.Name
		}
	}
	for _, src := range source {
		switch {
		case strings.HasPrefix(src.ID, "~"):
			st.aliases++
			continue
		case !strings.Contains(src.ID, "/"):
			st.noPrefix++
			continue
		case !idShape.MatchString(src.ID):
			log.Printf("skipping %q: not a <provider>/<model_name> id", src.ID)
			continue
		}
		if own, ok := deepseekOwn(src.ID, deepseek); ok {
			src.Prices = own
			st.deepseek++
		}
		p, ok, err := pricesOf(src)
		if err != nil {
			log.Printf("skipping %s: %v", src.ID, err)
			continue
		}
		if !ok {
			st.noPrice++
			continue
		}
		m := catalogModel{
			ID:               p.ID,
			Name:             p.Name,
			ContextLength:    p.ContextWindow,
			InputModalities:  []string{"text"},
			OutputModalities: []string{"text"},
			USD:              literalUSD{Prompt: p.input, Completion: p.output, literalParts: p.parts},
		}
		d, ok := dev.match(p.ID, p.Name)
		if verbose {
			log.Printf("%s: models.dev %s/%s (found: %v)", p.ID, d.Provider, d.ID, ok)
		}
		if ok {
			st.matched++
			if m.Name == "" && legacyNames[lastPart(m.ID)] == "" {
				m.Name = d.Name
			}
			if m.ContextLength == 0 {
				m.ContextLength = d.Limit.Context
			}
			m.MaxOutputTokens = d.Limit.Output
			if len(d.Modalities.Input) > 0 {
				m.InputModalities = d.Modalities.Input
			}
			if len(d.Modalities.Output) > 0 {
				m.OutputModalities = d.Modalities.Output
			}
			m.Created = releaseUnix(d.ReleaseDate)
		}
		if m.Name == "" {
			m.Name = legacyNames[lastPart(m.ID)]
		}
		if m.Name == "" {
			m.Name = lastPart(m.ID)
		}
		if generatesImages(m.ID, m.Name) {
			// Image models (google/gemini-2.5-flash-image, openai/gpt-5-image...)
			// take text and images and answer with both.
			m.InputModalities = append(slices.Clone(m.InputModalities), "text", "image")
			m.OutputModalities = append(slices.Clone(m.OutputModalities), "text", "image")
		}
		if l, ok := lite.find(m.ID); ok {
			if m.ContextLength == 0 {
				m.ContextLength = limit(l.MaxInputTokens)
			}
			if m.MaxOutputTokens == 0 {
				m.MaxOutputTokens = limit(l.MaxOutputTokens)
			}
			if h, ok := perMTok(l.CacheWrite1hToken); ok && l.CacheWrite1hToken != "" && m.USD.CacheWrite != "" {
				m.USD.CacheWrite1h = h
			}
			if m.USD.LongContext == nil {
				m.USD.LongContext = longFromLiteLLM(l, &m.USD.literalParts)
			}
			if q := l.SearchPerQuery; q != nil && usablePrice(q.Medium) {
				m.USD.WebSearch = q.Medium
			}
		}
		if m.ContextLength == 0 {
			st.noContext++ // never listed with an unknown context
			continue
		}
		if m.Created == 0 {
			m.Created = snapshotCreated
		}
		if m.ContextLength > 0 && m.MaxOutputTokens > m.ContextLength {
			m.MaxOutputTokens = m.ContextLength
		}
		m.InputModalities = canonical(m.InputModalities)
		m.OutputModalities = canonical(m.OutputModalities)
		out = append(out, m)
	}
	return out, st
}

// pricesOf reads a model's base input and output prices; ok is false when
// either is missing or not a usable price.
func pricesOf(src pricesModel) (priced, bool, error) {
	set, err := basePrices(src.Prices)
	if err != nil || set == nil {
		return priced{}, false, err
	}
	in, okIn, err := priceValue(set["input_mtok"])
	if err != nil {
		return priced{}, false, fmt.Errorf("input_mtok: %w", err)
	}
	out, okOut, err := priceValue(set["output_mtok"])
	if err != nil {
		return priced{}, false, fmt.Errorf("output_mtok: %w", err)
	}
	if !okIn || !okOut || !usablePrice(in) || !usablePrice(out) {
		return priced{}, false, nil
	}
	if in.String() == "0" && out.String() == "0" {
		return priced{}, false, nil // free models are not resold
	}
	parts, err := partsOf(set)
	if err != nil {
		return priced{}, false, err
	}
	return priced{pricesModel: src, input: in, output: out, parts: parts}, true, nil
}

// demoModels are served by the gateway's built-in demo upstream, so a fresh
// install can be tried without any provider account.
func demoModels() []catalogModel {
	const created = 1767225600 // 2026-01-01T00:00:00Z
	usd := literalUSD{Prompt: "0.5", Completion: "1.5"}
	return []catalogModel{
		{ID: "demo/echo", Name: "Demo: Echo", ContextLength: 32768, MaxOutputTokens: 4096,
			InputModalities: []string{"text"}, OutputModalities: []string{"text"}, USD: usd, Created: created},
		{ID: "demo/fast", Name: "Demo: Fast", ContextLength: 32768, MaxOutputTokens: 4096,
			InputModalities: []string{"text"}, OutputModalities: []string{"text"}, USD: usd, Created: created},
		{ID: "demo/image", Name: "Demo: Image", ContextLength: 32768, MaxOutputTokens: 4096,
			InputModalities: []string{"text"}, OutputModalities: []string{"text", "image"}, USD: usd, Created: created},
		{ID: "demo/image-gen", Name: "Demo: Image generation", InputModalities: []string{"text"}, OutputModalities: []string{"image"},
			USD: literalUSD{Prompt: "0", Completion: "0"}, Created: created,
			Image: &imageSpec{Sizes: []string{"256x256", "512x512", "1024x1024"}, DefaultSize: "256x256", Formats: []string{"png", "jpeg"},
				MaxN: 4, MaxPrompt: 4000, Unit: "image", USDPerImage: map[string]json.Number{"*": "0.001"}}},
	}
}

// russianModels are the GigaChat and YandexGPT families, priced in rubles as
// their makers bill them (rubles per million tokens, input and output alike;
// list prices of the pay-as-you-go plans as of 2026, to be refreshed by the
// operator through the config's models or the admin API when they change).
// Routes send them to the gigachat and yandex upstreams (see docs/operating.md).
func russianModels() []catalogModel {
	const created = 1767225600 // 2026-01-01T00:00:00Z
	rub := func(perMTok string) *literalRUB {
		return &literalRUB{Prompt: json.Number(perMTok), Completion: json.Number(perMTok)}
	}
	giga := func(perMTok string) *literalRUB { // Sber bills no precached (cache-read) tokens
		r := rub(perMTok)
		r.CacheRead = "0"
		return r
	}
	zero := literalUSD{Prompt: "0", Completion: "0"}
	text, vision := []string{"text"}, []string{"text", "image"}
	return []catalogModel{
		{ID: "sber/gigachat-2-lite", Name: "Sber: GigaChat 2 Lite", ContextLength: 131072, MaxOutputTokens: 8192,
			InputModalities: text, OutputModalities: text, USD: zero, RUB: giga("200"), Created: created},
		{ID: "sber/gigachat-2-pro", Name: "Sber: GigaChat 2 Pro", ContextLength: 131072, MaxOutputTokens: 8192,
			InputModalities: vision, OutputModalities: text, USD: zero, RUB: giga("1500"), Created: created},
		{ID: "sber/gigachat-2-max", Name: "Sber: GigaChat 2 Max", ContextLength: 131072, MaxOutputTokens: 8192,
			InputModalities: vision, OutputModalities: text, USD: zero, RUB: giga("1950"), Created: created},
		{ID: "yandex/yandexgpt-lite", Name: "Yandex: YandexGPT Lite", ContextLength: 32768, MaxOutputTokens: 8000,
			InputModalities: text, OutputModalities: text, USD: zero, RUB: rub("200"), Created: created},
		{ID: "yandex/yandexgpt-pro", Name: "Yandex: YandexGPT Pro", ContextLength: 32768, MaxOutputTokens: 8000,
			InputModalities: text, OutputModalities: text, USD: zero, RUB: rub("1200"), Created: created},
		{ID: "yandex/yandexgpt-pro-32k", Name: "Yandex: YandexGPT Pro 32k", ContextLength: 32768, MaxOutputTokens: 8000,
			InputModalities: text, OutputModalities: text, USD: zero, RUB: rub("1200"), Created: created},
	}
}

// encode writes the catalog as indented JSON, one model per array element.
func encode(models []catalogModel) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(models); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// verify decodes the output strictly as []shlyuz.Model, as the binary will,
// and checks that every price reads back as exactly the source decimal.
func verify(out []byte, models []catalogModel) error {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var got []shlyuz.Model
	if err := dec.Decode(&got); err != nil {
		return fmt.Errorf("output does not decode as []shlyuz.Model: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("output has data after the array")
	}
	if len(got) != len(models) {
		return fmt.Errorf("decoded %d models, wrote %d", len(got), len(models))
	}
	seen := map[string]bool{}
	for i, g := range got {
		w := models[i]
		if g.ID != w.ID || seen[g.ID] {
			return fmt.Errorf("model %d: id %q duplicated or out of place", i, g.ID)
		}
		seen[g.ID] = true
		for _, pair := range []struct {
			got  shlyuz.Decimal
			want json.Number
		}{{g.USD.PromptPerMTok, w.USD.Prompt}, {g.USD.CompletionPerMTok, w.USD.Completion}} {
			want, err := shlyuz.ParseDecimal(pair.want.String())
			if err != nil || pair.got.Cmp(want) != 0 {
				return fmt.Errorf("%s: price %s did not survive the round trip", g.ID, pair.want)
			}
		}
	}
	return nil
}

// --- small helpers ---

var (
	variantSuffix = regexp.MustCompile(`:[a-z0-9-]+$`)
	dateSuffix    = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$`)
	nonAlnum      = regexp.MustCompile(`[^a-z0-9]+`)
	imageWord     = regexp.MustCompile(`(^|[^a-z])image([^a-z]|$)`)
)

func lastPart(id string) string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		return id[i+1:]
	}
	return id
}

func stripVariant(id string) string { return variantSuffix.ReplaceAllString(id, "") }

// normalize folds a model name for matching: lower case, no ":variant", no
// trailing date or "-latest", letters and digits only ("claude-3-7-sonnet-20250219"
// and "claude-3.7-sonnet" both become "claude37sonnet").
func normalize(s string) string {
	s = stripVariant(strings.ToLower(strings.TrimSpace(s)))
	s = dateSuffix.ReplaceAllString(s, "")
	return nonAlnum.ReplaceAllString(s, "")
}

// displayName drops an OpenRouter-style "Provider: " prefix from a name.
func displayName(s string) string {
	if _, after, ok := strings.Cut(s, ": "); ok {
		return after
	}
	return s
}

// generatesImages tells image generation models by their id or name, for the
// ones models.dev does not describe.
func generatesImages(id, name string) bool {
	return imageWord.MatchString(strings.ToLower(lastPart(id))) || imageWord.MatchString(strings.ToLower(name))
}

// modalityOrder is the order modalities are listed in.
var modalityOrder = map[string]int{"text": 0, "image": 1, "audio": 2, "video": 3, "pdf": 4}

func canonical(ms []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		m = strings.ToLower(strings.TrimSpace(m))
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		oi, iok := modalityOrder[out[i]]
		oj, jok := modalityOrder[out[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return out[i] < out[j]
	})
	return out
}

func releaseUnix(date string) int64 {
	for _, layout := range []string{"2006-01-02", "2006-01"} {
		if t, err := time.Parse(layout, date); err == nil {
			return t.Unix()
		}
	}
	return 0
}

func contains(ms []string, s string) bool {
	for _, m := range ms {
		if m == s {
			return true
		}
	}
	return false
}
