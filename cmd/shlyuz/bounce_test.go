package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bouncer is a fake upstream on a fixed address that a test can stop (every
// connection closed, as a restarting upstream does) and start again.
type bouncer struct {
	addr    string
	handler http.Handler
	mu      sync.Mutex
	srv     *http.Server
}

func newBouncer(handler http.Handler) (*bouncer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &bouncer{addr: ln.Addr().String(), handler: handler}
	b.serve(ln)
	return b, nil
}

func (b *bouncer) root() string { return "http://" + b.addr }

func (b *bouncer) serve(ln net.Listener) {
	srv := &http.Server{Handler: b.handler}
	b.mu.Lock()
	b.srv = srv
	b.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// stop closes the listener and every connection, idle ones included.
func (b *bouncer) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.srv.Close()
}

// start listens on the same address again.
func (b *bouncer) start() error {
	ln, err := net.Listen("tcp", b.addr)
	if err != nil {
		return err
	}
	b.serve(ln)
	return nil
}

// bounceProtocols are the upstreams on the bouncer: one per protocol, each
// with a breaker that the requests cut by a restart do not open (what is
// tested is that no request after the restart fails at all).
var bounceProtocols = []struct{ name, protocol, path, auth string }{
	{"bounce", "openai", "/v1", ""},
	{"bounce-claude", "anthropic", "", ""},
	{"bounce-gemini", "gemini", "", ""},
	{"bounce-yagpt", "yandex", "", ""},
	{"bounce-giga", "gigachat", "/gigachat/api/v1", "/gigachat/api/v2/oauth"},
}

// withBounce adds the bouncer's upstreams, a model and a route for each, to
// the test configuration.
func withBounce(cfg, root string) string {
	var models, ups, routes strings.Builder
	for _, p := range bounceProtocols {
		fmt.Fprintf(&models, "  - {id: %q, name: bounce, context_length: 100000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: \"1\", completion_usd_per_mtok: \"2\"}}\n", p.name+"/model")
		fmt.Fprintf(&ups, "  - {name: %s, protocol: %s, base_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY, folder_id: b1gfake, breaker: {consecutive_failures: 1000}", p.name, p.protocol, root+p.path)
		if p.auth != "" {
			fmt.Fprintf(&ups, ", auth_url: %q", root+p.auth)
		}
		ups.WriteString("}\n")
		fmt.Fprintf(&routes, "  - {match: %q, upstreams: [%s], strip_prefix: true}\n", p.name+"/", p.name)
	}
	// outage: the bouncer again, with the default breaker (5 faults, open_for 30s).
	fmt.Fprintf(&models, "  - {id: \"outage/model\", name: outage, context_length: 100000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: \"1\", completion_usd_per_mtok: \"2\"}}\n")
	fmt.Fprintf(&ups, "  - {name: outage, base_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY}\n", root+"/v1")
	fmt.Fprintf(&routes, "  - {match: \"outage/\", upstreams: [outage], strip_prefix: true}\n")
	cfg = strings.Replace(cfg, "upstreams:\n", models.String()+"upstreams:\n", 1)
	cfg = strings.Replace(cfg, "routes:\n", ups.String()+"routes:\n", 1)
	return cfg + routes.String()
}

// TestUpstreamRestartUnderLoad restarts the bouncer under load, for every
// protocol, with plain and streamed requests, after a burst that left many
// kept-alive connections idle in the pools: once the upstream is back, the
// connections it closed must not fail requests nor count as its failures (a
// run of them would open its breaker), so every request that starts after it
// is back succeeds: the gateway serves at once, not seconds or minutes later. The OpenAI-protocol upstream takes three restarts
// under 32 concurrent clients; the error window after each is logged.
func TestUpstreamRestartUnderLoad(t *testing.T) {
	_, key := account(t, h.base, 1_000_000_000, nil)
	for _, p := range bounceProtocols {
		burst, clients, restarts := 100, 8, 1
		if p.protocol == "openai" {
			burst, clients, restarts = 200, 32, 3
		}
		t.Run(p.protocol, func(t *testing.T) {
			for i := range restarts {
				window := bounceUnderLoad(t, key, p.name+"/model", burst, clients)
				t.Logf("%s restart %d under c=%d: errors until %s after the upstream was back", p.protocol, i+1, clients, window.Round(time.Millisecond))
			}
		})
	}
}

// bounceUnderLoad sends a burst of concurrent requests (so that the pools
// hold that many connections), then runs clients in a loop against the model,
// restarts the bouncer once they succeed, and goes on for 1.5s. It fails the
// test if a request that started after the restart failed (only those cut
// by the restart may fail); it returns how long after the restart the last
// failure started.
func bounceUnderLoad(t *testing.T, key, model string, burst, clients int) time.Duration {
	var (
		ok, failed atomic.Int64 // failed: every failure, the cut ones too
		back       atomic.Int64 // unix nanoseconds of the restart; 0 before
		lastFail   atomic.Int64 // start of the last failed request after the restart
		late       atomic.Int64 // failures that started after the restart
		stopAt     atomic.Int64
		wg         sync.WaitGroup
		lateErr    atomic.Value
	)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: burst}}
	defer client.CloseIdleConnections() // or the gateway's shutdown waits for them
	var burstFailed atomic.Int64
	for i := range burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := bounceRequest(client, key, model, i%2 == 0); err != nil {
				burstFailed.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := burstFailed.Load(); n > 0 {
		t.Fatalf("%d of the burst's %d requests failed", n, burst)
	}
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				began := time.Now()
				if s := stopAt.Load(); s != 0 && began.UnixNano() > s {
					return
				}
				err := bounceRequest(client, key, model, (c+n)%2 == 0)
				if err == nil {
					ok.Add(1)
					continue
				}
				failed.Add(1)
				if b := back.Load(); b != 0 && began.UnixNano() >= b {
					lastFail.Store(max(lastFail.Load(), began.UnixNano()-b))
					if late.Add(1) == 1 {
						lateErr.Store(err.Error())
					}
				}
			}
		}()
	}
	defer func() { stopAt.Store(1); wg.Wait() }()
	waitFor(t, 20*time.Second, "the load to succeed through the bouncer", func() bool { return ok.Load() >= int64(2*clients) })
	failed.Store(0)
	h.bounce.stop()
	if err := h.bounce.start(); err != nil {
		t.Fatal(err)
	}
	backAt := time.Now()
	back.Store(backAt.UnixNano())
	okBefore := ok.Load()
	stopAt.Store(backAt.Add(1500 * time.Millisecond).UnixNano())
	wg.Wait()
	if n := late.Load(); n > 0 {
		t.Fatalf("%d requests that started after the upstream was back failed (the last %s after it; the first: %v)", n, time.Duration(lastFail.Load()).Round(time.Millisecond), lateErr.Load())
	}
	if ok.Load() == okBefore {
		t.Fatal("no request succeeded after the upstream was back")
	}
	return time.Duration(lastFail.Load())
}

