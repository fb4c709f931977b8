package shlyuz

import (
	"encoding/binary"
	"math/bits"
)

// The bulk path of textTokens: 64 bytes of plain ASCII are classified at once,
// eight at a time in a machine word, into one bit mask per class (Latin
// letters, digits, spaces; the rest is punctuation), and the tokens of the
// runs in the masks are counted with additions and popcounts instead of a
// branch per character. The counts are tally.add's, exactly.

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
	gatherHi = 0x0102040810204080 // moves the high bit of each byte to the top byte
)

// asciiPad fills a short tail to 64 bytes with a byte the bulk path stops at.
var asciiPad = func() (pad [64]byte) {
	for i := range pad {
		pad[i] = 0x80
	}
	return pad
}()

// byteMask has the high bit set in each byte of x (7-bit bytes) equal to c.
func byteMask(x uint64, c byte) uint64 {
	return ^((x ^ lowBits*uint64(c)) + lowBits*0x7F) & highBits
}

// gather packs the high bits of x's eight bytes into the low eight bits.
func gather(x uint64) uint64 { return ((x >> 7) * gatherHi) >> 56 }

// classifyWords is classifyBlock in portable Go, eight bytes at a time in a
// machine word; it stops at the first word with a byte it stops at.
func classifyWords(b *[64]byte) (lat, dig, spc, esc uint64, m int) {
	m = 64
	for w := 0; w < 8; w++ {
		x := binary.LittleEndian.Uint64(b[w*8:])
		a := x &^ highBits
		hard := x&highBits | ^(a+lowBits*0x60)&highBits         // ≥ 0x80, < 0x20
		y := a | lowBits*0x20                                   // lower case
		l := (y + lowBits*0x1F) & (lowBits*0xFA - y) & highBits // 'a'..'z'
		d := (a + lowBits*0x50) & (lowBits*0xB9 - a) & highBits // '0'..'9'
		s := byteMask(a, ' ')
		e := byteMask(a, '\\')
		if hard != 0 {
			keep := uint64(1)<<(bits.TrailingZeros64(hard)&^7) - 1
			l, d, s, e = l&keep, d&keep, s&keep, e&keep
			m = w*8 + bits.TrailingZeros64(hard)/8
		}
		lat |= gather(l) << (8 * w)
		dig |= gather(d) << (8 * w)
		spc |= gather(s) << (8 * w)
		esc |= gather(e) << (8 * w)
		if hard != 0 {
			break
		}
	}
	return lat, dig, spc, esc, m
}

// ascii counts the plain ASCII at the start of b, up to the first backslash,
// control character or byte above 0x7F and at most 64 bytes, and returns how
// many bytes it counted (0 when b starts with none).
func (t *tally) ascii(b []byte) int {
	if len(b) < 64 {
		buf := asciiPad
		copy(buf[:], b)
		return t.ascii64(&buf)
	}
	return t.ascii64((*[64]byte)(b[:64]))
}

