package actors

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	shlyuz "github.com/shlyuz/shlyuz"
)

// keyRef is what a key's hash leads to: the key and its account, which
// never change for a key, so every node may keep them.
type keyRef struct{ keyID, accountID string }

// keyIndex is this node's cache of key hashes (the store on a miss). Only
// the account's activation decides whether a key may be used (revoked,
// expired, its ceiling): the index only finds it.
type keyIndex struct {
	m sync.Map // hash → keyRef
	n atomic.Int64
}

// maxIndexedKeys bounds the index: past it, it starts again empty.
const maxIndexedKeys = 200_000

// keyRef finds the key of a hash and its account (401 for an unknown key).
func (g *Gateway) keyRef(hash string) (keyRef, *shlyuz.Error) {
	if v, ok := g.keyIdx.m.Load(hash); ok {
		return v.(keyRef), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	k, err := g.store.KeyByHash(ctx, hash)
	if errors.Is(err, shlyuz.ErrNoRows) {
		return keyRef{}, shlyuz.ErrInvalidKey()
	}
	if err != nil {
		return keyRef{}, shlyuz.ErrInternal(err)
	}
	ref := keyRef{keyID: k.ID, accountID: k.AccountID}
	if g.keyIdx.n.Add(1) > maxIndexedKeys {
		g.keyIdx.m.Clear()
		g.keyIdx.n.Store(1)
	}
	g.keyIdx.m.Store(hash, ref)
	return ref, nil
}
