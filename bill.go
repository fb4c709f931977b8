package shlyuz

import (
	"math"
	"math/big"
	"math/bits"
	"sort"
)

// CreditsDetails says how a charge adds up, in credits; its parts sum to the
// charge exactly (the one round-up of a request is shared out by largest
// remainder).
type CreditsDetails struct {
	Input       Credits `json:"input"`
	CachedInput Credits `json:"cached_input"`
	CacheWrite  Credits `json:"cache_write"`
	Output      Credits `json:"output"`
	Reasoning   Credits `json:"reasoning"`
	AudioInput  Credits `json:"audio_input,omitempty"`
	AudioOutput Credits `json:"audio_output,omitempty"`
	ImageInput  Credits `json:"image_input,omitempty"`
	ImageOutput Credits `json:"image_output,omitempty"`
	Request     Credits `json:"request,omitempty"`
	WebSearch   Credits `json:"web_search,omitempty"`
}

// Sum is the total of the parts.
func (d CreditsDetails) Sum() Credits {
	var s Credits
	for _, p := range d.parts() {
		s = AddChecked(s, *p)
	}
	return s
}

func (d *CreditsDetails) parts() [11]*Credits {
	return [11]*Credits{&d.Input, &d.CachedInput, &d.CacheWrite, &d.Output, &d.Reasoning,
		&d.AudioInput, &d.AudioOutput, &d.ImageInput, &d.ImageOutput, &d.Request, &d.WebSearch}
}

// Bill is what a request costs at a price.
type Bill struct {
	Credits Credits // the whole charge, rounded up once
	Details CreditsDetails
	micro   [11]int64 // the exact parts, in micro-credits, for Cap
}

// Bill prices the usage (normalised first): each kind of token at its part of
// the price (the long-context tier when the prompt is above it), plus the
// request fee, summed in micro-credits and rounded up once. An overflow
// saturates at math.MaxInt64 credits; the caller caps it at what was reserved.
func (p *Price) Bill(u Usage) Bill {
	u = u.Normalized()
	q := p.For(u.PromptTokens)
	write5m := u.CacheWriteTokens - u.CacheWrite1hTokens
	textIn := u.PromptTokens - u.CachedTokens - u.CacheWriteTokens - u.AudioPromptTokens - u.ImagePromptTokens
	textOut := u.CompletionTokens - u.ReasoningTokens - u.AudioCompletionTokens - u.ImageCompletionTokens
	var b Bill
	b.micro = [11]int64{
		MulChecked(textIn, q.PromptMicro),
		MulChecked(u.CachedTokens, q.CacheReadMicro),
		AddChecked(MulChecked(write5m, q.CacheWriteMicro), MulChecked(u.CacheWrite1hTokens, q.CacheWrite1hMicro)),
		MulChecked(textOut, q.CompletionMicro),
		MulChecked(u.ReasoningTokens, q.ReasoningMicro),
		MulChecked(u.AudioPromptTokens, q.AudioInMicro),
		MulChecked(u.AudioCompletionTokens, q.AudioOutMicro),
		MulChecked(u.ImagePromptTokens, q.ImageInMicro),
		MulChecked(u.ImageCompletionTokens, q.ImageOutMicro),
		q.RequestMicro,
		MulChecked(u.WebSearches, p.WebSearchMicro), // one fee whatever the prompt's size
	}
	b.total()
	return b
}

// total sets Credits to the parts' sum, rounded up once, and shares it out.
func (b *Bill) total() {
	var total int64
	for _, m := range b.micro {
		total = AddChecked(total, m)
	}
	b.Credits = ceilDiv(total, MicroPerCredit)
	if total == math.MaxInt64 {
		b.Credits = math.MaxInt64
	}
	b.share()
}

// Cap lowers the charge to at most limit (the reservation), sharing the
// capped amount out over the parts in proportion; it reports whether the
// bill was above the limit.
func (b *Bill) Cap(limit Credits) bool {
	if b.Credits <= limit {
		return false
	}
	b.Credits = max(limit, 0)
	b.share()
	return true
}

