package tokens

import (
	"encoding/binary"
	"math/bits"
)

// The bulk path of textTokens: 64 bytes of plain ASCII are classified at once,
// eight at a time in a machine word, into one bit mask per class (Latin
// letters, digits, spaces; the rest is punctuation), and the tokens of the
// runs in the masks are counted with additions and popcounts instead of a
// branch per character. The counts are tally.add's, exactly. On amd64 with
// AVX2 a few blocks are classified in one call, their escapes read there
// too (classifyBlocksAVX2, giving runsOf's masks).

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

// blockMasks are the class masks of a 64-byte block, a bit per byte: Latin
// letters, digits, spaces, backslashes, the bytes the bulk path stops at
// (hard: ≥ 0x80 or < 0x20), and of the bytes that decide an escape: 'u', and
// 'n', 't', 'r' (an escaped one is a space); these two may be left 0 in a
// block with no backslash. q has the quotes: the bulk path stops at one
// that no backslash escapes, the end of a string.
type blockMasks struct {
	lat, dig, spc, esc, hard, u, ntr, q uint64
}

// classifyWords fills k with the class masks of the 64 bytes at b, in
// portable Go, eight bytes at a time in a machine word (classifyBlocks uses
// it where there is neither AVX2 nor SSE2 assembly).
func classifyWords(b *[64]byte, k *blockMasks) {
	*k = blockMasks{}
	for w := 0; w < 8; w++ {
		x := binary.LittleEndian.Uint64(b[w*8:])
		a := x &^ highBits
		hard := x&highBits | ^(a+lowBits*0x60)&highBits         // ≥ 0x80, < 0x20
		y := a | lowBits*0x20                                   // lower case
		l := (y + lowBits*0x1F) & (lowBits*0xFA - y) & highBits // 'a'..'z'
		d := (a + lowBits*0x50) & (lowBits*0xB9 - a) & highBits // '0'..'9'
		keep := ^(x & highBits)                                 // byteMask reads 7 bits: a byte above 0x7F is none of these
		k.hard |= gather(hard) << (8 * w)
		k.lat |= gather(l&keep) << (8 * w)
		k.dig |= gather(d&keep) << (8 * w)
		k.spc |= gather(byteMask(a, ' ')&keep) << (8 * w)
		k.esc |= gather(byteMask(a, '\\')&keep) << (8 * w)
		k.u |= gather(byteMask(a, 'u')&keep) << (8 * w)
		k.ntr |= gather((byteMask(a, 'n')|byteMask(a, 't')|byteMask(a, 'r'))&keep) << (8 * w)
		k.q |= gather(byteMask(a, '"')&keep) << (8 * w)
	}
}

// ascii counts the plain ASCII at the start of b, up to the first \u escape
// of a character above 0x7F (or a broken one), control character, byte
// above 0x7F or quote no backslash escapes, and returns how many bytes it
// counted (0 when b starts with none).
func (t *tally) ascii(b []byte) int {
	if t.run != classNone && t.run != classLatin && t.run != classDigit && t.run != classSpace {
		// A run of other characters ends where the bulk path counts a
		// character: a plain one, or an escape other than \u whose code is
		// plain.
		if len(b) == 0 || b[0] < 0x20 || b[0] >= 0x80 || b[0] == '\\' && (len(b) < 2 || b[1] == 'u' || b[1] < 0x20 || b[1] >= 0x80) {
			return 0
		}
		t.flush()
	}
	if len(b) < 64 {
		buf := asciiPad
		copy(buf[:], b)
		return t.blocks(buf[:])
	}
	return t.blocks(b[:len(b)&^63])
}

// Bits at odd positions, for the escapes of a block.
const oddBits = 0xAAAAAAAAAAAAAAAA

// escaped has the bits of the bytes that the backslashes esc of a block
// escape: an odd run of backslashes escapes the byte after it, an even one
// does not (the borrow of a subtraction tells them apart, as in simdjson).
// No block begins inside an escape.
func escaped(esc uint64) uint64 { return ((esc<<1 | oddBits) - esc) ^ oddBits ^ esc }

