package actors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/internal/recordjson"
)

// AheadLog is a write-ahead file the journal appends what it queues to
// before the store has it (persistence/aheadlog): a settlement is durable
// once its record is appended, and the store's commit no longer waits on a
// reply. The journal calls it under its aheadMu only.
type AheadLog interface {
	// Append writes records, whole lines each with its newline, at once;
	// when it returns nil they survive a crash of the process.
	Append(recs []byte) error
	// Seal ends the open segment; the segments up to the mark hold every
	// record appended so far.
	Seal() (mark uint64)
	// Drop forgets the segments up to the mark: the store has their records.
	Drop(mark uint64) error
	// Replay calls fn with every record a predecessor left.
	Replay(fn func(rec []byte) error) error
	Close() error
}

// aheadRecord is one line of the log: an entry and/or a generation record
// (whose account and key encoding/json leaves out of Generation).
type aheadRecord struct {
	Entry      *shlyuz.LedgerEntry `json:"e,omitempty"`
	Generation *shlyuz.Generation  `json:"g,omitempty"`
	Account    string              `json:"ga,omitempty"`
	Key        string              `json:"gk,omitempty"`
}

// aheadBufs are the buffers records are encoded into.
var aheadBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeAhead writes the record as one line of JSON, as encoding/json
// writes an aheadRecord (recordjson, by hand: it runs for every settled
// call), into a pooled buffer (given back with aheadBufs.Put once appended).
func encodeAhead(e *shlyuz.LedgerEntry, g *shlyuz.Generation) (*bytes.Buffer, error) {
	buf := aheadBufs.Get().(*bytes.Buffer)
	buf.Reset()
	b := buf.AvailableBuffer()
	b = append(b, '{')
	if e != nil {
		b = append(b, `"e":`...)
		b = recordjson.AppendEntry(b, e)
	}
	if g != nil {
		if e != nil {
			b = append(b, ',')
		}
		b = append(b, `"g":`...)
		b = recordjson.AppendGeneration(b, g)
		if g.AccountID != "" {
			b = append(b, `,"ga":`...)
			b = plainjson.AppendString(b, g.AccountID)
		}
		if g.KeyID != "" {
			b = append(b, `,"gk":`...)
			b = plainjson.AppendString(b, g.KeyID)
		}
	}
	b = append(b, '}', '\n')
	buf.Write(b)
	return buf, nil
}

func decodeAhead(rec []byte) (aheadRecord, error) {
	var r aheadRecord
	if err := json.Unmarshal(rec, &r); err != nil {
		return r, err
	}
	if r.Generation != nil {
		r.Generation.AccountID, r.Generation.KeyID = r.Account, r.Key
	}
	return r, nil
}

// recoverChunk bounds the records committed in one transaction of Recover.
const recoverChunk = 1000

// Recover commits what a crashed predecessor's log holds (entries are
// idempotent by id: what its store had already is a duplicate), then keeps
// the log: from now on every queued entry and record is appended to it
// first, and a waiter is told Logged as soon as its record is. Call it once,
// before the first Add, after the process proved itself the store's only
// server (an entry of a claim a successor raised would be fenced).
func (j *Journal) Recover(ctx context.Context, l AheadLog) error {
	var b shlyuz.Batch
	commit := func() error {
		if len(b.Entries) == 0 && len(b.Generations) == 0 {
			return nil
		}
		res, err := j.store.Commit(ctx, b)
		if err != nil {
			return err
		}
		if len(res.Fenced) > 0 {
			j.log.Error("journal: logged entries refused because another activation owns their account", "ids", res.Fenced)
			j.fence.record(b.Entries, res.Fenced)
		}
		j.log.Info("journal: committed what the write-ahead log held", "entries", len(b.Entries), "generations", len(b.Generations), "applied", len(res.Applied))
		b = shlyuz.Batch{}
		return nil
	}
	err := l.Replay(func(rec []byte) error {
		r, err := decodeAhead(rec)
		if err != nil {
			return err
		}
		if r.Entry != nil {
			b.Entries = append(b.Entries, *r.Entry)
		}
		if r.Generation != nil {
			b.Generations = append(b.Generations, *r.Generation)
		}
		if len(b.Entries)+len(b.Generations) >= recoverChunk {
			return commit()
		}
		return nil
	})
	if err == nil {
		err = commit()
	}
	if err != nil {
		return fmt.Errorf("journal: recover the write-ahead log: %w", err)
	}
	if err := l.Drop(l.Seal()); err != nil {
		return fmt.Errorf("journal: recover the write-ahead log: %w", err)
	}
	j.aheadMu.Lock()
	defer j.aheadMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ahead != nil {
		return errors.New("journal: a write-ahead log is in use already")
	}
	j.ahead = l
	j.aheadOn.Store(true)
	return nil
}
