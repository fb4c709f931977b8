package tokens

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/shlyuz/shlyuz/tokens/tokenstest"
	"golang.org/x/text/unicode/norm"
)

// claudeEncoding is Anthropic's published tokenizer (tokenstest.Claude).
func claudeEncoding(t *testing.T) *tiktoken.Tiktoken {
	t.Helper()
	enc, err := tokenstest.Claude()
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// referenceCounts counts text with every tokenizer the bound must hold
// for: OpenAI's o200k and cl100k, Claude's.
func referenceCounts(t *testing.T) map[string]func(string) int {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	out := map[string]func(string) int{}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		enc, err := tiktoken.GetEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = func(s string) int { return len(enc.Encode(s, nil, nil)) }
	}
	claude := claudeEncoding(t)
	out["claude"] = func(s string) int { return len(claude.Encode(norm.NFKC.String(s), nil, nil)) }
	return out
}

// withGemini adds Gemini's tokenizers (tokenstest.Gemini, Gemini1) to
// counts, for the given texts only: they run under node, which counts
// every text in one run.
func withGemini(t *testing.T, counts map[string]func(string) int, texts []string) {
	t.Helper()
	byName, err := tokenstest.GeminiCounts(texts...)
	if err != nil {
		t.Fatal(err)
	}
	for name, byText := range byName {
		counts[name] = func(s string) int {
			n, ok := byText[s]
			if !ok {
				t.Fatalf("%s did not count %.40q", name, s)
			}
			return n
		}
	}
}

// adversarialCorpora are texts generated to cost tokenizers the most per
// character: random letters of mixed case, rare CJK, emoji, mixed
// whitespace, code, base64.
func adversarialCorpora(seed uint64) map[string]string {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	pick := func(n int, f func() rune) string {
		var b strings.Builder
		for range n {
			b.WriteRune(f())
		}
		return b.String()
	}
	words := func(n int, letter func() rune) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(pick(1+r.IntN(9), letter))
			b.WriteString([]string{" ", " ", ", ", ". ", "\n"}[r.IntN(5)])
		}
		return b.String()
	}
	cyr := func() rune { return 0x0410 + rune(r.IntN(64)) } // А..я, both cases
	cyrAll := func() rune { return 0x0400 + rune(r.IntN(256)) }
	lat := func() rune {
		if r.IntN(2) == 0 {
			return 'a' + rune(r.IntN(26))
		}
		return 'A' + rune(r.IntN(26))
	}
	raw := make([]byte, 3000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	code := strings.Repeat("func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.db.QueryRow(ctx, `SELECT id FROM t WHERE x=$1`, r.URL.Query().Get(\"x\")).Scan(&id); err != nil {\n\t\thttp.Error(w, err.Error(), 500)\n\t}\n}\n", 10)
	return map[string]string{
		"random cyrillic, mixed case":  words(4000, cyr),
		"random cyrillic, whole block": words(4000, cyrAll),
		"cyrillic run, no spaces":      pick(2000, cyr),
		"random latin, mixed case":     words(4000, lat),
		"latin run, no spaces":         pick(3000, lat),
		"random lower-case words":      words(4000, func() rune { return 'a' + rune(r.IntN(26)) }),
		"random words, JSON-like": words(4000, func() rune {
			return []rune("abcdefghijklmnopqrstuvwxyz\"{}:,_-./0123456789 ")[r.IntN(46)]
		}),
		"spaces and digits": pick(3000, func() rune { return []rune("0123456789   \n")[r.IntN(14)] }),
		"cjk common":        pick(1500, func() rune { return 0x4E00 + rune(r.IntN(0x5200)) }),
		"cjk rare (ext A, ext B)": pick(1500, func() rune {
			if r.IntN(2) == 0 {
				return 0x3400 + rune(r.IntN(0x19C0))
			}
			return 0x20000 + rune(r.IntN(0xA6E0))
		}),
		"emoji":            pick(1000, func() rune { return 0x1F300 + rune(r.IntN(0x300)) }),
		"mixed whitespace": pick(3000, func() rune { return []rune{' ', '\t', '\n', '\r', 0xA0, 0x3000, 0x2009}[r.IntN(7)] }),
		"punctuation":      pick(3000, func() rune { return []rune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")[r.IntN(32)] }),
		"digits":           pick(3000, func() rune { return '0' + rune(r.IntN(10)) }),
		"code":             code,
		"base64":           base64.StdEncoding.EncodeToString(raw),
		"nfkc expansions": pick(1000, func() rune {
			return []rune{0xFDFA, 0xFDFB, 0x3300, 0x337F, 0x33FF, 0x2057, 0x2A0C, 0xFB03, 0x00BD, 0x2474, 0x1F12A, 0x0F77}[r.IntN(12)]
		}),
		"mixed scripts": words(4000, func() rune {
			switch r.IntN(4) {
			case 0:
				return cyr()
			case 1:
				return lat()
			case 2:
				return 0x4E00 + rune(r.IntN(0x5200))
			}
			return 0x0600 + rune(r.IntN(0x100)) // Arabic
		}),
	}
}

// TestPromptReserveBoundsEveryTokenizer: on every adversarial corpus, and
// on the ordinary samples, sent as UTF-8 and \u-escaped, the reserve is at
// least what o200k, cl100k, Claude's and Gemini's tokenizers count.
func TestPromptReserveBoundsEveryTokenizer(t *testing.T) {
	counts := referenceCounts(t)
	texts := adversarialCorpora(1)
	for _, s := range estimateSamples {
		texts[s.name] = s.text
	}
	all := make([]string, 0, len(texts))
	for _, text := range texts {
		all = append(all, text)
	}
	withGemini(t, counts, all)
	for name, text := range texts {
		plain, _ := json.Marshal(text)
		for _, lit := range [][]byte{plain, escapedJSON(text)} {
			reserve, _ := textTokens(lit)
			for tok, count := range counts {
				n := count(text)
				t.Logf("%-30s %-12s %6d tokens, reserve %6d (%.2f×)", name, tok, n, reserve, float64(reserve)/float64(n))
				if reserve < int64(n) {
					t.Errorf("%s: reserve %d below %s's %d", name, reserve, tok, n)
				}
			}
		}
	}
}
