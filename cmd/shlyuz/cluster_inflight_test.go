package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz/persistence/cockroach"
	"github.com/shlyuz/shlyuz/tokens"
)

// gate is an upstream in front of the harness's fake that holds the chat
// calls of the models gated/a and gated/b until the test opens their gate:
// the test knows when calls are in flight upstream and when they end.
type gate struct {
	arrived atomic.Int64
	url     string // the gate's base URL, with /v1

	mu   sync.Mutex
	open map[string]chan struct{} // model → closed when its calls may go on
}

var gatedModels = []string{"gated/a", "gated/b"}

func startGate(t *testing.T) *gate {
	t.Helper()
	g := &gate{}
	g.reset()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: g}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		g.release("gated/a")
		g.release("gated/b")
		_ = srv.Close()
	})
	g.url = "http://" + ln.Addr().String() + "/v1"
	return g
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	for _, model := range gatedModels {
		g.mu.Lock()
		ch := g.open[model]
		g.mu.Unlock()
		if bytes.Contains(body, []byte(`"`+model+`"`)) {
			g.arrived.Add(1)
			select {
			case <-ch:
			case <-r.Context().Done():
				return
			}
		}
	}
	h.fake.ServeHTTP(w, r)
}

// release lets the model's held calls (and later ones) go on.
func (g *gate) release(model string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open[model]:
	default:
		close(g.open[model])
	}
}

// reset closes the gates again for a new scenario.
func (g *gate) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(map[string]chan struct{}, len(gatedModels))
	for _, m := range gatedModels {
		g.open[m] = make(chan struct{})
	}
	g.arrived.Store(0)
}

