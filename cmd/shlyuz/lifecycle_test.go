package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// A key works after a restart, and its secret is nowhere in the database in clear.
func TestKeySurvivesRestartAndIsStoredHashed(t *testing.T) {
	db := filepath.Join(t.TempDir(), "restart.db")
	c := startChild(t, "sqlite://"+db)
	_, key := account(t, c.base, 1_000_000, map[string]any{"name": "durable", "limit": 500_000, "limit_reset": "month"})
	resp := postChat(t, c.base, key, chatBody("test/model", false, 0))
	var r chatReply
	_ = jsonDecode(resp.Body, &r)
	resp.Body.Close()
	if resp.StatusCode != 200 || r.Usage.Credits <= 0 {
		t.Fatalf("%d %+v", resp.StatusCode, r)
	}
	c.stop(t, syscall.SIGTERM)

	raw := readAll(t, db)
	if bytes.Contains(raw, []byte(key)) || bytes.Contains(raw, []byte(key[len("sk-shz-v1-"):])) {
		t.Fatal("the key's secret is stored in clear")
	}

	c = startChild(t, "sqlite://"+db)
	b := balance(t, c.base, key)
	if b.Data.TotalCredits != 1_000_000-r.Usage.Credits {
		t.Fatalf("after restart: %d, want %d", b.Data.TotalCredits, 1_000_000-r.Usage.Credits)
	}
	var k keyView
	if call(t, c.base, "GET", "/api/v1/key", key, nil, &k); k.Data.Usage != r.Usage.Credits {
		t.Fatalf("key usage after restart %d, want %d", k.Data.Usage, r.Usage.Credits)
	}
	resp = postChat(t, c.base, key, chatBody("test/model", false, 0))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("after restart: %d", resp.StatusCode)
	}
	c.stop(t, syscall.SIGTERM)
}

// readAll reads the database file and its WAL.
func readAll(t *testing.T, db string) []byte {
	var all []byte
	for _, f := range []string{db, db + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// SIGTERM under load: every request in flight finishes and every charge is committed.
func TestSIGTERMUnderLoadLosesNoCharge(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "term.db")
	c := startChild(t, db)
	const credits = 100_000_000
	_, key := account(t, c.base, credits, nil)
	const n = 40
	base := h.fake.InFlight()
	var wg sync.WaitGroup
	var reported, served atomic.Int64
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			stream := i%2 == 0
			resp := postChat(t, c.base, key, chatBody("faulty/fault-slow", stream, 0))
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("request %d: %d", i, resp.StatusCode)
				return
			}
			var cr int64
			if stream {
				ev := sseEvents(t, resp.Body)
				var last struct{ Usage struct{ Credits int64 } }
				if len(ev) < 2 || ev[len(ev)-1] != "[DONE]" || json.Unmarshal([]byte(ev[len(ev)-2]), &last) != nil {
					t.Errorf("request %d: stream ended badly %q", i, ev)
					return
				}
				cr = last.Usage.Credits
			} else {
				var r chatReply
				if err := jsonDecode(resp.Body, &r); err != nil {
					t.Error(err)
					return
				}
				cr = r.Usage.Credits
			}
			reported.Add(cr)
			served.Add(1)
		}(i)
	}
	waitFor(t, 30e9, "the requests to reach the upstream", func() bool { return h.fake.InFlight()-base >= n })
	c.stop(t, syscall.SIGTERM)
	wg.Wait()
	if served.Load() != n {
		t.Fatalf("%d of %d served", served.Load(), n)
	}
	c = startChild(t, db)
	if got := balance(t, c.base, key).Data.TotalCredits; credits-got != reported.Load() {
		t.Fatalf("debited %d, reported %d", credits-got, reported.Load())
	}
	assertReconciled(t, c.base)
	c.stop(t, syscall.SIGTERM)
}

func assertReconciled(t *testing.T, base string) {
	t.Helper()
	var rec struct {
		OK         bool     `json:"ok"`
		Mismatched []string `json:"mismatched_accounts"`
	}
	if st := call(t, base, "GET", "/api/admin/reconcile", adminToken, nil, &rec); st != 200 || !rec.OK {
		t.Fatalf("reconcile: %d %+v", st, rec)
	}
}
