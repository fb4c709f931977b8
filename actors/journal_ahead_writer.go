package actors

import (
	"errors"
	"sync"

	shlyuz "github.com/shlyuz/shlyuz"
)

// aheadStage holds the records waiting for the write-ahead log's next write:
// the log is written by one writer at a time (a settlement that finds none
// writes its own line; what is staged while a write runs goes out together
// in the next write(2), by a goroutine of its own). j.mu guards it.
type aheadStage struct {
	buf        []byte      // the staged records, whole lines
	items      []aheadItem // what each record carries, in order
	writing    bool        // a writer is draining the stage
	staged     uint64      // records ever staged
	moved      uint64      // records ever taken from the stage into the next commit
	spare      []byte      // the last write's buffer, for the next one
	spareItems []aheadItem // the last write's items, cleared, for the next one
	settled    *sync.Cond  // on j.mu: broadcast when moved grows or writing ends
}

// aheadItem is a staged record's entry, generation record and waiter.
type aheadItem struct {
	entry  *shlyuz.LedgerEntry
	gen    *shlyuz.Generation
	done   func(Outcome)
	waited bool
}

var errAheadClosed = errors.New("journal: the write-ahead log is closed")

// stageAhead stages the record for the write-ahead log and makes sure a
// writer will write it: the caller itself when nobody writes (one write,
// as an unstaged append would: a write(2) to the page cache costs a few
// microseconds here, less than waking another goroutine), else the running
// writer, which takes it in its next write. It reports false when the
// journal has no log any more (the entry then goes to the store's commit).
func (j *Journal) stageAhead(rec []byte, it aheadItem) bool {
	j.mu.Lock()
	if !j.aheadOn.Load() {
		j.mu.Unlock()
		return false
	}
	st := &j.stage
	st.buf = append(st.buf, rec...)
	st.items = append(st.items, it)
	st.staged++
	if it.gen != nil {
		j.gens[it.gen.ID] = it.gen // readable by id from now on
	}
	if st.writing {
		j.mu.Unlock()
		return true
	}
	st.writing = true
	j.mu.Unlock()
	j.drainAhead(true)
	return true
}

// drainAhead writes what is staged, in one append, until nothing is: the
// records then join the next commit, and their waiters hear Logged, with
// aheadMu still held, so the commit that takes them (flush swaps pending
// under aheadMu) tells a Duplicate or Fenced only after Logged. When an
// append fails they join it unlogged, and a waited one starts it. A caller
// that drains inline (an account's actor) writes once: what was staged
// meanwhile is left to a goroutine of its own.
func (j *Journal) drainAhead(inline bool) {
	var items []aheadItem
	for round := 0; ; round++ {
		j.mu.Lock()
		st := &j.stage
		if items != nil { // the drained slice, for the records after the next
			clear(items)
			st.spareItems, items = items[:0], nil
		}
		if len(st.items) == 0 {
			st.writing = false
			st.settled.Broadcast()
			j.mu.Unlock()
			return
		}
		if inline && round > 0 {
			j.mu.Unlock()
			go j.drainAhead(false) // writing stays true: the goroutine is the writer now
			return
		}
		buf := st.buf
		items, st.items, st.spareItems = st.items, st.spareItems, nil
		st.buf, st.spare = st.spare[:0], nil
		j.mu.Unlock()

		logged := j.appendAhead(buf)
		if j.metrics.LogWrite != nil {
			j.metrics.LogWrite(len(items))
		}
		kick := false
		j.mu.Lock() // aheadMu is held: a flush seals after these are pending
		for _, it := range items {
			j.pendLocked(it.entry, it.gen, it.done, logged)
			kick = kick || (!logged && it.waited)
		}
		st.moved += uint64(len(items))
		st.spare = buf[:0]
		st.settled.Broadcast()
		j.mu.Unlock()
		for _, it := range items { // before aheadMu: no commit takes them before they are told
			if logged && it.done != nil {
				it.done(Logged)
			}
		}
		j.aheadMu.Unlock()
		if kick {
			j.kickRun()
		}
	}
}

// appendAhead writes the records to the log and returns with aheadMu held
// (drainAhead lets go of it once they are pending). A failure is logged
// once, until an append succeeds again.
func (j *Journal) appendAhead(buf []byte) bool {
	j.aheadMu.Lock()
	err := errAheadClosed
	if j.ahead != nil {
		err = j.ahead.Append(buf)
	}
	if err != nil {
		if !j.aheadErr {
			j.log.Error("journal: the write-ahead log refused records; replies wait for the store's commit", "err", err)
		}
		j.aheadErr = true
		return false
	}
	j.aheadErr = false
	return true
}

// awaitStaged returns once every record staged before the call is pending
// (appended, or refused by the log).
func (j *Journal) awaitStaged() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for target := j.stage.staged; j.stage.moved < target; {
		j.stage.settled.Wait()
	}
}

// awaitWriter returns once no writer drains the stage.
func (j *Journal) awaitWriter() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.stage.writing {
		j.stage.settled.Wait()
	}
}
