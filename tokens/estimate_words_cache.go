package tokens

import (
	"hash/maphash"
	"sync"
)

// textSavings is wordSavings of a text long enough to be worth it: a text
// shorter than wordsMin keeps its token a byte (a few hundred tokens held
// at most), and a longer one is looked up by a seeded hash of its bytes
// first (an agent sends its tools, instructions and history again with
// every call: finding the words costs about 10 ns a byte, hashing them a
// tenth of a nanosecond).
func textSavings(body []byte) int64 {
	if len(body) < wordsMin {
		return 0
	}
	h := maphash.Bytes(savingsCache.seed, body)
	shard := &savingsCache.shards[h%uint64(len(savingsCache.shards))]
	slot := &shard.entries[(h/uint64(len(savingsCache.shards)))%uint64(len(shard.entries))]
	shard.Lock()
	e := *slot
	shard.Unlock()
	if e.hash == h && e.n == len(body) {
		return e.saved
	}
	saved := wordSavings(body)
	shard.Lock()
	*slot = savedText{hash: h, n: len(body), saved: saved}
	shard.Unlock()
	return saved
}

// wordsMin is the bytes of a text below which no words are looked for.
const wordsMin = 256

// savingsCache remembers the savings of the last long texts, direct-mapped
// by their hash (a 64-bit hash seeded per process: a client cannot make
// two texts collide).
var savingsCache = struct {
	seed   maphash.Seed
	shards [64]struct {
		sync.Mutex
		entries [64]savedText
	}
}{seed: maphash.MakeSeed()}

type savedText struct {
	hash  uint64
	n     int
	saved int64
}