// blockBatch is how many blocks classifyBlocks classifies at most in one go.
const blockBatch = 4

// blockRuns are the masks of a block as blocks reads them, its escapes
// read: lat, dig and spc as blockMasks' but for the escaped 'n', 't' and
// 'r', spaces; skip has the backslashes that escape (a gap in the masks,
// each), stop the bytes the bulk path stops at (hard ones, and quotes no
// backslash escapes: the string's end), escU the escaped 'u' (a \u escape:
// asciiEscapes reads it, or the bulk path stops at it). No block begins
// inside an escape.
type blockRuns struct {
	lat, dig, spc, skip, stop, escU uint64
}

// runsOf sets r to the runs of the block with masks k, and reports whether
// it ends a run of blocks that classifyBlocks classifies at once (it has a
// stop or an escaped 'u', which blocks reads one at a time).
func runsOf(k *blockMasks, r *blockRuns) bool {
	escd := escaped(k.esc)
	ntr := escd & k.ntr
	*r = blockRuns{lat: k.lat &^ ntr, dig: k.dig, spc: k.spc | ntr, skip: k.esc &^ escd, stop: k.hard | k.q&^escd, escU: escd & k.u}
	return r.stop|r.escU != 0
}

// blocks counts the 64-byte blocks of b (len(b) a multiple of 64) up to the
// first byte the bulk path stops at, and returns how many bytes it counted.
// The blocks are classified a few at a time (classifyBlocks). The run going
// on from block to block is kept in run and k (its class and length so far:
// plain ASCII classes only).
func (t *tally) blocks(b []byte) int {
	likely, run, k := t.likely, t.run, uint64(t.n) // run is none or a plain class
	escapes := t.escaped
	var cs [blockBatch]blockRuns
	i := 0
blocks:
	for i+64 <= len(b) {
		for j := range cs[:classifyBlocks(b[i:], &cs)] {
			c := &cs[j]
			m, valid := 64, ^uint64(0)
			if c.stop != 0 {
				m = bits.TrailingZeros64(c.stop)
				if m == 0 {
					break blocks
				}
				valid = lowMask(m)
			}
			lat, dig, spc, skip := c.lat&valid, c.dig&valid, c.spc&valid, c.skip&valid

			// An escape is one character: \n, \t and \r a space, \b and \f a
			// Latin letter, \" \\ \/ punctuation (unescape's reading), as
			// runsOf reads it, and a \u escape of an ASCII character that
			// character (asciiEscapes). Its backslash is a gap in the masks;
			// an escape cut by the block's end and any other \u stop the
			// block.
			w := m     // the block's characters, once the gaps inside runs are closed
			var nu int // \u escapes read (asciiEscapes)
			if cut := skip >> ((m - 1) & 63) & 1; cut|c.escU != 0 {
				m -= int(cut)
				if us := c.escU & lowMask(m); us != 0 && m > 0 {
					m, nu, lat, dig, spc, skip = asciiEscapes((*[64]byte)(b[i:]), us, m, lat, dig, spc, skip)
				}
				if m == 0 {
					break blocks
				}
				w = m - 4*nu
				valid = lowMask(w)
				lat, dig, spc, skip = lat&valid, dig&valid, spc&valid, skip&valid
			}
			// Each escape's backslash is a bit of skip; a \u escape is four bytes longer still.
			escapes += int64(bits.OnesCount64(skip)) + 4*int64(nu)

			// A gap between two characters of one class (or at the block's
			// start) is closed: the masks above it move down a bit. A gap
			// between classes is a run boundary already and stays.
			cross := skip & (1 | lat<<1&(lat>>1) | dig<<1&(dig>>1) | spc<<1&(spc>>1))
			for ; cross != 0; w-- { // from the highest, so the lower ones keep their place
				q := 63 - bits.LeadingZeros64(cross)
				low := uint64(1)<<q - 1
				lat, dig, spc, skip = lat&low|lat>>1&^low, dig&low|dig>>1&^low, spc&low|spc>>1&^low, skip&low|skip>>1&^low
				cross &^= 1 << q
			}
			punct := lowMask(w) &^ (lat | dig | spc | skip)

			// The run at bit 0 goes on from the last block when it is of the
			// same class (its count goes on from k); a run of another class
			// there starts afresh, as from k = 0.
			var kl, kd, ks uint64
			switch k12 := k % 12; run {
			case classLatin:
				kl = k12
			case classDigit:
				kd = k12
			case classSpace:
				ks = k12
			}
			likely += int64(bits.OnesCount64(punct))

			// Latin letters: a token at every fourth of a run (offsets4, written out).
			first := ((lat + 1) ^ lat) & lat // the run at bit 0, if any
			rest := lat &^ first
			starts := rest &^ (rest << 1)
			const p40, p41, p42, p43 = mod4, mod4 << 1, mod4 << 2, mod4 << 3
			h4 := first&firstMod4[kl] | (((rest+starts&p40)^rest)&p40|((rest+starts&p41)^rest)&p41|
				((rest+starts&p42)^rest)&p42|((rest+starts&p43)^rest)&p43)&rest
			likely += int64(bits.OnesCount64(h4))
			if spc&(spc<<1) != 0 || ks > 0 && spc&1 != 0 { // single spaces cost nothing
				// offsets4(spc, ks, 1), written out: the call cost a tenth of the count of code.
				first := ((spc + 1) ^ spc) & spc
				rest := spc &^ first
				starts := rest &^ (rest << 1)
				h := first&bits.RotateLeft64(firstMod4[ks], 1) | (((rest+starts&p40)^rest)&(mod4<<1)|((rest+starts&p41)^rest)&(mod4<<2)|
					((rest+starts&p42)^rest)&(mod4<<3)|((rest+starts&p43)^rest)&mod4)&rest
				likely += int64(bits.OnesCount64(h))
			}
			if dig != 0 { // prose has none in most blocks
				likely += offsets3(dig, kd)
			}

			// The run that reaches the block's end goes on into what follows; it
			// has no gap (the last character is none).
			isLat, isDig, isSpc := lat>>((w-1)&63)&1, dig>>((w-1)&63)&1, spc>>((w-1)&63)&1
			last := lat&-isLat | dig&-isDig | spc&-isSpc
			lastClass := charClass(isLat*uint64(classLatin) + isDig*uint64(classDigit) + isSpc*uint64(classSpace))
			n := uint64(bits.LeadingZeros64(^(last << ((64 - w) & 63))))
			if n == uint64(w) && lastClass == run {
				n += k
			}
			run, k = lastClass, n
			if m < 64 {
				i += m
				break blocks
			}
			i += 64
		}
	}
	if i > 0 {
		t.likely, t.run, t.n, t.escaped = likely, run, int64(k), escapes
	}
	return i
}

