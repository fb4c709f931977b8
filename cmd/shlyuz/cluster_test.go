package main

import (
	"context"
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

// Durable settlement, the default in single mode too (issue 20): when the
// reply has arrived, its charge and record are already committed, plain and
// streamed.
func TestDurableSettlementCommitsBeforeTheReplyEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "durable.db")
	c := startChild(t, "sqlite://"+path)
	_, key := account(t, c.base, 10_000_000, nil)
	store, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
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
		g, err := store.Generation(context.Background(), id)
		if err != nil {
			t.Fatalf("stream=%v: the record is not committed when the reply ends: %v", stream, err)
		}
		if _, err := store.Entry(context.Background(), "chg-"+id); err != nil || g.Credits <= 0 {
			t.Fatalf("stream=%v: the charge is not committed when the reply ends: %v (credits %d)", stream, err, g.Credits)
		}
	}
	c.stop(t, syscall.SIGTERM)
}
