// Package conformance is the one test suite every provider adapter passes:
// each adapter's test calls Run with its constructor, and the suite drives it
// over real HTTP against providers/fake, which speaks every protocol.
package conformance

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// Target is an adapter under test.
type Target struct {
	// Name labels the subtests ("openai", "anthropic", …).
	Name string
	// New makes the adapter pointed at the fake upstream; baseURL is the fake
	// server's root (http://127.0.0.1:port, no path): the adapter's test knows
	// which path its protocol lives under there and how its credentials are set.
	// New may register cleanups of its own with t.Cleanup.
	New func(t *testing.T, baseURL string) shlyuz.Provider
	// NewTLS, when set, is used instead of New and the fake is served over
	// HTTPS (httptest.NewTLSServer): baseURL is https://127.0.0.1:port and
	// caFile is a PEM file holding the test server's certificate, for
	// UpstreamConfig.CAFile.
	NewTLS func(t *testing.T, baseURL, caFile string) shlyuz.Provider
	// NoVision, when set, is why the protocol cannot take images: the suite
	// then expects a request with an image part to be refused before it goes
	// upstream, with a 400 invalid_value *shlyuz.Error that is no UpstreamFault.
	NoVision string
	// NoTools, when set, is why the protocol cannot take tools: the suite then
	// expects a request with tools to be refused the same way.
	NoTools string
}

// The suite's fixed terms.
const (
	// ReplyTokens is the fake's reply length in the suite.
	ReplyTokens = 8
	// GenerationID and Model are what every reply must be stamped with.
	GenerationID = "gen-test"
	Model        = "test/model"
	// UpstreamModel is the upstream model name of the requests without a fault.
	UpstreamModel = "model"

	opTimeout = 15 * time.Second // bounds every call, so that a hung adapter fails instead of stalling the run
	prompt    = 5 * time.Second  // "promptly": the failure condition of the waits for an effect
	deadline  = 300 * time.Millisecond
)

// Run runs the suite against the adapter, as subtests of tg.Name, over real
// HTTP against providers/fake served by httptest (fake.Options{ReplyTokens: 8}).
// Every request carries GenerationID, Model and req.Fields holding the
// client's OpenAI request. It checks:
//
//   - text: Chat and ChatStream of a system + user conversation (also with the
//     client's stream_options.include_usage, with MaxTokens 3, and with an
//     image_url data-URL part) answer "tok0 … tok7" (or "tok0 tok1 tok2"),
//     role assistant, finish "stop" (or "length"), usage with prompt tokens > 0
//     (≥ 85 with the image), 8 (or 3) completion tokens and their total,
//     ChatResponse.Created set. A stream must end with io.EOF; every Data must
//     be a chat.completion.chunk object with id GenerationID, model Model, a
//     created number and a choices array, and no non-null usage (the gateway
//     writes the usage chunk itself); the deltas (role included) must add up to
//     the reply; the finish reason must be in a chunk and in
//     StreamEvent.FinishReason; an event with content must count
//     CompletionTokens; the last StreamEvent.Usage is the usage checked, and
//     its prompt tokens must equal what Chat reports.
//   - tools: an OpenAI tools list gets tool_calls[0] with an id, type
//     "function", name "get_weather" and arguments the JSON string of
//     {"city":"Moscow"}, no text, finish "tool_calls", fake.ToolCallTokens
//     completion tokens; streamed, the call assembled from the deltas by index
//     is the same; the follow-up with the assistant's tool_calls message and a
//     role "tool" result gets the text answer with finish "stop".
//   - refusals: with NoVision or NoTools set, the image or tools request is
//     refused with a 400 invalid_value *shlyuz.Error, no UpstreamFault, and
//     never reaches the upstream.
//   - errors before the first byte (UpstreamModel "fault-<name>"), Chat and
//     ChatStream (from ChatStream or its first Next): 500 → 502 UpstreamFault;
//     503 → ≥ 500 UpstreamFault; 429 → 429 with RetryAfter > 0, UpstreamFault;
//     quota → UpstreamFault, 429 or ≥ 500; 401 (the upstream refused the
//     gateway's credentials) → ≥ 500 UpstreamFault; 400 → 400, no
//     UpstreamFault; a malformed or cut reply to Chat → ≥ 500 UpstreamFault;
//     an upstream that hangs past a 300ms context deadline → a timeout error
//     (504 or context.DeadlineExceeded) within seconds, the upstream
//     connection released.
//   - errors after the first byte: streams with a mid-stream error event, a
//     malformed chunk or a dropped connection deliver the words sent before
//     it, then Next returns an *shlyuz.Error with UpstreamFault, not io.EOF.
//   - cancellation: on a stream that stalls after some words, cancelling the
//     context or calling Close (from other goroutines, twice, concurrently)
//     makes the blocked Next return a non-EOF error within seconds that is a
//     context.Canceled or no UpstreamFault; the upstream connection is
//     released; Next keeps returning an error; a later Close returns nil.
//
// Cache and reasoning tokens are not exercised.
func Run(t *testing.T, tg Target) {
	t.Helper()
	t.Run(tg.Name, func(t *testing.T) {
		if tg.New == nil && tg.NewTLS == nil {
			t.Fatal("conformance: Target.New is nil")
		}
		e := start(t, tg)
		t.Run("text", e.testText)
		t.Run("tools", e.testTools)
		t.Run("errors_before_first_byte", e.testErrorsBeforeFirstByte)
		t.Run("errors_after_first_byte", e.testErrorsAfterFirstByte)
		t.Run("cancellation", e.testCancellation)
	})
}

