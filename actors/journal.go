package actors

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Journal group-commits ledger entries and generation records to the store.
// A commit is started on demand, by a waiter (a reply that may not finish
// before its charge is durable): it carries everything queued at the moment it
// begins, and what arrives while it runs goes in the next one, so under load
// one commit serves many requests. Entries nobody waits for start no commit of
// their own: they ride along with the next waiter's commit, or the interval's
// tick commits them. Entries are idempotent by id, so a batch whose commit
// failed is simply tried again.
type Journal struct {
	store    shlyuz.Store
	interval time.Duration
	log      *slog.Logger
	metrics  JournalMetrics

	mu      sync.Mutex
	pending shlyuz.Batch
	gens    map[string]*shlyuz.Generation // not yet committed, readable by id
	stop    chan struct{}
	stopped chan struct{}
	flushMu sync.Mutex // one commit at a time

	// Who waits for which entry, and what the store refused.
	notices []notice
	fence   fenceBook
	kick    chan struct{} // a waiter is queued: commit now, not at the tick
	shared  bool          // the last commit run started carried several waiters (run's own)
	// acks gathers the acknowledgements a commit gives to other nodes'
	// settlements; flushed once the commit's waiters were all told.
	acks ackOutbox

	// The write-ahead log (Recover), nil without one. With it a
	// queued entry is durable once appended: its waiter is told Logged then,
	// and the store's commits run at the tick, nobody waiting. Records are
	// staged and written together (journal_ahead_writer.go); ahead, aheadErr
	// and the log's segments are aheadMu's, taken before mu.
	aheadMu  sync.Mutex
	ahead    AheadLog
	aheadOn  atomic.Bool // ahead is set
	aheadErr bool        // an append failed: logged once, until one succeeds again
	stage    aheadStage  // mu's
}

// linger is how long a waiter's commit waits for others when the last
// commit carried several waiters: under concurrency, requests settle a few
// hundred microseconds apart, and one commit for a few dozen of them costs
// less than a commit each. A lone waiter (concurrency 1) never lingers.
var linger = time.Millisecond

// JournalMetrics receives the journal's measurements; nil fields are skipped.
type JournalMetrics struct {
	BatchSize func(n int)
	LogWrite  func(records int) // records per write-ahead log write
	Lag       func(d time.Duration)
	Failed    func()
}

// NewJournal starts a journal that commits every interval (≤ 50 ms is the default).
func NewJournal(store shlyuz.Store, interval time.Duration, log *slog.Logger, m JournalMetrics) *Journal {
	if interval <= 0 {
		interval = 50 * time.Millisecond
	}
	j := &Journal{store: store, interval: interval, log: log, metrics: m,
		gens: make(map[string]*shlyuz.Generation),
		stop: make(chan struct{}), stopped: make(chan struct{}), kick: make(chan struct{}, 1)}
	j.stage.settled = sync.NewCond(&j.mu)
	go j.run()
	return j
}

// Add queues an entry and/or a generation record for the next commit.
func (j *Journal) Add(e *shlyuz.LedgerEntry, g *shlyuz.Generation) {
	j.AddNotify(e, g, false, nil)
}

// AddNotify is Add, and calls done once the commit that carries them is
// durable, with what became of the entry. A waited entry (someone's reply
// waits for done) starts a commit at once unless one is already due; an
// entry nobody waits for waits for the next commit, whoever starts it.
// With a write-ahead log, done is called with Logged once the record is
// appended, and later again only if the store then found the entry a
// Duplicate or Fenced; no commit is started. done must not wait for the
// journal (Flush, Close): Logged is told with the log's lock held.
func (j *Journal) AddNotify(e *shlyuz.LedgerEntry, g *shlyuz.Generation, waited bool, done func(Outcome)) {
	if !j.queue(e, g, done, waited) && waited {
		j.kickRun()
	}
}

// AddCommit is AddNotify for a waited entry whose caller knows no other
// settlement is on its way (no other call in flight): the commit (or the
// write-ahead log's append) runs at once in the caller's goroutine, without
// waking another goroutine first (a commit that is running already takes the
// entry in the next, started by the journal's goroutine). Under concurrency
// callers use AddNotify: the journal's goroutine lingers for the others
// (run), and the log's writer appends together what was staged meanwhile.
func (j *Journal) AddCommit(e *shlyuz.LedgerEntry, g *shlyuz.Generation, done func(Outcome)) {
	if j.queue(e, g, done, true) {
		return // the write-ahead log has it, or will: the tick commits it
	}
	if !j.flushMu.TryLock() {
		j.kickRun()
		return
	}
	err := j.flush(context.Background())
	j.flushMu.Unlock()
	if err != nil { // queued again: the tick or the next waiter's commit retries it
		j.log.Error("journal commit failed; will retry", "err", err)
	}
}

// queue adds the entry, the record and whoever waits for them to the next
// commit, and reports whether they went to the write-ahead log instead
// (staged: done hears Logged once they are appended, or, if the append
// fails, they join the next commit, and a waited one starts it); the
// caller appends them itself when no other append is running.
func (j *Journal) queue(e *shlyuz.LedgerEntry, g *shlyuz.Generation, done func(Outcome), waited bool) (staged bool) {
	if rec := j.encode(e, g); rec != nil {
		staged = j.stageAhead(rec.Bytes(), aheadItem{entry: e, gen: g, done: done, waited: waited})
		aheadBufs.Put(rec)
		if staged {
			return true
		}
	}
	j.mu.Lock()
	j.pendLocked(e, g, done, false)
	if g != nil {
		j.gens[g.ID] = g
	}
	j.mu.Unlock()
	return false
}

