package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shlyuz/shlyuz/persistence/sqlite"
)

// runServe runs `shlyuz serve args` in a child process to its end and
// returns its exit status and its output.
func runServe(t *testing.T, args string, env ...string) (int, string) {
	t.Helper()
	return runShlyuz(t, "serve "+args, env...)
}

// A second gateway on a single-node database refuses to start with one line
// instead of serving while the first one's charges are refused; once the
// first has stopped (its lease row is gone), a new one starts at once.
func TestSecondGatewayOnOneDatabaseRefusesToStart(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "one.db")
	first := startChild(t, db)
	_, key := account(t, first.base, 1_000_000, nil)
	code, out := runServe(t, "--listen 127.0.0.1:0 --db "+db+" --config "+h.config)
	if code != 1 || !strings.Contains(out, "shlyuz: cluster.mode") || !strings.Contains(out, "another gateway is serving this database") {
		t.Fatalf("second gateway: exit %d\n%s", code, out)
	}
	resp := postChat(t, first.base, key, chatBody("test/model", false, 0))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the first gateway after the second's attempt: %d", resp.StatusCode)
	}
	first.stop(t, syscall.SIGTERM)
	second := startChild(t, db)
	assertReconciled(t, second.base)
	second.stop(t, syscall.SIGTERM)
}

// sql mode needs a shared PostgreSQL/CockroachDB; a bad cluster setting is one line.
func TestClusterSettingsAreChecked(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "cfg.db")
	for _, tc := range []struct{ env, says string }{
		{"SHLYUZ_CLUSTER_MODE=sql", "needs a shared postgres://"},
		{"SHLYUZ_CLUSTER_MODE=gossip", `"gossip" is not single or sql`},
		{"SHLYUZ_CLUSTER_LISTEN=nowhere", "cluster.listen (SHLYUZ_CLUSTER_LISTEN)"},
	} {
		code, out := runServe(t, "--listen 127.0.0.1:0 --db "+db, tc.env)
		if code != 1 || !strings.Contains(out, "shlyuz: cluster.") || !strings.Contains(out, tc.says) {
			t.Errorf("%s: exit %d\n%s", tc.env, code, out)
		}
	}
}

// The probes and the member list of a single node.
func TestHealthReadinessAndClusterState(t *testing.T) {
	for _, path := range []string{"/healthz", "/readyz"} {
		if st := call(t, h.base, "GET", path, "", nil, nil); st != 200 {
			t.Fatalf("%s: %d", path, st)
		}
	}
	accID, key := account(t, h.base, 1_000_000, nil)
	balance(t, h.base, key) // activates the account
	var st struct {
		Self        string `json:"self"`
		Live        bool   `json:"lease_live"`
		Members     []struct{ ID, Mode string }
		Activations []struct {
			Account string
			Epoch   int64
		}
	}
	if code := call(t, h.base, "GET", "/api/admin/cluster", adminToken, nil, &st); code != 200 || !st.Live || len(st.Members) != 1 ||
		st.Members[0].ID != st.Self || st.Members[0].Mode != "single" {
		t.Fatalf("cluster: %d %+v", code, st)
	}
	found := false
	for _, a := range st.Activations {
		found = found || (a.Account == accID && a.Epoch >= 1)
	}
	if !found {
		t.Fatalf("the account's activation is not listed: %+v", st.Activations)
	}
}

// Durable settlement, the default in single mode too: when the
// reply has arrived, its charge and record are durable, plain and streamed:
// on SQLite in the write-ahead log beside the database (or in the database
// already, when the journal's tick came first); a clean stop commits the
// log's lines to the database and removes its segments.
func TestDurableSettlementCommitsBeforeTheReplyEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "durable.db")
	c := startChild(t, "sqlite://"+path)
	_, key := account(t, c.base, 10_000_000, nil)
	store, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var ids []string
	for _, stream := range []bool{false, true} {
		resp := postChat(t, c.base, key, chatBody("test/model", stream, 0))
		if stream {
			sseEvents(t, resp.Body)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("stream=%v: %d", stream, resp.StatusCode)
		}
		id := resp.Header.Get("X-Generation-Id")
		ids = append(ids, id)
		logged := aheadLogged(t, path+"-ahead")
		if _, err := store.Generation(context.Background(), id); err != nil && !logged["g:"+id] {
			t.Fatalf("stream=%v: the record is neither committed nor logged when the reply ends: %v", stream, err)
		}
		if _, err := store.Entry(context.Background(), "chg-"+id); err != nil && !logged["e:chg-"+id] {
			t.Fatalf("stream=%v: the charge is neither committed nor logged when the reply ends: %v", stream, err)
		}
	}
	c.stop(t, syscall.SIGTERM)
	for _, id := range ids {
		g, err := store.Generation(context.Background(), id)
		if err != nil || g.Credits <= 0 {
			t.Fatalf("after a clean stop the record of %s is not committed: %v (credits %d)", id, err, g.Credits)
		}
		if e, err := store.Entry(context.Background(), "chg-"+id); err != nil || -e.Amount() != g.Credits {
			t.Fatalf("after a clean stop the charge of %s is not committed: %v (%+v, record says %d)", id, err, e, g.Credits)
		}
	}
	if left, _ := filepath.Glob(path + "-ahead.*"); len(left) != 0 {
		t.Fatalf("write-ahead segments left after a clean stop: %q", left)
	}
}

// aheadLogged reads the write-ahead log's segments (one JSON line a record:
// "e" an entry, "g" a generation record) and names what they hold, "e:ID"
// and "g:ID". The gateway runs meanwhile: a segment gone since the glob was
// committed to the store (and dropped) first, and a last line without its
// newline is an append still being written.
func aheadLogged(t *testing.T, prefix string) map[string]bool {
	t.Helper()
	names, err := filepath.Glob(prefix + ".*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		whole := string(data[:bytes.LastIndexByte(data, '\n')+1])
		for line := range strings.SplitSeq(whole, "\n") {
			if line == "" {
				continue
			}
			var r struct {
				E *struct{ ID string } `json:"e"`
				G *struct{ ID string } `json:"g"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.E != nil {
				out["e:"+r.E.ID] = true
			}
			if r.G != nil {
				out["g:"+r.G.ID] = true
			}
		}
	}
	return out
}
