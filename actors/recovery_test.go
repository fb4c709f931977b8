package actors_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/openai"
	"github.com/shlyuz/shlyuz/tokens"
)

// sickable is an OpenAI upstream over HTTP that answers every request with
// OpenAI's own 500 while sick, and as the fake does otherwise.
type sickable struct {
	sick atomic.Bool
	hits atomic.Int64 // requests that reached it while sick
	next http.Handler
}

func (s *sickable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.sick.Load() {
		s.hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`))
		return
	}
	s.next.ServeHTTP(w, r)
}

// After an upstream outage of any length, the first 200 comes within 2 s of
// the upstream's recovery, while between two probes the clients of a dead
// upstream get a fast 503. The gateway's clock is driven by the test: 45 s
// of a 5xx outage pass in a few hundred requests, with no waiting.
func TestRecoveryWithinTwoSecondsOfAnyOutage(t *testing.T) {
	up := &sickable{next: fake.New(fake.Options{ReplyTokens: 4, APIKey: "sk-upstream"})}
	ts := httptest.NewServer(up)
	defer ts.Close()
	var offset atomic.Int64 // how far the gateway's clock runs ahead of the real one
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	advance := func(d time.Duration) { offset.Add(int64(d)) }
	cfg := shlyuz.UpstreamConfig{Name: "sick", BaseURL: ts.URL + "/v1", APIKey: "sk-upstream"}.WithDefaults() // the default breaker
	tg := startGatewayClocked(t, time.Hour, 0, false, false, now, testUpstream{name: "sick", provider: openai.New(cfg), baseURL: cfg.BaseURL})
	hash := tg.account("acc-recovery", 1<<40, 1<<40)
	n := 0
	var lastErr error
	call := func() (int, time.Duration) { // the status a client gets, and how long it took
		n++
		c := &actors.ChatCall{GenerationID: fmt.Sprintf("gen-recovery-%d", n), KeyHash: hash, Models: []string{"text/model"}, MaxTokens: 16,
			Fields: map[string]json.RawMessage{"messages": json.RawMessage(`[{"role":"user","content":"Hi"}]`)},
			Prompt: tokens.PromptEstimate{Reserve: 20, Likely: 10}, Started: now()}
		start := time.Now()
		_, _, err := tg.Complete(context.Background(), c)
		took := time.Since(start)
		if err == nil {
			return 200, took
		}
		var e *shlyuz.Error
		lastErr = err
		if !errors.As(err, &e) {
			t.Fatalf("call %d: %v", n, err)
		}
		return e.Status, took
	}
	if st, _ := call(); st != 200 {
		t.Fatalf("a healthy upstream: %d %s", st, lastErr)
	}

	up.sick.Store(true)
	const outage, step = 45 * time.Second, 100 * time.Millisecond
	fast := 0
	for elapsed := time.Duration(0); elapsed < outage; elapsed += step {
		st, _ := call()
		switch {
		case st == 200:
			t.Fatalf("%s into the outage: a 200", elapsed)
		case st == 503: // the breaker's refusal, without a call upstream
			fast++
		case st < 500:
			t.Fatalf("%s into the outage: %d", elapsed, st)
		}
		advance(step)
	}
	calls, probes := int(outage/step), int(up.hits.Load())
	if fast < calls*3/4 {
		t.Fatalf("%d of %d calls during the outage got a fast 503; want most (the upstream saw %d)", fast, calls, probes)
	}
	if probes > calls/4 {
		t.Fatalf("the sick upstream saw %d of %d calls: the breaker does not hold it off", probes, calls)
	}

	up.sick.Store(false)
	for waited := time.Duration(0); ; waited += step {
		if waited > 2*time.Second {
			t.Fatalf("no 200 within 2 s of the upstream's recovery after a %s outage (%d probes reached it)", outage, probes)
		}
		if st, _ := call(); st == 200 {
			t.Logf("first 200 %s after recovery; %d probes and %d fast 503s in the %s outage", waited, probes, fast, outage)
			break
		}
		advance(step)
	}
}