// asciiEscapes reads the \u escapes of the block blk counted to m (us has
// their 'u'; each follows a backslash that skip has) up to the first that
// does not stand for an ASCII character or does not end before m: that
// one's backslash is where the block stops (the m returned). Each escape
// before it is the one character it stands for, of its class, at its last
// byte: its 'u' and first three hex digits are taken out of the masks (n
// escapes, 4n bits), so that it follows its backslash, a gap as any other
// escape's.
func asciiEscapes(blk *[64]byte, us uint64, m int, lat, dig, spc, skip uint64) (int, int, uint64, uint64, uint64, uint64) {
	n := 0
	for ; us != 0; us &= us - 1 {
		p := bits.TrailingZeros64(us)
		if p+4 >= m {
			return p - 1, n, lat, dig, spc, skip
		}
		h0, h1, h2, h3 := hexDigit[blk[p+1]], hexDigit[blk[p+2]], hexDigit[blk[p+3]], hexDigit[blk[p+4]]
		if h0|h1|h2|h3 < 0 || h0|h1 != 0 || h2 >= 8 {
			return p - 1, n, lat, dig, spc, skip
		}
		q := p - 4*n // where the 'u' is in the masks, after the escapes before it
		lat, dig, spc = lat&^(0x1F<<q), dig&^(0x1F<<q), spc&^(0x1F<<q)
		switch asciiClass[h2<<4|h3] {
		case classLatin:
			lat |= 1 << (q + 4)
		case classDigit:
			dig |= 1 << (q + 4)
		case classSpace:
			spc |= 1 << (q + 4)
		}
		low := uint64(1)<<q - 1
		lat, dig, spc, skip = lat&low|lat>>4&^low, dig&low|dig>>4&^low, spc&low|spc>>4&^low, skip&low|skip>>4&^low
		n++
	}
	return m, n, lat, dig, spc, skip
}

