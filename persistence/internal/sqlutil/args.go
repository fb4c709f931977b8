package sqlutil

import (
	"bytes"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/recordjson"
)

// Args appends the values of a commit's rows for a driver that takes them as
// []any. Putting a string or a large integer in an any allocates, and a
// commit of a few hundred charges would box thousands of values; but the
// rows of a batch mostly repeat their neighbour's account, key, model,
// upstream, kind, attempts and billing, so a value equal to the one in the
// same column of the previous row reuses that row's box. The zero Args is
// ready; one serves one commit at a time.
type Args struct {
	Values []any // the caller's to reuse for the values of its statements

	entry [EntryArity]box
	gen   [GenerationArity]box
	buf   []byte // scratch for the JSON columns
}

// box is a column's last value and its boxed form.
type box struct {
	s   string
	b   []byte // the JSON columns' last text, compared before it is made a string
	any any
	ok  bool
}

// str is s boxed, reusing the last box of its column when s is the same.
func (x *box) str(s string) any {
	if !x.ok || x.s != s {
		x.s, x.any, x.ok = s, s, true
	}
	return x.any
}

// text is the JSON text j as a boxed string, reusing the last box of its
// column when j is the same text.
func (x *box) text(j []byte) any {
	if !x.ok || !bytes.Equal(x.b, j) {
		x.b = append(x.b[:0], j...)
		x.any, x.ok = string(j), true
	}
	return x.any
}

// Entry appends the values of EntryColumns for e (EntryArity of them).
func (a *Args) Entry(dst []any, e *shlyuz.LedgerEntry) []any {
	c := &a.entry
	return append(dst, e.ID, c[1].str(e.AccountID), c[2].str(e.KeyID), c[3].str(string(e.Kind)), e.PackageDelta, e.BoughtDelta,
		Micros(e.PackageExpiresAt), e.Epoch, Micros(e.CreatedAt))
}

// Generation appends the values of GenerationColumns for g (GenerationArity of them).
func (a *Args) Generation(dst []any, g *shlyuz.Generation) []any {
	c := &a.gen
	a.buf = recordjson.AppendAttempts(a.buf[:0], g.Attempts)
	attempts := c[5].text(a.buf)
	a.buf = appendBilling(a.buf[:0], g)
	billing := c[15].text(a.buf)
	return append(dst, g.ID, c[1].str(g.AccountID), c[2].str(g.KeyID), c[3].str(g.Model), c[4].str(g.Upstream), attempts, g.Streamed,
		g.PromptTokens, g.CompletionTokens, g.Credits, g.LatencyMS, c[11].str(g.Status), c[12].str(g.FinishReason), Micros(g.CreatedAt), g.Estimated,
		billing, c[16].str(g.User))
}