// bounceRequest is one chat request; an error for anything but a complete reply.
func bounceRequest(client *http.Client, key, model string, stream bool) error {
	body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"hi"}],"max_tokens":16,"stream":%v}`, model, stream)
	req, _ := http.NewRequest("POST", h.base+"/api/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		return fmt.Errorf("status %d: %s", resp.StatusCode, line)
	}
	if !stream {
		_, err := bufio.NewReader(resp.Body).WriteTo(discard{})
		return err
	}
	sc := bufio.NewScanner(resp.Body)
	done := false
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, `"error"`) {
			return fmt.Errorf("stream error: %s", line)
		}
		if line == "data: [DONE]" {
			done = true
		}
	}
	if !done {
		return fmt.Errorf("stream ended without [DONE]: %v", sc.Err())
	}
	return nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestUpstreamBackAfterAnOutageIsServedAtOnce takes an upstream with the
// default breaker (open_for 30s) down under load until its breaker is open
// and stays open through failed probes, brings it back, and measures how
// soon the gateway serves it again: its breaker probes a second after a trip
// and every second while connections are refused, so about a second, not
// open_for.
func TestUpstreamBackAfterAnOutageIsServedAtOnce(t *testing.T) {
	_, key := account(t, h.base, 1_000_000_000, nil)
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	if err := bounceRequest(client, key, "outage/model", false); err != nil {
		t.Fatal(err)
	}
	h.bounce.stop()
	restarted := false
	defer func() {
		if !restarted {
			_ = h.bounce.start()
		}
	}()
	var back, served atomic.Int64 // unix nanoseconds
	var paused atomic.Int64       // 503 provider_unavailable answers while down
	var probes atomic.Int64       // failed requests once the breaker had opened: its probes
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := bounceRequest(client, key, "outage/model", false)
				switch {
				case err == nil && back.Load() != 0:
					served.CompareAndSwap(0, time.Now().UnixNano())
				case err != nil && strings.Contains(err.Error(), "provider_unavailable"):
					paused.Add(1)
				case err != nil && paused.Load() > 0 && back.Load() == 0:
					probes.Add(1)
				}
				time.Sleep(20 * time.Millisecond) // a client's pace
			}
		}()
	}
	waitFor(t, 20*time.Second, "the breaker to open", func() bool { return paused.Load() > 0 })
	// The outage lasts a while: two of the breaker's probes fail meanwhile.
	waitFor(t, 20*time.Second, "two probes to fail", func() bool { return probes.Load() >= 2 })
	if err := h.bounce.start(); err != nil {
		t.Fatal(err)
	}
	restarted = true
	back.Store(time.Now().UnixNano())
	waitFor(t, 30*time.Second, "a request to be served again", func() bool { return served.Load() != 0 })
	close(stop)
	wg.Wait()
	after := time.Duration(served.Load() - back.Load())
	t.Logf("served again %s after the upstream was back (%d requests paused and %d probes failed while it was down)", after.Round(time.Millisecond), paused.Load(), probes.Load())
	if after > 3*time.Second { // about one second expected; open_for is 30s
		t.Fatalf("served again only %s after the upstream was back", after)
	}
}
