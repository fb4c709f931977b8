package actors

import (
	"bytes"
	"encoding/json"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/tokens"
)

// PromptKinds is which prompt prices dearer than plain input the request
// can be billed at model, whose price is p, for the bound its hold
// multiplies (shlyuz.Price.BoundFor). Media parts the prompt's estimate
// measured say what they hold; beyond them it reads the body's bytes, only
// for the kinds p prices above input, and errs toward the dearer price: a
// word in a prompt's text that names a kind keeps that kind's price, as
// does any JSON escape of a letter or digit (a key spelled
// "cache\u005fcontrol" must not slip by), and a model whose maker caches on
// its own keeps the cache write prices whatever the request says. What an
// upstream reports beyond the hold is charged all the same; this only
// keeps holds near what a request can cost.
func (c *ChatCall) PromptKinds(model string, p *shlyuz.Price) shlyuz.PromptKinds {
	const writes = shlyuz.PromptCacheWrite | shlyuz.PromptCacheWrite1h
	k := shlyuz.AnyPrompt &^ p.DearerKinds() // no dearer than input: nothing to tell apart
	if !cachesOnRequest(model) {
		k |= writes
	}
	measured := 0
	if c.Prompt.Media != nil {
		measured = len(c.Prompt.Media.Parts)
		for _, part := range c.Prompt.Media.Parts {
			switch part.Kind {
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
	seen := bodyLiterals{want: shlyuz.AnyPrompt &^ k}
	if seen.want == 0 {
		return k
	}
	// The fields are made from the native body, when there is one, and the
	// gateway adds none of the literals looked for: one of them is read.
	members := c.Fields
	if c.Native != nil {
		members = c.Native.Body
	}
	for name, v := range members {
		seen.scan(name, v)
		if seen.escaped || seen.found()&seen.want == seen.want {
			break // the rest of the body can add nothing: the bound is already every kind's
		}
	}
	if seen.escaped {
		return shlyuz.AnyPrompt
	}
	return k | seen.found()
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
	want                                         shlyuz.PromptKinds // the kinds still to look for
	cacheControl, oneHour, audio, image, escaped bool
}

var (
	litCacheControl = []byte("cache_control")
	litOneHour      = []byte("1h")
	litAudio        = []byte("audio")
	litImage        = []byte("image")
	litEscape       = []byte(`\u00`)
)

// found is the kinds the literals seen so far bill at: an audio literal
// may be an earlier answer's audio by id, a part the walk does not count.
func (s *bodyLiterals) found() shlyuz.PromptKinds {
	var k shlyuz.PromptKinds
	if s.cacheControl {
		k |= shlyuz.PromptCacheWrite
		if s.oneHour {
			k |= shlyuz.PromptCacheWrite1h
		}
	}
	if s.audio {
		k |= shlyuz.PromptAudio
	}
	if s.image {
		k |= shlyuz.PromptImage
	}
	return k
}

// scan looks in a top-level member for the literals of the kinds wanted
// that it has not seen yet.
func (s *bodyLiterals) scan(name string, v json.RawMessage) {
	const writes = shlyuz.PromptCacheWrite | shlyuz.PromptCacheWrite1h
	if s.want&writes != 0 {
		if strings.Contains(name, "cache_control") { // automatic caching: the mark is the member
			s.cacheControl = true
			s.oneHour = s.oneHour || bytes.Contains(v, litOneHour) || bytes.Count(v, []byte("{")) > 1
		}
		for rest := v; !s.oneHour; {
			i := bytes.Index(rest, litCacheControl)
			if i < 0 {
				break
			}
			s.cacheControl = true
			rest = rest[i+len(litCacheControl):]
			if s.want&shlyuz.PromptCacheWrite1h == 0 {
				break
			}
			s.oneHour = marksOneHour(rest)
		}
	}
	if s.want&shlyuz.PromptAudio != 0 {
		s.audio = s.audio || strings.Contains(name, "audio") || bytes.Contains(v, litAudio)
	}
	if s.want&shlyuz.PromptImage != 0 {
		s.image = s.image || strings.Contains(name, "image") || bytes.Contains(v, litImage)
	}
	for rest := v; !s.escaped; {
		i := bytes.Index(rest, litEscape)
		if i < 0 || i+6 > len(rest) {
			break
		}
		s.escaped = escapesWordChar(rest[i+4], rest[i+5])
		rest = rest[i+4:]
	}
}

// marksOneHour reads what follows a "cache_control" literal: a member's
// name followed by an object whose members name "1h" (Anthropic's ttl: "5m"
// or "1h") asks for a one-hour write; so, to be safe, does an object that
// holds another or does not end. Anything else (the word in a text, in a
// string's escaped JSON) asks for nothing.
func marksOneHour(after []byte) bool {
	i := 0
	if i < len(after) && after[i] == '"' {
		i++
	} else {
		return false
	}
	for i < len(after) && isJSONSpace(after[i]) {
		i++
	}
	if i >= len(after) || after[i] != ':' {
		return false
	}
	for i++; i < len(after) && isJSONSpace(after[i]); i++ {
	}
	if i >= len(after) || after[i] != '{' {
		return false
	}
	obj := after[i+1:]
	end := bytes.IndexByte(obj, '}')
	if end < 0 {
		return true
	}
	obj = obj[:end]
	return bytes.IndexByte(obj, '{') >= 0 || bytes.Contains(obj, litOneHour)
}

func isJSONSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

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
