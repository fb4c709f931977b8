package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/shlyuz/shlyuz"
)

// literalParts are shlyuz.PriceParts as written to catalog.json: the literal
// text of the source numbers, per million tokens (request: per request).
type literalParts struct {
	CacheRead    json.Number  `json:"cache_read_per_mtok,omitempty"`
	CacheWrite   json.Number  `json:"cache_write_per_mtok,omitempty"`
	CacheWrite1h json.Number  `json:"cache_write_1h_per_mtok,omitempty"`
	AudioIn      json.Number  `json:"audio_input_per_mtok,omitempty"`
	AudioOut     json.Number  `json:"audio_output_per_mtok,omitempty"`
	Request      json.Number  `json:"request,omitempty"`
	WebSearch    json.Number  `json:"web_search,omitempty"` // per search
	LongContext  *literalLong `json:"long_context,omitempty"`
}

// literalLong is shlyuz.LongContextPrice as written to catalog.json.
type literalLong struct {
	AbovePromptTokens int64       `json:"above_prompt_tokens"`
	Prompt            json.Number `json:"prompt_per_mtok"`
	Completion        json.Number `json:"completion_per_mtok"`
	CacheRead         json.Number `json:"cache_read_per_mtok,omitempty"`
	CacheWrite        json.Number `json:"cache_write_per_mtok,omitempty"`
	CacheWrite1h      json.Number `json:"cache_write_1h_per_mtok,omitempty"`
}

// tiered is a genai-prices price with its tiers: {"base": 3, "tiers":
// [{"start": 200000, "price": 6}]} or a plain number (no tiers).
type tiered struct {
	base  json.Number
	start int64       // the prompt size above which above applies; 0: none
	above json.Number // the first tier's price
}

