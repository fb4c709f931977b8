package cockroach

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/shlyuz/shlyuz"
)

// writeCounter counts the writes the store's connections make. pgx writes
// what it has queued when it must wait for the server's answer, so each
// write is a round trip the caller waits for.
// dials counts the connections opened.
type writeCounter struct{ n, dials atomic.Int64 }

type countedConn struct {
	net.Conn
	c *writeCounter
}

func (c countedConn) Write(p []byte) (int, error) {
	c.c.n.Add(1)
	return c.Conn.Write(p)
}

// openCounted opens a store on a fresh schema whose connections count their
// writes. A pool does not ping a connection it hands out, so every write
// counted is one the store asked for.
func openCounted(t *testing.T) (*Store, *writeCounter) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(freshSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	wc := &writeCounter{}
	var d net.Dialer
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		wc.dials.Add(1)
		return countedConn{Conn: c, c: wc}, nil
	}
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	cfg.MaxConns = 1 // one connection: its statement cache is warm after the first commit of a kind
	s, err := openConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, wc
}

// TestCommitRoundTrips counts the round trips a commit waits for, once the
// connection has prepared its statements: the journal's batches (charges and
// their generation records, top-ups, fenced replays) take one.
func TestCommitRoundTrips(t *testing.T) {
	s, wc := openCounted(t)
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	bal, err := s.ClaimBalance(ctx, "acct-1")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	charge := func(id, account string, epoch int64) shlyuz.LedgerEntry {
		return shlyuz.LedgerEntry{ID: id, AccountID: account, Kind: shlyuz.EntryCharge, BoughtDelta: -3, Epoch: epoch, CreatedAt: now}
	}
	gen := func(id, account string) shlyuz.Generation {
		return shlyuz.Generation{ID: id, AccountID: account, Model: "m/x", Status: shlyuz.GenerationCompleted, Credits: 3, CreatedAt: now}
	}
	tests := []struct {
		name  string
		batch func(i int) shlyuz.Batch
		want  int64
	}{
		{"a charge and its generation", func(i int) shlyuz.Batch {
			id := "gen-a" + string(rune('0'+i))
			return shlyuz.Batch{Entries: []shlyuz.LedgerEntry{charge("chg-"+id, "acct-1", bal.Epoch)},
				Generations: []shlyuz.Generation{gen(id, "acct-1")}}
		}, 1},
		{"two accounts' charges", func(i int) shlyuz.Batch {
			id := "gen-b" + string(rune('0'+i))
			return shlyuz.Batch{Entries: []shlyuz.LedgerEntry{charge("chg-"+id+"-1", "acct-1", bal.Epoch), charge("chg-"+id+"-2", "acct-2", 0)},
				Generations: []shlyuz.Generation{gen(id+"-1", "acct-1"), gen(id+"-2", "acct-2")}}
		}, 1},
		{"a hundred charges of two accounts (three statements)", func(i int) shlyuz.Batch {
			var b shlyuz.Batch
			for k := range 100 {
				id := fmt.Sprintf("gen-c%d-%03d", i, k)
				account := []string{"acct-1", "acct-2"}[k%2]
				b.Entries = append(b.Entries, charge("chg-"+id, account, 0))
				b.Generations = append(b.Generations, gen(id, account))
			}
			return b
		}, 1},
		{"a top-up", func(i int) shlyuz.Batch {
			return shlyuz.Batch{Entries: []shlyuz.LedgerEntry{{ID: "top-" + string(rune('0'+i)), AccountID: "acct-2",
				Kind: shlyuz.EntryTopUp, BoughtDelta: 100, CreatedAt: now}}}
		}, 1},
		{"a fenced charge", func(i int) shlyuz.Batch {
			return shlyuz.Batch{Entries: []shlyuz.LedgerEntry{charge("stale-"+string(rune('0'+i)), "acct-1", bal.Epoch-1)}}
		}, 1},
		{"a replayed charge", func(int) shlyuz.Batch {
			return shlyuz.Batch{Entries: []shlyuz.LedgerEntry{charge("chg-gen-a0", "acct-1", bal.Epoch)},
				Generations: []shlyuz.Generation{gen("gen-a0", "acct-1")}}
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Commit(ctx, tc.batch(0)); err != nil { // prepares the statements
				t.Fatal(err)
			}
			before := wc.n.Load()
			if _, err := s.Commit(ctx, tc.batch(1)); err != nil {
				t.Fatal(err)
			}
			if got := wc.n.Load() - before; got != tc.want {
				t.Errorf("round trips = %d; want %d", got, tc.want)
			}
		})
	}
}
