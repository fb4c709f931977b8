package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// kill -9 of a single gateway under concurrent load: every reply a
// client received in full (a JSON body, or a stream up to [DONE]) has its
// charge in the ledger and its generation record, with the credits the reply
// said, after the gateway is killed and started again; the ledger and the
// balances agree. Durable settlement is the default: nothing is configured.
func TestKill9UnderLoadLosesNoAcknowledgedCharge(t *testing.T) {
	for _, tc := range []struct {
		name string
		db   func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "k9.db") }},
		{"postgres", clusterDB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := tc.db(t)
			c := startChild(t, db)
			const credits = 1_000_000_000
			_, key := account(t, c.base, credits, nil)
			acked := loadUntilKilled(t, c, key, 120)
			restarted := time.Now()
			c = startChild(t, db)
			if _, _, err := fullReply(http.DefaultClient, c.base, key, false); err != nil {
				t.Fatal(err)
			}
			t.Logf("served again %v after the restart began", time.Since(restarted).Round(time.Millisecond))
			checkAcknowledged(t, db, acked)
			assertReconciled(t, c.base)
			var sum int64
			for _, cr := range acked {
				sum += cr
			}
			if spent := credits - balance(t, c.base, key).Data.TotalCredits; spent < sum {
				t.Fatalf("debited %d, but the acknowledged replies said %d", spent, sum)
			}
			c.stop(t, syscall.SIGTERM)
			// The new node proved its predecessor gone (a file lock, an
			// advisory lock) instead of waiting out its lease.
			if !strings.Contains(c.log.String(), "its lease is removed") {
				t.Fatalf("the restarted node did not remove its dead predecessor's lease:\n%s", c.log.String())
			}
		})
	}
}

// loadUntilKilled sends chats (every other one streamed) from 8 clients,
// kills the gateway with SIGKILL once at least n replies came back in full,
// and returns the credits each full reply reported, by generation id.
func loadUntilKilled(t *testing.T, c *child, key string, n int) map[string]int64 {
	t.Helper()
	var (
		mu    sync.Mutex
		acked = map[string]int64{}
		count atomic.Int64
		wg    sync.WaitGroup
	)
	client := &http.Client{Timeout: 20 * time.Second}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id, cr, err := fullReply(client, c.base, key, (w+i)%2 == 0)
				if errors.Is(err, errGone) {
					return
				}
				if err != nil {
					continue // cut by the kill: not acknowledged
				}
				mu.Lock()
				acked[id] = cr
				mu.Unlock()
				count.Add(1)
			}
		}()
	}
	waitFor(t, 60*time.Second, "acknowledged replies", func() bool { return count.Load() >= int64(n) })
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	wg.Wait()
	t.Logf("%d replies acknowledged before the kill", len(acked))
	return acked
}

var errGone = errors.New("the gateway is gone")

// fullReply sends one chat and returns its generation id and credits when
// the reply arrived in full.
func fullReply(client *http.Client, base, key string, stream bool) (string, int64, error) {
	raw, _ := json.Marshal(chatBody("test/model", stream, 0))
	req, _ := http.NewRequest("POST", base+"/api/v1/chat/completions", strings.NewReader(string(raw)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if strings.Contains(err.Error(), "connection refused") {
			return "", 0, errGone
		}
		return "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return "", 0, errors.New(resp.Status)
	}
	if !stream {
		var r chatReply
		if err := jsonDecode(resp.Body, &r); err != nil {
			return "", 0, err
		}
		return r.ID, r.Usage.Credits, nil
	}
	ev := sseEvents(t0{}, resp.Body)
	var last struct {
		ID    string
		Usage struct{ Credits int64 }
	}
	if len(ev) < 2 || ev[len(ev)-1] != "[DONE]" || json.Unmarshal([]byte(ev[len(ev)-2]), &last) != nil || last.Usage.Credits == 0 {
		return "", 0, errors.New("the stream was cut")
	}
	return last.ID, last.Usage.Credits, nil
}

// checkAcknowledged opens the database beside the gateway and finds each
// acknowledged reply's charge and generation record, with its credits.
func checkAcknowledged(t *testing.T, db string, acked map[string]int64) {
	t.Helper()
	ctx := context.Background()
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	lost := 0
	for id, cr := range acked {
		e, err := store.Entry(ctx, "chg-"+id)
		g, gerr := store.Generation(ctx, id)
		switch {
		case err != nil || gerr != nil:
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged reply %s: entry %v, generation %v", id, err, gerr)
			}
		case -(e.PackageDelta+e.BoughtDelta) != shlyuz.Credits(cr) || g.Credits != shlyuz.Credits(cr):
			t.Errorf("reply %s said %d credits; the ledger has %d, the record %d", id, cr, -(e.PackageDelta + e.BoughtDelta), g.Credits)
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged charges lost", lost, len(acked))
	}
}

// t0 is a testing.TB for sseEvents off the test's goroutine: its Helper does nothing.
type t0 struct{ testing.TB }

func (t0) Helper() {}