func readTiered(raw json.RawMessage) (tiered, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return tiered{}, false, nil
	}
	if raw[0] != '{' {
		n, ok, err := priceValue(raw)
		return tiered{base: n}, ok, err
	}
	var w struct {
		Base  json.RawMessage `json:"base"`
		Tiers []struct {
			Start int64           `json:"start"`
			Price json.RawMessage `json:"price"`
		} `json:"tiers"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return tiered{}, false, err
	}
	t := tiered{}
	var ok bool
	var err error
	if t.base, ok, err = priceValue(w.Base); err != nil || !ok {
		return t, ok, err
	}
	if len(w.Tiers) > 0 {
		if p, ok, err := priceValue(w.Tiers[0].Price); err == nil && ok && usablePrice(p) {
			t.start, t.above = w.Tiers[0].Start, p
		}
	}
	return t, true, nil
}

// partsOf reads the parts of a genai-prices price set beyond input and
// output: cache reads and writes, audio, a request fee, and the long-context
// tier of input and output (both must be tiered at the same size).
func partsOf(set map[string]json.RawMessage) (literalParts, error) {
	var p literalParts
	one := func(key string, into *json.Number) (tiered, error) {
		t, ok, err := readTiered(set[key])
		if err != nil {
			return t, fmt.Errorf("%s: %w", key, err)
		}
		if ok && usablePrice(t.base) {
			*into = t.base
		}
		return t, nil
	}
	read, err := one("cache_read_mtok", &p.CacheRead)
	if err != nil {
		return p, err
	}
	write, err := one("cache_write_mtok", &p.CacheWrite)
	if err != nil {
		return p, err
	}
	if _, err := one("input_audio_mtok", &p.AudioIn); err != nil {
		return p, err
	}
	if _, err := one("output_audio_mtok", &p.AudioOut); err != nil {
		return p, err
	}
	var perK json.Number
	if _, err := one("requests_kcount", &perK); err != nil {
		return p, err
	}
	if perK != "" { // per thousand requests → per request
		d, err := shlyuz.ParseDecimal(perK.String())
		if err != nil {
			return p, err
		}
		p.Request = json.Number(d.Quo(1000).String())
	}
	in, _, err := readTiered(set["input_mtok"])
	if err != nil {
		return p, err
	}
	out, _, err := readTiered(set["output_mtok"])
	if err != nil {
		return p, err
	}
	if in.start > 0 && (out.start == in.start || out.start == 0) {
		lc := &literalLong{AbovePromptTokens: in.start, Prompt: in.above, Completion: out.base}
		if out.start == in.start {
			lc.Completion = out.above
		}
		if read.start == in.start {
			lc.CacheRead = read.above
		} else {
			lc.CacheRead = p.CacheRead
		}
		if write.start == in.start {
			lc.CacheWrite = write.above
		} else {
			lc.CacheWrite = p.CacheWrite
		}
		p.LongContext = lc
	}
	return p, nil
}

// perMTok is a LiteLLM price per token (a JSON number such as 6e-06) as the
// literal decimal text of its price per million tokens ("6").
func perMTok(n json.Number) (json.Number, bool) {
	d, err := shlyuz.ParseDecimal(n.String())
	if err != nil || d.Sign() < 0 {
		return "", false
	}
	return json.Number(d.MulInt(1_000_000).String()), true
}

// deepseekAliases name DeepSeek's own model for an OpenRouter id whose name differs.
var deepseekAliases = map[string]string{"deepseek/deepseek-r1": "deepseek-reasoner", "deepseek/deepseek-r1-0528": "deepseek-reasoner"}

// deepseekOwn is DeepSeek's own price of a deepseek/ model: its standard
// (dearer) set when the list has several by time of day, since a charge
// cannot depend on the hour the upstream bills.
func deepseekOwn(id string, own []pricesModel) (json.RawMessage, bool) {
	name, ok := deepseekAliases[id]
	if !ok {
		prefix, model, _ := bytes.Cut([]byte(id), []byte("/"))
		if string(prefix) != "deepseek" {
			return nil, false
		}
		name = string(model)
	}
	for _, m := range own {
		if m.ID != name {
			continue
		}
		raw := bytes.TrimSpace(m.Prices)
		if len(raw) == 0 || raw[0] != '[' {
			return m.Prices, true
		}
		var sets []struct {
			Prices json.RawMessage `json:"prices"`
		}
		if json.Unmarshal(raw, &sets) != nil || len(sets) == 0 {
			return nil, false
		}
		best, bestIn := sets[0].Prices, shlyuz.Decimal{}
		for _, s := range sets {
			var p struct {
				Input json.Number `json:"input_mtok"`
			}
			if json.Unmarshal(s.Prices, &p) != nil {
				continue
			}
			if d, err := shlyuz.ParseDecimal(p.Input.String()); err == nil && d.Cmp(bestIn) > 0 {
				best, bestIn = s.Prices, d
			}
		}
		return best, true
	}
	return nil, false
}

// longFromLiteLLM is the long-context tier LiteLLM knows (above 200k prompt
// tokens) for a model whose genai-prices price is not tiered; nil without one.
func longFromLiteLLM(l litellmModel, base *literalParts) *literalLong {
	in, okIn := perMTok(l.InputAbove200k)
	out, okOut := perMTok(l.OutputAbove200k)
	if l.InputAbove200k == "" || l.OutputAbove200k == "" || !okIn || !okOut {
		return nil
	}
	lc := &literalLong{AbovePromptTokens: 200_000, Prompt: in, Completion: out, CacheRead: base.CacheRead, CacheWrite: base.CacheWrite}
	// Above the threshold a part is never cheaper than below it (the files
	// disagree on some cache prices).
	if r, ok := perMTok(l.CacheReadAbove200k); ok && l.CacheReadAbove200k != "" && base.CacheRead != "" {
		lc.CacheRead = dearer(base.CacheRead, r)
	}
	if w, ok := perMTok(l.CacheWriteAbove200k); ok && l.CacheWriteAbove200k != "" && base.CacheWrite != "" {
		lc.CacheWrite = dearer(base.CacheWrite, w)
	}
	return lc
}

// dearer is the larger of two literal prices.
func dearer(a, b json.Number) json.Number {
	da, errA := shlyuz.ParseDecimal(a.String())
	db, errB := shlyuz.ParseDecimal(b.String())
	if errA != nil || (errB == nil && db.Cmp(da) > 0) {
		return b
	}
	return a
}
