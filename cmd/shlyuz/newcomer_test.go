package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// runGateway runs `shlyuz serve args…` in a child process with the
// environment (without the harness's admin token), on a free port, until it
// answers; the child is killed when the test ends.
func runGateway(t *testing.T, dir string, env []string, args ...string) *child {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SHLYUZ_ADMIN_TOKEN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, env...), "SHLYUZ_TEST_EXEC=serve --listen "+addr+" "+strings.Join(args, " "))
	return launchChild(t, cmd, addr, "the gateway to answer")
}

// The example configuration, used as its comments say: a demo key beside the
// database, the log telling where it is and that the operator API is off, the
// documented fault models routable; a second database in the same directory
// gets its own key and leaves the first one's alone.
func TestExampleConfigAsDocumented(t *testing.T) {
	dir := t.TempDir()
	config, err := filepath.Abs("../../examples/fake-upstream.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"SHLYUZ_FAKE_UPSTREAM=" + h.fakeURL}
	g := runGateway(t, dir, env, "--config", config, "--db", "sqlite://./fake.db")
	keyFile := filepath.Join(dir, "fake.db.demo-key")
	first, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatalf("the demo key beside the database: %v\n%s", err, g.log)
	}
	key := strings.TrimSpace(string(first))
	for _, says := range []string{"fake.db.demo-key", "operator API is off"} {
		if !strings.Contains(g.log.String(), says) {
			t.Errorf("the log does not say %q:\n%s", says, g.log)
		}
	}
	for model, status := range map[string]int{"fake/model": 200, "fake/fault-500": 502, "fake/fault-429": 429} {
		resp := postChat(t, g.base, key, chatBody(model, false, 0))
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("%s: %d, want %d", model, resp.StatusCode, status)
		}
	}
	var video struct{ ID, Status string }
	if st := call(t, g.base, "POST", "/api/v1/videos", key, map[string]any{"model": "fake/video", "prompt": "a lighthouse", "seconds": "4"}, &video); st != 202 || video.ID == "" {
		t.Errorf("fake/video: %d %+v", st, video)
	}
	g.stop(t, syscall.SIGTERM)

	other := runGateway(t, dir, env, "--config", config, "--db", "sqlite://./other.db")
	if _, err := os.Stat(filepath.Join(dir, "other.db.demo-key")); err != nil {
		t.Fatalf("the second database's key: %v\n%s", err, other.log)
	}
	if again, _ := os.ReadFile(keyFile); !bytes.Equal(again, first) {
		t.Fatal("a second database changed the first one's demo key file")
	}
}

// In demo mode (no configuration) the keyed model list offers only what the
// gateway routes; OpenAI's retrieve works; an unknown modality is a 400; a
// catalog model without an upstream fails at once with a 404 that the
// official SDK does not retry.
func TestDemoOffersOnlyServableModels(t *testing.T) {
	dir := t.TempDir()
	g := runGateway(t, dir, nil, "--db", "sqlite://./demo.db")
	raw, err := os.ReadFile(filepath.Join(dir, "demo.db.demo-key"))
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	client := openai.NewClient(option.WithBaseURL(g.base+"/api/v1"), option.WithAPIKey(strings.TrimSpace(string(raw))),
		option.WithHTTPClient(&http.Client{Transport: counting{&sent}}))
	ctx := context.Background()
	page, err := client.Models.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) == 0 {
		t.Fatal("no model offered")
	}
	for _, m := range page.Data {
		if !strings.HasPrefix(m.ID, "demo/") {
			t.Errorf("offered %s, which the demo gateway cannot serve", m.ID)
		}
	}
	m, err := client.Models.Get(ctx, "demo/echo")
	if err != nil || m.ID != "demo/echo" {
		t.Fatalf("retrieve demo/echo: %+v %v", m, err)
	}
	var e apiError
	if st := call(t, g.base, "GET", "/api/v1/models?output_modalities=bogus", strings.TrimSpace(string(raw)), nil, &e); st != 400 || e.Error.Param == nil || *e.Error.Param != "output_modalities" {
		t.Fatalf("bogus modality: %d %+v", st, e.Error)
	}
	if st := call(t, g.base, "GET", "/api/admin/accounts/acc-demo", "any", nil, &e); st != 404 || e.Error.Code != "operator_api_off" {
		t.Fatalf("operator API off: %d %+v", st, e.Error)
	}
	sent.Store(0)
	_, err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "openai/gpt-4o", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Code != "model_not_available" {
		t.Fatalf("an unroutable model: %v, want 404 model_not_available", err)
	}
	if n := sent.Load(); n != 1 {
		t.Fatalf("the SDK sent the refused request %d times, want once", n)
	}
	img, err := client.Images.Generate(ctx, openai.ImageGenerateParams{Model: "demo/image-gen", Prompt: "a lighthouse"})
	if err != nil || len(img.Data) != 1 {
		t.Fatalf("the demo's image model: %v", err)
	}
	if w, hgt := decodedSize(t, img.Data[0].B64JSON); w != 256 || hgt != 256 {
		t.Fatalf("the demo image is %dx%d, want 256x256", w, hgt)
	}
}

// counting is a transport that counts the requests it sends.
type counting struct{ n *atomic.Int64 }

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// syncBuffer is a child's output, read while the child writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The log warns at start of an upstream whose api_key_env is unset and of one
// no route uses.
func TestStartWarnsOfLikelyMistakes(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	yaml := "upstreams:\n  - {name: used, base_url: \"" + h.fakeURL + "\", api_key_env: SHLYUZ_TEST_UNSET_KEY}\n  - {name: spare, base_url: \"" + h.fakeURL + "\"}\nroutes:\n  - {match: \"*\", upstreams: [used]}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	g := runGateway(t, dir, nil, "--config", cfg, "--db", "sqlite://./w.db")
	for _, says := range []string{"SHLYUZ_TEST_UNSET_KEY", "upstream spare: no route uses it"} {
		if !strings.Contains(g.log.String(), says) {
			t.Errorf("the log does not warn %q:\n%s", says, g.log)
		}
	}
}

// Browsers may call the API directly (a preflight is answered, the reply
// carries the CORS headers), never the operator API.
func TestCORS(t *testing.T) {
	cases := []struct {
		method, path string
		allowed      bool
	}{
		{"OPTIONS", "/api/v1/chat/completions", true},
		{"GET", "/api/models", true},
		{"OPTIONS", "/api/admin/accounts", false},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, h.base+tc.path, nil)
		req.Header.Set("Origin", "https://app.example.com")
		if tc.method == "OPTIONS" {
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("Access-Control-Allow-Origin") != ""
		if got != tc.allowed || (tc.allowed && tc.method == "OPTIONS" && resp.StatusCode/100 != 2) {
			t.Errorf("%s %s: %d, Access-Control-Allow-Origin %q, want allowed=%v", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), tc.allowed)
		}
	}
}

// TestShippedConfigsLoad: every config file in the repository (examples,
// the compose file's) loads and passes the start-up checks.
func TestShippedConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("../../*/*.yaml")
	if err != nil || len(files) < 2 {
		t.Fatalf("config files %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			cfg, err := loadConfig(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateConfig(cfg); err != nil {
				t.Fatal(err)
			}
		})
	}
}