// gatedConfig is the harness's config with the gate as the upstream of the
// gated/ models.
func gatedConfig(t *testing.T, g *gate) string {
	t.Helper()
	raw, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(raw)
	var models strings.Builder
	for _, model := range gatedModels {
		fmt.Fprintf(&models, "  - {id: %q, name: %q, context_length: 100000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: \"1\", completion_usd_per_mtok: \"2\"}}\n", model, model)
	}
	cfg = strings.Replace(cfg, "models:\n", "models:\n"+models.String(), 1)
	cfg = strings.Replace(cfg, "upstreams:\n", fmt.Sprintf("upstreams:\n  - {name: gated, base_url: %q, max_concurrent: 1024, breaker: {consecutive_failures: 1000000}}\n", g.url), 1)
	cfg = strings.Replace(cfg, "routes:\n", "routes:\n  - {match: \"gated/\", upstreams: [gated]}\n", 1)
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// chatModel posts a small chat of model (max_tokens 16) with client.
func chatModel(client *http.Client, base, key, model string, n int) outcome {
	raw, _ := json.Marshal(chatBody(model, false, 16))
	req, _ := http.NewRequest("POST", base+"/api/v1/chat/completions", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	o := outcome{node: n, start: start, at: time.Now()}
	if err != nil {
		return o
	}
	defer resp.Body.Close()
	o.status, o.genID = resp.StatusCode, resp.Header.Get("X-Generation-Id")
	if resp.StatusCode == 200 {
		var r chatReply
		if jsonDecode(resp.Body, &r) == nil {
			o.credits = r.Usage.Credits
		}
	} else {
		var e apiError
		_ = jsonDecode(resp.Body, &e)
		o.code = e.Error.Code
	}
	return o
}

// worstOfSmallChat is what chatBody(…, 16) reserves of test/model's price.
func worstOfSmallChat(t *testing.T) int64 {
	t.Helper()
	msgs, _ := json.Marshal(chatBody("x", false, 16)["messages"])
	est, err := tokens.EstimatePrompt(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return est.Reserve*promptCredits + 16*completionCredits
}

// inFlightSurvivesOwnerLoss: calls of an account in flight on the other
// nodes when its owner is killed with -9 (or stopped with SIGTERM) end with
// 200 and their exact charge, settled at the new owner, which adopted their
// holds before it granted anything: a key and a balance that their holds
// nearly fill are hit on every node meanwhile and never overspent.
func inFlightSurvivesOwnerLoss(t *testing.T, sig syscall.Signal, nodes []*node, store *cockroach.Store, g *gate, checkCharges func(*testing.T, []outcome) int64) {
	ctx := context.Background()
	g.reset()
	worst := worstOfSmallChat(t)
	const inFlight = 6
	limit := (inFlight + 1) * worst // room for the calls in flight and one more
	accID, key := account(t, nodes[0].base, limit+worst/2, map[string]any{"limit": limit, "limit_reset": "month"})
	balance(t, nodes[1].base, key) // activates the account somewhere
	victim := ownerOf(t, store, nodes, accID)
	var survivors []int
	for i := range nodes {
		if i != victim {
			survivors = append(survivors, i)
		}
	}
	patient := &http.Client{Timeout: 90 * time.Second}
	var mu sync.Mutex
	var gated, pressure []outcome
	var wg sync.WaitGroup
	for i := range inFlight { // half are released at the kill, half once the new owner refuses more
		n, model := survivors[i%2], []string{"gated/a", "gated/b"}[i/(inFlight/2)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := chatModel(patient, nodes[n].base, key, model, n)
			mu.Lock()
			gated = append(gated, o)
			mu.Unlock()
		}()
	}
	waitFor(t, 30*time.Second, "the calls in flight upstream", func() bool { return g.arrived.Load() == inFlight })

	// The key is hit on every node while its account moves.
	var killed atomic.Bool
	stop := make(chan struct{})
	var pwg sync.WaitGroup
	for _, n := range []int{0, 1, 2} {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if n == victim && killed.Load() {
					return
				}
				o := chatModel(patient, nodes[n].base, key, "test/model", n)
				mu.Lock()
				pressure = append(pressure, o)
				mu.Unlock()
			}
		}()
	}
	waitFor(t, 30*time.Second, "the key's ceiling to refuse on its owner", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, o := range pressure {
			if o.status == 403 {
				return true
			}
		}
		return false
	})
	killedAt := time.Now()
	killed.Store(true)
	if err := nodes[victim].cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error, 1) // after SIGTERM it drains its own requests first
	go func() { stopped <- nodes[victim].cmd.Wait() }()
	if sig == syscall.SIGKILL {
		<-stopped
	}
	g.release("gated/a") // these settle while the account has no owner yet
	var answered time.Duration
	waitFor(t, 60*time.Second, "an answer of the account's new owner", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, o := range pressure {
			if o.node != victim && o.start.After(killedAt) && (o.status == 200 || o.code == "key_limit_exceeded") {
				answered = o.at.Sub(killedAt)
				return true
			}
		}
		return false
	})
	if sig == syscall.SIGTERM { // the rest settle once the owner is gone: at the new one
		if err := <-stopped; err != nil {
			t.Fatalf("the owner exited with %v after SIGTERM:\n%s", err, nodes[victim].log.String())
		}
	}
	g.release("gated/b")
	wg.Wait()
	close(stop)
	pwg.Wait()
	var last time.Duration
	for _, o := range gated {
		if o.status != 200 {
			t.Errorf("a call in flight on node %d at the owner's kill ended %d %s", o.node, o.status, o.code)
		}
		last = max(last, o.at.Sub(killedAt))
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("takeover (%s): the new owner answered %s after the signal; the last of %d calls in flight was settled there %s after it (lease TTL 2s)",
		sig, answered.Round(time.Millisecond), inFlight, last.Round(time.Millisecond))
	seen := append(gated, pressure...)
	sum := checkCharges(t, seen)
	if sum > limit {
		t.Fatalf("spent %d of a key ceiling of %d", sum, limit)
	}
	after, err := store.Balance(ctx, accID)
	if err != nil {
		t.Fatal(err)
	}
	// Only a call served by the killed node itself may be charged unseen.
	debited := int64(limit + worst/2 - after.BoughtCredits)
	if debited < sum || debited > limit || after.BoughtCredits < 0 {
		t.Fatalf("debited %d, clients saw %d, key ceiling %d (balance now %d)", debited, sum, limit, after.BoughtCredits)
	}
	var kv keyView
	if st := call(t, nodes[survivors[0]].base, "GET", "/api/v1/key", key, nil, &kv); st != 200 || kv.Data.Usage != debited {
		t.Fatalf("the key's usage after the move: %d %+v, debited %d", st, kv.Data, debited)
	}
	for _, i := range survivors {
		assertReconciled(t, nodes[i].base)
	}
	if bad, err := store.Reconcile(ctx); err != nil || len(bad) != 0 {
		t.Fatalf("reconcile: %v %v", bad, err)
	}
}
