package actors

import (
	"bytes"
	"encoding/json"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/tokens"
)

// PromptKinds is which prompt prices dearer than plain input the request
// can be billed at model, for the bound its hold multiplies
// (shlyuz.Price.BoundFor). It reads the body's bytes, never more than
// their literals say, and errs toward the dearer price: a word in a
// prompt's text that names a kind keeps that kind's price, as does any
// JSON escape of a letter or digit (a key spelled "cache\u005fcontrol"
// must not slip by), and a model whose maker caches on its own keeps
// the cache write prices whatever the request says. What an upstream
// reports beyond the hold is charged all the same; this only keeps
// holds near what a request can cost.
func (c *ChatCall) PromptKinds(model string) shlyuz.PromptKinds {
	var seen bodyLiterals
	for k, v := range c.Fields { // a top-level member's name is a literal too (automatic caching's cache_control)
		seen.scanKey(k)
		seen.scan(v)
	}
	if c.Native != nil {
		for k, v := range c.Native.Body {
			seen.scanKey(k)
			seen.scan(v)
		}
	}
	if seen.escaped {
		return shlyuz.AnyPrompt
	}
	var k shlyuz.PromptKinds
	if seen.cacheControl || !cachesOnRequest(model) {
		k |= shlyuz.PromptCacheWrite
		if seen.ttl && seen.oneHour || !cachesOnRequest(model) { // a one-hour write names its ttl "1h"
			k |= shlyuz.PromptCacheWrite1h
		}
	}
	measured := 0
	if c.Prompt.Media != nil {
		measured = len(c.Prompt.Media.Parts)
		for _, p := range c.Prompt.Media.Parts {
			switch p.Kind {
			case tokens.MediaAudio:
				k |= shlyuz.PromptAudio
			case tokens.MediaVideo: // its sound may be billed as audio
				k |= shlyuz.PromptAudio | shlyuz.PromptImage
			default:
				k |= shlyuz.PromptImage
			}
		}
	}
	if c.Prompt.Images > int64(measured) { // parts not measured: anything
		k |= shlyuz.PromptAudio | shlyuz.PromptImage
	}
	if seen.audio { // an earlier answer's audio by id, a part the walk does not count
		k |= shlyuz.PromptAudio
	}
	if seen.image {
		k |= shlyuz.PromptImage
	}
	return k
}

// cachesOnRequest: the model's maker writes a prompt to its cache only
// where the request marks it with cache_control (Anthropic's models,
// wherever they are served). Others cache on their own, and some bill
// that write above input (OpenAI's GPT-5.6 by genai-prices).
func cachesOnRequest(model string) bool {
	id := strings.ToLower(model)
	return strings.Contains(id, "claude") || strings.HasPrefix(id, "anthropic/")
}

// bodyLiterals are the literals of a request body that can make its prompt
// dearer than plain input.
type bodyLiterals struct {
	cacheControl, ttl, oneHour, audio, image, escaped bool
}

var (
	litCacheControl = []byte("cache_control")
	litTTL          = []byte("ttl")
	litOneHour      = []byte("1h")
	litAudio        = []byte("audio")
	litImage        = []byte("image")
	litEscape       = []byte(`\u00`)
)

func (s *bodyLiterals) scanKey(k string) {
	s.cacheControl = s.cacheControl || strings.Contains(k, "cache_control")
	s.audio = s.audio || strings.Contains(k, "audio")
	s.image = s.image || strings.Contains(k, "image")
}

func (s *bodyLiterals) scan(v json.RawMessage) {
	s.cacheControl = s.cacheControl || bytes.Contains(v, litCacheControl)
	s.ttl = s.ttl || bytes.Contains(v, litTTL)
	s.oneHour = s.oneHour || bytes.Contains(v, litOneHour)
	s.audio = s.audio || bytes.Contains(v, litAudio)
	s.image = s.image || bytes.Contains(v, litImage)
	for rest := v; !s.escaped; {
		i := bytes.Index(rest, litEscape)
		if i < 0 || i+6 > len(rest) {
			break
		}
		s.escaped = escapesWordChar(rest[i+4], rest[i+5])
		rest = rest[i+4:]
	}
}

// escapesWordChar: \u00XY escapes a letter, a digit or an underscore, which
// no encoder escapes unless asked to hide a key.
func escapesWordChar(x, y byte) bool {
	hex := func(b byte) int {
		switch {
		case b >= '0' && b <= '9':
			return int(b - '0')
		case b >= 'a' && b <= 'f':
			return int(b-'a') + 10
		case b >= 'A' && b <= 'F':
			return int(b-'A') + 10
		}
		return -1
	}
	hi, lo := hex(x), hex(y)
	if hi < 0 || lo < 0 {
		return false
	}
	r := rune(hi<<4 | lo)
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}