// lowMask has the n lowest bits set (1 ≤ n ≤ 64).
func lowMask(n int) uint64 { return ^uint64(0) >> ((64 - n) & 63) }

// Bits at positions ≡ 0 (mod 3) and (mod 4).
const (
	mod3 = 0x9249249249249249
	mod4 = 0x1111111111111111
)

// firstMod3[k] and firstMod4[k] are the bits of a run at bit 0 that began k
// (mod 12) bits before the block at positions ≡ 0 (mod 3) and (mod 4) from
// its start.
var firstMod3, firstMod4 = func() (m3, m4 [12]uint64) {
	for k := range m3 {
		m3[k] = mod3 << ((3 - k%3) % 3)
		m4[k] = bits.RotateLeft64(mod4, -(k % 4))
	}
	return m3, m4
}()

// offsets3 counts the bits of m that lie a multiple of 3 bits after the start
// of their run of ones; the run at bit 0 began k0 bits before the block.
// Adding a run's start bit to m clears the run (the carry runs through it),
// so ((m+s)^m)&m is the runs that start at s; the runs starting at positions
// ≡ j (mod 3) keep their bits at positions ≡ j. The groups are disjoint, so
// one popcount counts them all.
func offsets3(m, k0 uint64) int64 {
	first := ((m + 1) ^ m) & m // the run at bit 0, if any
	hit := first & firstMod3[k0%12]
	m &^= first
	starts := m &^ (m << 1)
	const p0, p1, p2 = mod3, mod3 << 1 & (1<<64 - 1), mod3 << 2 & (1<<64 - 1)
	s0, s1, s2 := starts&p0, starts&p1, starts&p2
	hit |= (((m+s0)^m)&p0 | ((m+s1)^m)&p1 | ((m+s2)^m)&p2) & m
	return int64(bits.OnesCount64(hit))
}

// offsets4 counts the bits of m that lie r (mod 4) bits after the start of
// their run of ones, as offsets3. Positions ≡ j+r (mod 4) are those ≡ j
// rotated by r, 64 being a multiple of 4.
func offsets4(m, k0 uint64, r int) int64 {
	first := ((m + 1) ^ m) & m
	hit := first & bits.RotateLeft64(firstMod4[k0%12], r)
	m &^= first
	starts := m &^ (m << 1)
	const p0, p1, p2, p3 = mod4, mod4 << 1, mod4 << 2, mod4 << 3
	s0, s1, s2, s3 := starts&p0, starts&p1, starts&p2, starts&p3
	hit |= (((m+s0)^m)&bits.RotateLeft64(p0, r) | ((m+s1)^m)&bits.RotateLeft64(p1, r) |
		((m+s2)^m)&bits.RotateLeft64(p2, r) | ((m+s3)^m)&bits.RotateLeft64(p3, r)) & m
	return int64(bits.OnesCount64(hit))
}
