package tokens

import (
	"hash/maphash"
	"sync"
)

// countCache remembers the counts of the last long texts (countText),
// direct-mapped by their hash (a 64-bit hash seeded per process: a client
// cannot make two texts collide).
var countCache = counts{seed: maphash.MakeSeed()}

type counts struct {
	seed   maphash.Seed
	shards [64]struct {
		sync.Mutex
		entries [64]counted
	}
}

// counted is countText's count of a text of n bytes whose hash is hash.
type counted struct {
	hash                   uint64
	n                      int
	reserve, likely, saved int64
}

func (c *counts) slot(h uint64) (*sync.Mutex, *counted) {
	shard := &c.shards[h%uint64(len(c.shards))]
	return &shard.Mutex, &shard.entries[(h/uint64(len(c.shards)))%uint64(len(shard.entries))]
}

// get is the count remembered of the text of n bytes with the hash h.
func (c *counts) get(h uint64, n int) (counted, bool) {
	mu, slot := c.slot(h)
	mu.Lock()
	e := *slot
	mu.Unlock()
	return e, e.hash == h && e.n == n
}

// put remembers the count e of the text whose hash is h.
func (c *counts) put(h uint64, e counted) {
	e.hash = h
	mu, slot := c.slot(h)
	mu.Lock()
	*slot = e
	mu.Unlock()
}