// share splits b.Credits over the parts in proportion to their exact
// micro-credits, by largest remainder, so that the parts sum to it.
func (b *Bill) share() {
	if !b.shareSmall() {
		b.shareBig()
	}
}

// shareBig is share in arbitrary precision, for any parts.
func (b *Bill) shareBig() {
	var sum big.Int
	for _, m := range b.micro {
		sum.Add(&sum, big.NewInt(m))
	}
	out := b.Details.parts()
	if sum.Sign() == 0 {
		for _, p := range out {
			*p = 0
		}
		*out[0] = b.Credits
		return
	}
	rems := make([]big.Int, len(b.micro))
	order := make([]int, 0, len(b.micro))
	given := int64(0)
	total := big.NewInt(b.Credits)
	for i, m := range b.micro {
		var q big.Int
		q.Mul(big.NewInt(m), total)
		q.QuoRem(&q, &sum, &rems[i])
		*out[i] = q.Int64() // ≤ b.Credits: m ≤ sum
		given += *out[i]
		if m > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(x, y int) bool { return rems[order[x]].Cmp(&rems[order[y]]) > 0 })
	for k := 0; given < b.Credits && k < len(order); k++ { // fewer units left than parts
		*out[order[k]]++
		given++
	}
}

// shareSmall is share in 128-bit arithmetic, without allocating, for the
// usual bill: no negative part, no negative charge, and parts whose sum fits
// in 64 bits. It reports false, having changed nothing, for any other.
func (b *Bill) shareSmall() bool {
	var sum uint64
	for _, m := range b.micro {
		if m < 0 {
			return false
		}
		var carry uint64
		if sum, carry = bits.Add64(sum, uint64(m), 0); carry != 0 {
			return false
		}
	}
	if sum == 0 || b.Credits < 0 {
		return false // the big path's own case, or one it handles
	}
	out := b.Details.parts()
	var rems [11]uint64
	var order [11]int
	n, given := 0, int64(0)
	for i, m := range b.micro {
		hi, lo := bits.Mul64(uint64(m), uint64(b.Credits))
		q, r := bits.Div64(hi, lo, sum) // m ≤ sum: the quotient is at most b.Credits, and hi < sum
		*out[i] = int64(q)
		rems[i] = r
		given += int64(q)
		if m > 0 { // in order of remainder, largest first; equal ones by index
			j := n
			for j > 0 && rems[order[j-1]] < r {
				order[j] = order[j-1]
				j--
			}
			order[j] = i
			n++
		}
	}
	for k := 0; given < b.Credits && k < n; k++ {
		*out[order[k]]++
		given++
	}
	return true
}

// PriceBound is the dearest prompt token and the dearest completion token of
// a price, and its request fee: what a reservation multiplies, so that it
// stays above whatever mix of tokens the upstream reports.
type PriceBound struct {
	PromptMicro     int64
	CompletionMicro int64
	RequestMicro    int64
}

// PromptKinds are the kinds of prompt token dearer than plain input that a
// request may be billed at: a bound leaves out the prices of the kinds a
// request cannot be billed (a prompt without audio at the audio price).
type PromptKinds uint8

const (
	// PromptCacheWrite: the prompt may be written to a cache (five minutes).
	PromptCacheWrite PromptKinds = 1 << iota
	// PromptCacheWrite1h: the prompt may be written to a one-hour cache.
	PromptCacheWrite1h
	// PromptAudio: the prompt may carry audio.
	PromptAudio
	// PromptImage: the prompt may carry images (or other visual media).
	PromptImage
	// AnyPrompt is every kind: the bound of a request nothing is known of.
	AnyPrompt = PromptCacheWrite | PromptCacheWrite1h | PromptAudio | PromptImage
)

// Bound is the price's bound for any request whose prompt is at most
// promptTokens (BoundFor with AnyPrompt).
func (p *Price) Bound(promptTokens int64) PriceBound { return p.BoundFor(promptTokens, AnyPrompt) }