// pendLocked adds the entry, the record and their waiter (told Logged
// already when logged) to the next commit, with j.mu held. The caller makes
// the record readable by id (Pending): queue, or stageAhead when staged.
func (j *Journal) pendLocked(e *shlyuz.LedgerEntry, g *shlyuz.Generation, done func(Outcome), logged bool) {
	if done != nil {
		n := notice{done: done, logged: logged}
		if e != nil {
			n.entryID = e.ID
		}
		j.notices = append(j.notices, n)
	}
	if e != nil {
		j.pending.Entries = append(j.pending.Entries, *e)
	}
	if g != nil {
		j.pending.Generations = append(j.pending.Generations, *g)
	}
}

// encode is the record for the write-ahead log, nil without one (or when it
// cannot be encoded: the entry then waits for the store's commit).
func (j *Journal) encode(e *shlyuz.LedgerEntry, g *shlyuz.Generation) *bytes.Buffer {
	if !j.aheadOn.Load() || (e == nil && g == nil) {
		return nil
	}
	rec, err := encodeAhead(e, g)
	if err != nil {
		j.log.Error("journal: cannot encode for the write-ahead log", "err", err)
		return nil
	}
	return rec
}

// kickRun asks the journal's goroutine for a commit: group commit on demand,
// what arrives during a commit goes in the next.
func (j *Journal) kickRun() {
	select {
	case j.kick <- struct{}{}:
	default:
	}
}

// Pending returns a generation that is not committed yet.
func (j *Journal) Pending(id string) (shlyuz.Generation, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	g, ok := j.gens[id]
	if !ok {
		return shlyuz.Generation{}, false
	}
	return *g, true
}

func (j *Journal) run() {
	defer close(j.stopped)
	t := time.NewTicker(j.interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-j.kick:
			if j.shared {
				time.Sleep(linger) // a bounded wait for the others, who are on their way
			}
		case <-j.stop:
			return
		}
		j.mu.Lock()
		j.shared = len(j.notices) > 1
		j.mu.Unlock()
		j.flushMu.Lock()
		err := j.flush(context.Background())
		j.flushMu.Unlock()
		if err != nil {
			j.log.Error("journal commit failed; will retry", "err", err)
		}
	}
}

// Flush commits everything queued so far and returns when it is durable.
func (j *Journal) Flush(ctx context.Context) error {
	j.awaitStaged()
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	return j.flush(ctx)
}

// flush is Flush with flushMu held.
func (j *Journal) flush(ctx context.Context) error {
	// aheadMu: no append is between its write and pending, so every record
	// in the segments up to the mark is in this batch.
	j.aheadMu.Lock()
	j.mu.Lock()
	batch, notices := j.pending, j.notices
	j.pending, j.notices = shlyuz.Batch{}, nil
	j.mu.Unlock()
	var mark uint64
	if j.ahead != nil { // after mu: Seal opens the next segment, and settlements stage records meanwhile
		mark = j.ahead.Seal()
	}
	j.aheadMu.Unlock()
	if len(batch.Entries) == 0 && len(batch.Generations) == 0 {
		notifyAll(notices)
		j.acks.flush()
		return nil
	}
	res, err := j.store.Commit(ctx, batch)
	if err != nil {
		if j.metrics.Failed != nil {
			j.metrics.Failed()
		}
		j.mu.Lock() // put the batch back in front of what came since
		j.pending.Entries = append(batch.Entries, j.pending.Entries...)
		j.pending.Generations = append(batch.Generations, j.pending.Generations...)
		j.notices = append(notices, j.notices...)
		j.mu.Unlock()
		return err
	}
	if len(res.Fenced) > 0 {
		j.log.Error("journal: entries refused because another activation owns their account", "ids", res.Fenced)
		j.fence.record(batch.Entries, res.Fenced)
	}
	notifyResult(notices, res)
	j.acks.flush()
	j.mu.Lock()
	for i := range batch.Generations {
		delete(j.gens, batch.Generations[i].ID)
	}
	j.mu.Unlock()
	j.aheadMu.Lock()
	if j.ahead != nil {
		if err := j.ahead.Drop(mark); err != nil { // replayed again after a crash: duplicates, harmless
			j.log.Error("journal: cannot remove committed write-ahead segments", "err", err)
		}
	}
	j.aheadMu.Unlock()
	if j.metrics.BatchSize != nil {
		j.metrics.BatchSize(len(batch.Entries) + len(batch.Generations))
	}
	if j.metrics.Lag != nil && len(batch.Generations) > 0 {
		j.metrics.Lag(time.Since(batch.Generations[0].CreatedAt))
	}
	return nil
}

// Close stops the timer and commits what is left, retrying until ctx ends,
// then closes the write-ahead log.
func (j *Journal) Close(ctx context.Context) error {
	close(j.stop)
	<-j.stopped
	for {
		err := j.Flush(ctx)
		if err == nil {
			return j.closeAhead()
		}
		if ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// closeAhead closes the write-ahead log (what it held is committed). The
// log takes no more records first: the writer appends what is staged and
// stops, even while settlements keep arriving (they go to the store's
// commit), and no record staged before is refused by a closed log.
func (j *Journal) closeAhead() error {
	j.mu.Lock()
	j.aheadOn.Store(false)
	j.mu.Unlock()
	j.awaitWriter()
	j.aheadMu.Lock()
	defer j.aheadMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ahead == nil {
		return nil
	}
	err := j.ahead.Close()
	j.ahead = nil
	return err
}