// env is one run of the suite: the fake, its server and the adapter.
type env struct {
	tg       Target
	fake     *fake.Server
	p        shlyuz.Provider
	requests tracker
}

func start(t *testing.T, tg Target) *env {
	e := &env{tg: tg}
	e.fake = fake.New(fake.Options{ReplyTokens: ReplyTokens, OnRequest: e.requests.add})
	var srv *httptest.Server
	if tg.NewTLS != nil {
		srv = httptest.NewTLSServer(e.fake)
	} else {
		srv = httptest.NewServer(e.fake)
	}
	t.Cleanup(srv.Close)
	t.Cleanup(e.fake.Close) // runs first: releases the requests the fake holds
	if tg.NewTLS != nil {
		e.p = tg.NewTLS(t, srv.URL, writeCA(t, srv.Certificate()))
	} else {
		e.p = tg.New(t, srv.URL)
	}
	if e.p == nil {
		t.Fatal("conformance: New returned a nil Provider")
	}
	if c, ok := e.p.(interface{ CloseIdleConnections() }); ok {
		t.Cleanup(c.CloseIdleConnections)
	}
	return e
}

// writeCA writes the test server's certificate as PEM and returns the file's path.
func writeCA(t *testing.T, cert *x509.Certificate) string {
	t.Helper()
	if cert == nil {
		t.Fatal("conformance: the TLS test server has no certificate")
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// tracker records every chat request that reached the fake (through
// fake.Server.Remember). A request's context is done once its handler returned
// or the client dropped the connection.
type tracker struct {
	mu   sync.Mutex
	reqs []tracked
	more chan struct{} // closed and replaced on every arrival
}

type tracked struct {
	ctx   context.Context
	fault string // X-Fake-Fault
	path  string
	body  []byte
}

func (tr *tracker) add(r *http.Request, body []byte) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.reqs = append(tr.reqs, tracked{r.Context(), r.Header.Get(fake.FaultHeader), r.URL.Path, body})
	if tr.more != nil {
		close(tr.more)
		tr.more = nil
	}
}

// count is how many requests arrived so far.
func (tr *tracker) count() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.reqs)
}

// await waits up to d for a request asking for the fault to arrive, the
// from-th request (0-based) or a later one.
func (tr *tracker) await(from int, fault string, d time.Duration) (context.Context, bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	marker := []byte("fault-" + fault)
	for {
		tr.mu.Lock()
		for _, q := range tr.reqs[min(from, len(tr.reqs)):] {
			if q.fault == fault || strings.Contains(q.path, string(marker)) || bytes.Contains(q.body, marker) {
				tr.mu.Unlock()
				return q.ctx, true
			}
		}
		from = len(tr.reqs)
		if tr.more == nil {
			tr.more = make(chan struct{})
		}
		more := tr.more
		tr.mu.Unlock()
		select {
		case <-more:
		case <-timer.C:
			return nil, false
		}
	}
}

// released checks that the upstream request asking for the fault, made after
// the from-th, ended (the adapter let go of the connection) within the prompt wait.
func (e *env) released(t *testing.T, from int, fault, after string) {
	t.Helper()
	ctx, ok := e.requests.await(from, fault, prompt)
	if !ok {
		t.Errorf("%s: no request for fault-%s reached the fake upstream", after, fault)
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(prompt):
		t.Errorf("%s: the upstream request is still open %v later: the adapter did not close its connection", after, prompt)
	}
}

// opContext bounds one call of the suite.
func opContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), opTimeout)
	t.Cleanup(cancel)
	return ctx
}
