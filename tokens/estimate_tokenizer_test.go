package tokens

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// escapedJSON is s as a JSON literal with every non-ASCII character escaped
// (\uXXXX), as Python's json.dumps writes it by default.
func escapedJSON(s string) []byte {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			b.WriteString(hex4(0xD800 + (r >> 10)))
			b.WriteString(hex4(0xDC00 + (r & 0x3FF)))
		default:
			b.WriteString(hex4(r))
		}
	}
	b.WriteByte('"')
	return []byte(b.String())
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return `\u` + string([]byte{digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15]})
}

var estimateSamples = []struct{ name, text string }{
	{"english prose", "The gateway reserves the worst case of a request before it calls the upstream, and settles to the real price when the reply ends. A client that sends no max_tokens gets the most its key and balance can pay for, and the header tells it so. Nothing is charged for a request that failed before the first byte."},
	{"russian prose", "Шлюз резервирует худший случай запроса до обращения к провайдеру и списывает настоящую цену, когда ответ закончен. Клиент, не указавший max_tokens, получает столько, сколько может оплатить его ключ и баланс, и заголовок ответа говорит ему об этом. За запрос, который не удался до первого байта, ничего не списывается."},
	{"python code", "def settle(reservation, usage):\n    cost = usage.prompt_tokens * price.prompt + usage.completion_tokens * price.completion\n    if cost > reservation.held:\n        cost = reservation.held\n    ledger.append(Entry(id=reservation.id, amount=-cost))\n    return cost\n"},
	{"numbers", "Invoice 2026-11-25: 1 ruble = 100000 credits; 12345678 credits were spent on 4096 requests, 3.14159 on average, account 987654321."},
	{"chinese", "网关在调用上游之前预留请求的最坏情况，并在回复结束时按实际价格结算。"},
	{"emoji and symbols", "Готово ✅ — цена: 1 500 ₽ (≈ $16.20) → «дешевле» 🚀🚀"},
}

// TestPromptEstimateAgainstTokenizers: for ordinary text the reservation
// estimate is an upper bound of what OpenAI's tokenizers count, and within
// a token a byte of it, whether the client sent the text as UTF-8 or
// \u-escaped (TestPromptReserveBoundsEveryTokenizer holds it on adversarial
// text and Claude's tokenizer).
func TestPromptEstimateAgainstTokenizers(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	var encs []*tiktoken.Tiktoken
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		enc, err := tiktoken.GetEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		encs = append(encs, enc)
	}
	for _, s := range estimateSamples {
		plain, _ := json.Marshal(s.text)
		for _, lit := range [][]byte{plain, escapedJSON(s.text)} {
			reserve, likely := textTokens(lit)
			var most, least int
			for i, enc := range encs {
				n := len(enc.Encode(s.text, nil, nil))
				if i == 0 || n > most {
					most = n
				}
				if i == 0 || n < least {
					least = n
				}
			}
			t.Logf("%-18s %4d bytes: reserve %4d likely %4d, tokenizers %d..%d", s.name, len(lit), reserve, likely, least, most)
			if reserve < int64(most) {
				t.Errorf("%s: reserve %d is below a tokenizer's %d", s.name, reserve, most)
			}
			if float64(reserve) > 6.0*float64(most) { // a token a byte: English and Russian prose cost 4 to 5 bytes a token
				t.Errorf("%s: reserve %d is over six times the tokenizers' %d", s.name, reserve, most)
			}
			if likely > reserve {
				t.Errorf("%s: likely %d above reserve %d", s.name, likely, reserve)
			}
		}
	}
}

// BenchmarkEstimatePrompt is the estimate's cost on the request path, for a
// prompt of ordinary Russian text sent \u-escaped (the slowest ordinary case).
func BenchmarkEstimatePrompt(b *testing.B) {
	msgs := []byte(`[{"role":"system","content":"You are helpful."},{"role":"user","content":` + string(escapedJSON(estimateSamples[1].text)) + `}]`)
	b.SetBytes(int64(len(msgs)))
	for b.Loop() {
		if _, err := EstimatePrompt(msgs); err != nil {
			b.Fatal(err)
		}
	}
}

// bigMessages is a messages array of about size bytes: a system message and a
// user message of English prose and code (JSON-escaped newlines and quotes),
// the context a coding agent sends.
func bigMessages(size int) []byte {
	prose, _ := json.Marshal(estimateSamples[0].text + "\n\n" + estimateSamples[2].text + "\n")
	chunk := string(prose[1 : len(prose)-1])
	var b strings.Builder
	b.WriteString(`[{"role":"system","content":"You are a careful coding assistant."},{"role":"user","content":"`)
	for b.Len() < size-3 {
		b.WriteString(chunk[:min(len(chunk), size-3-b.Len())])
	}
	s := strings.TrimRight(b.String(), `\`) + `"}]`
	return []byte(s)
}

// BenchmarkEstimatePromptSizes is the estimate of a large context, in MB/s.
func BenchmarkEstimatePromptSizes(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1KB", 1 << 10}, {"150KB", 150_000}, {"1MB", 1 << 20}} {
		msgs := bigMessages(size.n)
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(msgs)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EstimatePrompt(msgs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchPromptText is cmd/bench's scenario 7 prompt: prose and Go code
// indented with tabs. JSON-escaped, its code is dense with escapes (\n\t\t,
// \"), two runs of spaces an escape apart at most lines' start, which the
// bulk count closes one gap at a time: its 150 KB take longer to estimate
// than bigMessages' prose (about 1.45 times on a 2-core amd64 VM).
const benchPromptText = "The gateway reserves the worst case of a request before it calls the upstream, and settles to the real price " +
	"when the reply ends. A client that sends no max_tokens gets the most its key and balance can pay for.\n\n" +
	"func settle(r *Reservation, u Usage) int64 {\n\tcost := u.PromptTokens*r.Price.Prompt + u.CompletionTokens*r.Price.Completion\n" +
	"\tif cost > r.Held {\n\t\tcost = r.Held\n\t}\n\treturn cost // \"held\" is the ceiling\n}\n\n"

// BenchmarkEstimatePromptCode is the estimate of the 150,000-character
// prompt cmd/bench sends (benchPromptText), the one whose end-to-end cost
// docs/performance.md reports, in MB/s of the messages array.
func BenchmarkEstimatePromptCode(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat(benchPromptText, 150_000/len(benchPromptText)+1)[:150_000])
	msgs := []byte(`[{"role":"system","content":"You are a careful coding assistant."},{"role":"user","content":` + string(text) + `}]`)
	b.SetBytes(int64(len(msgs)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EstimatePrompt(msgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEstimatePromptRussian is the estimate of a large context of
// Russian prose (~140 KB), sent as UTF-8 and \u-escaped (Python's
// json.dumps by default), in MB/s of the messages array.
func BenchmarkEstimatePromptRussian(b *testing.B) {
	text := strings.Repeat(estimateSamples[1].text+"\n", 250)
	raw, _ := json.Marshal(text)
	for _, tc := range []struct {
		name string
		lit  []byte
	}{{"utf8", raw}, {"escaped", escapedJSON(text)}} {
		msgs := []byte(`[{"role":"user","content":` + string(tc.lit) + `}]`)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(msgs)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EstimatePrompt(msgs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