func (t *tally) ascii64(b *[64]byte) int {
	lat, dig, spc, esc, m := classifyBlock(b)

	// An escape is one character: \n, \t and \r a space, \b and \f a Latin
	// letter, \" \\ \/ punctuation (unescape's reading). Its backslash is
	// dropped from the masks; \u and an escape cut by the block's end stop it.
	var skip uint64
	for e := esc; e != 0; {
		q := bits.TrailingZeros64(e)
		if q+1 >= m || b[q+1] == 'u' {
			m = q
			break
		}
		next := uint64(1) << (q + 1)
		if c := b[q+1]; c == 'n' || c == 't' || c == 'r' {
			lat &^= next
			spc |= next
		}
		skip |= 1 << q
		e &^= 1<<q | next // the second byte of \\ is no escape
	}
	if m == 0 {
		return 0
	}
	valid := ^uint64(0)
	if m < 64 {
		valid = 1<<m - 1
	}
	lat, dig, spc = lat&valid, dig&valid, spc&valid
	chars := m
	for sk := skip & valid; sk != 0; chars-- { // from the highest, so the lower ones keep their place
		q := 63 - bits.LeadingZeros64(sk)
		low := uint64(1)<<q - 1
		lat, dig, spc = lat&low|lat>>1&^low, dig&low|dig>>1&^low, spc&low|spc>>1&^low
		sk &^= 1 << q
	}
	if chars < 64 {
		valid = 1<<chars - 1
	}
	punct := valid &^ (lat | dig | spc)

	c0 := classNone
	switch {
	case lat&1 != 0:
		c0 = classLatin
	case dig&1 != 0:
		c0 = classDigit
	case spc&1 != 0:
		c0 = classSpace
	}
	if c0 != t.run {
		t.flush()
		t.run = c0
	}
	k0 := t.n
	kl, kd, ks := carry(c0, classLatin, k0), carry(c0, classDigit, k0), carry(c0, classSpace, k0)
	p := int64(bits.OnesCount64(punct))
	var sp int64
	if spc&(spc<<1) != 0 || ks > 0 && spc&1 != 0 { // single spaces cost nothing
		sp = offsets4(spc, ks, 1)
	}
	t.reserve += offsets3(lat, kl) + sp + p
	t.likely += offsets4(lat, kl, 0) + sp + p
	if dig != 0 { // prose has none in most blocks
		t.reserve += int64(bits.OnesCount64(dig))
		t.likely += offsets3(dig, kd)
	}

	// The run that reaches the block's end goes on into what follows.
	last, lastClass := punct, classNone
	switch top := uint64(1) << (chars - 1); {
	case lat&top != 0:
		last, lastClass = lat, classLatin
	case dig&top != 0:
		last, lastClass = dig, classDigit
	case spc&top != 0:
		last, lastClass = spc, classSpace
	}
	n := int64(bits.LeadingZeros64(^(last << (64 - chars))))
	if n == int64(chars) && lastClass == c0 {
		n += k0
	}
	t.run, t.n, t.bytes = lastClass, n, n
	return m
}

// carry is the length the run of class c had before the block when the
// block starts with c, else 0.
func carry(first, c charClass, k0 int64) int64 {
	if first == c {
		return k0
	}
	return 0
}

// Bits at positions ≡ 0 (mod 3) and (mod 4).
const (
	mod3 = 0x9249249249249249
	mod4 = 0x1111111111111111
)

// offsets3 counts the bits of m that lie a multiple of 3 bits after the start
// of their run of ones; the run at bit 0, when k0 > 0, began k0 bits before
// the block. Adding a run's start bit to m clears the run (the carry runs
// through it), so ((m+s)^m)&m is the runs that start at s; the runs starting
// at positions ≡ j (mod 3) keep their bits at positions ≡ j. The groups are
// disjoint, so one popcount counts them all.
func offsets3(m uint64, k0 int64) int64 {
	var hit uint64
	if k0 > 0 && m&1 != 0 {
		first := ((m + 1) ^ m) & m
		hit = first & (mod3 << ((3 - k0%3) % 3))
		m &^= first
	}
	starts := m &^ (m << 1)
	const p0, p1, p2 = mod3, mod3 << 1 & (1<<64 - 1), mod3 << 2 & (1<<64 - 1)
	s0, s1, s2 := starts&p0, starts&p1, starts&p2
	hit |= (((m+s0)^m)&p0 | ((m+s1)^m)&p1 | ((m+s2)^m)&p2) & m
	return int64(bits.OnesCount64(hit))
}

// offsets4 counts the bits of m that lie r (mod 4) bits after the start of
// their run of ones, as offsets3. Positions ≡ j+r (mod 4) are those ≡ j
// rotated by r, 64 being a multiple of 4.
func offsets4(m uint64, k0 int64, r int) int64 {
	var hit uint64
	if k0 > 0 && m&1 != 0 {
		first := ((m + 1) ^ m) & m
		hit = first & bits.RotateLeft64(mod4, (r+4-int(k0%4))%4)
		m &^= first
	}
	starts := m &^ (m << 1)
	const p0, p1, p2, p3 = mod4, mod4 << 1, mod4 << 2, mod4 << 3
	s0, s1, s2, s3 := starts&p0, starts&p1, starts&p2, starts&p3
	hit |= (((m+s0)^m)&bits.RotateLeft64(p0, r) | ((m+s1)^m)&bits.RotateLeft64(p1, r) |
		((m+s2)^m)&bits.RotateLeft64(p2, r) | ((m+s3)^m)&bits.RotateLeft64(p3, r)) & m
	return int64(bits.OnesCount64(hit))
}
