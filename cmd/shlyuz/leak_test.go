package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// No goroutine is left behind per request: plain calls, streams, streams cut
// by the client and failed calls all end their goroutines.
func TestNoGoroutineLeftBehindPerRequest(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	client := &http.Client{Transport: tr}
	post := func(model string, stream bool) *http.Response {
		raw, _ := json.Marshal(chatBody(model, stream, 0))
		req, _ := http.NewRequest("POST", h.base+"/api/v1/chat/completions", strings.NewReader(string(raw)))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	workload := func(n int) {
		for i := 0; i < n; i++ {
			for _, c := range []struct {
				model  string
				stream bool
			}{{"test/model", false}, {"test/model", true}, {"faulty/fault-500", false}, {"faulty/fault-midstream-error", true}} {
				resp := post(c.model, c.stream)
				sseEvents(t, resp.Body)
				resp.Body.Close()
			}
			resp := post("faulty/fault-stall", true) // cut by the client after the first chunk
			if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		tr.CloseIdleConnections()
	}
	// Two equal rounds: idle server workers and pooled connections are about
	// the same after each, while a leak of one goroutine per request would
	// add 200 in the second round.
	settled := func() int {
		waitFor(t, 10*time.Second, "the calls to settle", func() bool { return h.in.gw.InFlight() == 0 })
		return runtime.NumGoroutine()
	}
	workload(40)
	first := settled()
	workload(40)
	second := settled()
	if second-first > 30 {
		t.Fatalf("goroutines grew from %d to %d over 200 requests", first, second)
	}
	if h.in.gw.ReservedCredits() != 0 {
		t.Fatalf("credits still reserved: %d", h.in.gw.ReservedCredits())
	}
	t.Logf("goroutines: %d after the first 200 requests, %d after the next 200", first, second)
}
