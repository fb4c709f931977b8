package main

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP traces endpoint on loopback: it decodes each
// export with the official protobuf types and keeps the spans.
type otlpReceiver struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	resource []*commonpb.KeyValue
	bad      []string
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body := io.Reader(req.Body)
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body = z
	}
	raw, err := io.ReadAll(body)
	var ex collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(raw, &ex)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
		r.bad = append(r.bad, fmt.Sprintf("%s %s %v", req.URL.Path, req.Header.Get("Content-Type"), err))
		http.Error(w, "bad export", 400)
		return
	}
	for _, rs := range ex.ResourceSpans {
		r.resource = append(r.resource, rs.GetResource().GetAttributes()...)
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *otlpReceiver) snapshot() ([]*tracepb.Span, []*commonpb.KeyValue, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...), append([]*commonpb.KeyValue(nil), r.resource...), append([]string(nil), r.bad...)
}

func attr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// TestTracesReachOTLPReceiver: a gateway with tracing on exports a chat
// request's trace (request → reservation, attempt, settlement, commit) to an
// OTLP/HTTP receiver, under the client's traceparent, with the GenAI
// attributes and without the key or the prompt in any attribute; a request
// whose traceparent says "not sampled" exports nothing.
func TestTracesReachOTLPReceiver(t *testing.T) {
	recv := &otlpReceiver{}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	base, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	cfg := string(base) + fmt.Sprintf("\ntracing: {endpoint: %q, sample_ratio: 1, batch_timeout: 20ms, service_name: shlyuz-test}\n", srv.URL+"/v1/traces")
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChildWith(t, "sqlite://"+filepath.Join(dir, "gw.db"), config)
	defer c.stop(t, syscall.SIGTERM)
	_, key := account(t, c.base, 10_000_000, nil)

	const prompt = "the-secret-prompt-4f1d9 tell me a story"
	traceID, parentID := "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	unsampled := "5bf92f3577b34da6a3ce929d0e0e4737"
	send := func(traceparent string) (completion int64) {
		raw, _ := json.Marshal(map[string]any{"model": "test/model", "max_tokens": 16, "messages": []map[string]any{{"role": "user", "content": prompt}}})
		req, _ := http.NewRequest("POST", c.base+"/api/v1/chat/completions", bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("traceparent", traceparent)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Usage struct {
				CompletionTokens int64 `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("chat: %d %v", resp.StatusCode, err)
		}
		return out.Usage.CompletionTokens
	}
	send("00-" + unsampled + "-00f067aa0ba902b8-00")
	completion := send("00-" + traceID + "-" + parentID + "-01")

	want := []string{"POST /api/v1/chat/completions", "shlyuz.reserve", "chat test/model", "shlyuz.settle", "shlyuz.commit"}
	byName := map[string]*tracepb.Span{}
	waitFor(t, 15*time.Second, "the trace's spans at the receiver", func() bool {
		spans, _, _ := recv.snapshot()
		for _, s := range spans {
			if hex.EncodeToString(s.TraceId) == traceID {
				byName[s.Name] = s
			}
		}
		return len(byName) >= len(want)
	})
	spans, resource, bad := recv.snapshot()
	if len(bad) > 0 {
		t.Fatalf("exports the receiver refused: %v", bad)
	}
	root := byName[want[0]]
	if root == nil || hex.EncodeToString(root.ParentSpanId) != parentID || root.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Fatalf("request span %v: not the client's traceparent's child", root)
	}
	if v := attr(root, "http.response.status_code"); v.GetIntValue() != 200 {
		t.Errorf("request span status %v", v)
	}
	for _, name := range want[1:] {
		s := byName[name]
		if s == nil {
			t.Errorf("no %q span; got %v", name, byName)
			continue
		}
		if !bytes.Equal(s.ParentSpanId, root.SpanId) {
			t.Errorf("%s: parent %x, want the request span %x", name, s.ParentSpanId, root.SpanId)
		}
		if s.EndTimeUnixNano < s.StartTimeUnixNano || s.StartTimeUnixNano < root.StartTimeUnixNano {
			t.Errorf("%s: times %d..%d, request from %d", name, s.StartTimeUnixNano, s.EndTimeUnixNano, root.StartTimeUnixNano)
		}
	}
	if a := byName["chat test/model"]; a != nil {
		if a.Kind != tracepb.Span_SPAN_KIND_CLIENT || attr(a, "gen_ai.request.model").GetStringValue() != "test/model" ||
			attr(a, "gen_ai.provider.name").GetStringValue() != "openai" || attr(a, "gen_ai.system").GetStringValue() != "openai" ||
			attr(a, "gen_ai.operation.name").GetStringValue() != "chat" ||
			attr(a, "gen_ai.usage.input_tokens").GetIntValue() <= 0 || attr(a, "gen_ai.usage.output_tokens").GetIntValue() != completion {
			t.Errorf("attempt span attributes %v (the reply's completion_tokens %d)", a.Attributes, completion)
		}
	}
	if s := byName["shlyuz.settle"]; s != nil && attr(s, "shlyuz.credits").GetIntValue() <= 0 {
		t.Errorf("settle span attributes %v", s.Attributes)
	}
	found := false
	for _, kv := range resource {
		found = found || kv.Key == "service.name" && kv.Value.GetStringValue() == "shlyuz-test"
	}
	if !found {
		t.Errorf("resource %v: no service.name", resource)
	}
	secret := strings.TrimPrefix(key, "sk-")
	for _, s := range spans {
		if hex.EncodeToString(s.TraceId) == unsampled {
			t.Errorf("span %q of the unsampled trace was exported", s.Name)
		}
		for _, kv := range append(s.Attributes, resource...) {
			v := kv.Value.String()
			if strings.Contains(v, secret) || strings.Contains(v, "secret-prompt") || strings.Contains(v, "Bearer") {
				t.Errorf("span %q attribute %s holds the key or the prompt: %s", s.Name, kv.Key, v)
			}
		}
	}
}