// BoundFor is the price's bound for a request whose prompt is at most
// promptTokens and may be billed only the kinds k beside plain input and
// cache reads: with the long-context tier when the prompt may be above it.
func (p *Price) BoundFor(promptTokens int64, k PromptKinds) PriceBound {
	b := PriceBound{
		PromptMicro:     max(p.PromptMicro, p.CacheReadMicro),
		CompletionMicro: max(p.CompletionMicro, p.ReasoningMicro, p.AudioOutMicro, p.ImageOutMicro),
		RequestMicro:    p.RequestMicro,
	}
	for _, kp := range p.kindPrices() {
		if k&kp.kind != 0 {
			b.PromptMicro = max(b.PromptMicro, kp.micro)
		}
	}
	if p.Long != nil && p.LongAbove > 0 && promptTokens > p.LongAbove {
		b = b.Max(p.Long.BoundFor(0, k))
	}
	return b
}

// DearerKinds are the kinds of prompt token p prices above plain input (or
// its long-context tier above the tier's input): the only kinds a request's
// bound changes with.
func (p *Price) DearerKinds() PromptKinds {
	var k PromptKinds
	in := max(p.PromptMicro, p.CacheReadMicro)
	for _, kp := range p.kindPrices() {
		if kp.micro > in {
			k |= kp.kind
		}
	}
	if p.Long != nil && p.LongAbove > 0 {
		k |= p.Long.DearerKinds()
	}
	return k
}

// kindPrice is the price of one kind of prompt token dearer than input.
type kindPrice struct {
	kind  PromptKinds
	micro int64
}

// kindPrices pairs each prompt kind with p's price for it, the one table
// BoundFor and DearerKinds both read.
func (p *Price) kindPrices() [4]kindPrice {
	return [4]kindPrice{{PromptCacheWrite, p.CacheWriteMicro}, {PromptCacheWrite1h, p.CacheWrite1hMicro}, {PromptAudio, p.AudioInMicro}, {PromptImage, p.ImageInMicro}}
}

// Max is the dearer of two bounds, part by part.
func (b PriceBound) Max(c PriceBound) PriceBound {
	return PriceBound{max(b.PromptMicro, c.PromptMicro), max(b.CompletionMicro, c.CompletionMicro), max(b.RequestMicro, c.RequestMicro)}
}

// Charge is the most a request with these prompt and completion tokens may
// cost, rounded up; it saturates instead of overflowing.
func (b PriceBound) Charge(promptTokens, completionTokens int64) Credits {
	micro := AddChecked(AddChecked(MulChecked(promptTokens, b.PromptMicro), MulChecked(completionTokens, b.CompletionMicro)), b.RequestMicro)
	return ceilDiv(micro, MicroPerCredit)
}

// CompletionTokensFor is how many completion tokens the budget affords after
// the prompt and the request fee; never negative, exact for any int64 budget.
func (b PriceBound) CompletionTokensFor(budget Credits, promptTokens int64) int64 {
	if budget <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(budget), uint64(MicroPerCredit))
	spent := uint64(AddChecked(MulChecked(promptTokens, b.PromptMicro), b.RequestMicro))
	if hi == 0 && lo <= spent {
		return 0
	}
	var borrow uint64
	lo, borrow = bits.Sub64(lo, spent, 0)
	hi -= borrow
	if b.CompletionMicro <= 0 {
		return 1 << 40
	}
	if hi >= uint64(b.CompletionMicro) { // the quotient does not fit 64 bits
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(b.CompletionMicro))
	return int64(min(q, math.MaxInt64))
}

// AddSearches adds n web searches the gateway ran itself, at feeMicro each,
// to the bill's web search part, rounding the whole up once again.
func (b *Bill) AddSearches(n, feeMicro int64) {
	if n <= 0 || feeMicro <= 0 {
		return
	}
	b.micro[webSearchPart] = AddChecked(b.micro[webSearchPart], MulChecked(n, feeMicro))
	b.total()
}

// webSearchPart is the web search fee's index in Bill.micro.
const webSearchPart = 10
