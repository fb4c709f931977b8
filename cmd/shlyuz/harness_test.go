package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// The end-to-end tests run one gateway in this process (several protoactor
// cluster members in one process race under -race), against the fake
// upstream over loopback. Tests that restart or kill a gateway run it as a
// child process: this test binary re-executed as `shlyuz serve`.

const adminToken = "test-admin-token-7f3a9c1e5b2d8046"

// Test prices: 1 USD per Mtok at rate 100 and K 1 is 10 credits a token.
const (
	promptCredits     = 10 // credits per prompt token of test/model
	completionCredits = 20 // credits per completion token of test/model
)

var (
	h       *harness
	counter atomic.Int64
	// onFakeRequest, when set, sees every request of the harness's fake
	// upstream with its body (fake.Options.OnRequest); a test that sets it
	// clears it before it ends.
	onFakeRequest atomic.Pointer[func(r *http.Request, body []byte)]
)

type harness struct {
	base    string // http://127.0.0.1:port
	fake    *fake.Server
	fakeURL string   // base URL of the fake upstream, with /v1
	bounce  *bouncer // a second fake, which tests stop and start again
	in      *instance
	dir     string
	config  string
}

func TestMain(m *testing.M) {
	if args := os.Getenv("SHLYUZ_TEST_EXEC"); args != "" { // a child gateway
		os.Args = append([]string{"shlyuz"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	code, err := runTests(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func runTests(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "shlyuz-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	f := fake.New(fake.Options{ReplyTokens: 8, OnRequest: func(r *http.Request, body []byte) {
		if see := onFakeRequest.Load(); see != nil {
			(*see)(r, body)
		}
	}})
	fln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	fsrv := &http.Server{Handler: f}
	go func() { _ = fsrv.Serve(fln) }()
	defer fsrv.Close()
	defer f.Close()

	bounce, err := newBouncer(fake.New(fake.Options{ReplyTokens: 8}))
	if err != nil {
		return 0, err
	}
	defer bounce.stop()
	h = &harness{fake: f, fakeURL: "http://" + fln.Addr().String() + "/v1", dir: dir, bounce: bounce}
	h.config = filepath.Join(dir, "config.yaml")
	os.Setenv("SHLYUZ_TEST_FAKE_KEY", "fake-key")
	if err := os.WriteFile(h.config, []byte(withBounce(testConfig(h.fakeURL), bounce.root())), 0o600); err != nil {
		return 0, err
	}
	cfg, err := loadConfig(h.config)
	if err != nil {
		return 0, err
	}
	os.Setenv("SHLYUZ_ADMIN_TOKEN", adminToken)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("SHLYUZ_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	in, err := start(context.Background(), cfg, listening{ln}, "sqlite://"+filepath.Join(dir, "gw.db"), log)
	if err != nil {
		return 0, err
	}
	h.in, h.base = in, "http://"+ln.Addr().String()
	code := m.Run()
	if err := in.shutdown(); err != nil {
		return 0, err
	}
	return code, nil
}

// testConfig routes every model to the fake; the breaker/ and short/ prefixes
// go to upstreams with a touchy breaker and short time-outs.
func testConfig(fakeURL string) string {
	root := strings.TrimSuffix(fakeURL, "/v1")
	var models strings.Builder
	for _, id := range []string{"test/model", "test/other", "breaker/ok", "breaker/fault-500", "breaker/fault-503", "short/fault-hang", "tiny/model",
		"faulty/fault-500", "faulty/fault-429", "faulty/fault-quota", "faulty/fault-cut", "faulty/fault-malformed",
		"faulty/fault-nousage", "faulty/fault-midstream-error", "faulty/fault-401", "fallback/model", "tiny/fault-stall", "faulty/fault-stall", "faulty/fault-slow",
		"claude/model", "gemini/model", "yagpt/model", "giga/model", "mixed/model", "permodel/model", "sorted/model", "params/model",
		"faulty/fault-400", "retry/fault-429-once", "test/gpt-5", "faulty/fault-empty",
		"life/deprecated", "life/retired", "life/served"} {
		fmt.Fprintf(&models, "  - {id: %q, name: %q, context_length: 100000, max_output_tokens: 4096, input_modalities: [text, image], output_modalities: [text], usd: {prompt_usd_per_mtok: \"1\", completion_usd_per_mtok: \"2\"}}\n", id, id)
	}
	models.WriteString(videoTestModels)
	models.WriteString(imageTestModels)
	models.WriteString(audioTestModels)
	models.WriteString(embeddingTestModels)
	models.WriteString(billingTestModels)
	models.WriteString(feeTestModels)
	models.WriteString(geminiTestModels)
	return withYandexAudio(root, withSaluteAudio(root, withImageUpstreams(root, withVideoUpstreams(root, strings.ReplaceAll(strings.ReplaceAll(fmt.Sprintf(lifecycleTestConfig()+`journal_interval: 20ms
video: {poll_min: 5ms, poll_max: 40ms, timeout: 60s}
heartbeat: 100ms
body_limit: 1048576
pricing: {rate: "100", K: "1"}
web_search: {engine: yandex, url: "SEARCH_URL", folder_id: b1gfake, api_key_env: SHLYUZ_TEST_FAKE_KEY, price_rub_per_1000: "488", allow_addresses: [127.0.0.0/8]}
plans:
  - {id: basic, name: Basic, price_rubles: "990", package_credits: 50000000, period: month}
models:
%supstreams:
  - {name: fake, base_url: %q, max_concurrent: 1024}
  - {name: dead, base_url: "http://127.0.0.1:1/v1", breaker: {consecutive_failures: 1000000}}
  - {name: faulty, base_url: %q, breaker: {consecutive_failures: 1000000}, retry: {attempts: 1}}
  - name: flaky
    base_url: %q
    breaker: {consecutive_failures: 3, open_for: 300ms}
    retry: {attempts: 1}
  - {name: retrying, base_url: "FAKE_URL", retry: {attempts: 2, backoff: 10ms, budget: 5s}}
  - {name: short, base_url: %q, timeout: 300ms, first_byte_timeout: 300ms, breaker: {consecutive_failures: 1000000}}
  - {name: tiny, base_url: %q, max_concurrent: 1}
  - {name: pricey, base_url: %q, price_multiplier: "2", slug: openai, data_collection: deny, quantization: fp8}
  - {name: pm-a, base_url: "FAKE_URL", breaker: {consecutive_failures: 2, open_for: 1h}, retry: {attempts: 1}}
  - {name: pm-b, base_url: "FAKE_URL", breaker: {consecutive_failures: 2, open_for: 1h}, retry: {attempts: 1}}
  - {name: anthropic, protocol: anthropic, base_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY}
  - {name: anthropic-dead, protocol: anthropic, base_url: "http://127.0.0.1:1", api_key_env: SHLYUZ_TEST_FAKE_KEY}
  - {name: gemini, protocol: gemini, base_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY}
  - {name: yandex, protocol: yandex, base_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY, folder_id: b1gfake}
  - name: gigachat
    protocol: gigachat
    base_url: %q
    auth_url: %q
    api_key_env: SHLYUZ_TEST_FAKE_KEY
routes:
  - {match: "*", upstreams: [fake]}
  - {match: "breaker/", upstreams: [flaky]}
  - {match: "faulty/", upstreams: [faulty]}
  - {match: "short/", upstreams: [short]}
  - {match: "tiny/", upstreams: [tiny]}
  - {match: "fallback/", upstreams: [dead, fake]}
  - {match: "claude/", upstreams: [anthropic], strip_prefix: true}
  - {match: "gemini/", upstreams: [gemini], strip_prefix: true}
  - {match: "yagpt/", upstreams: [yandex], strip_prefix: true}
  - {match: "giga/", upstreams: [gigachat], strip_prefix: true}
  - {match: "imagen/", upstreams: [gemini], strip_prefix: true}
  - {match: "google/", upstreams: [gemini], strip_prefix: true}
  - {match: "yart/", upstreams: [yandex], strip_prefix: true}
  - {match: "mixed/", upstreams: [anthropic-dead, pricey]}
  - {match: "permodel/", upstreams: [pm-a, pm-b]}
  - {match: "sorted/", upstreams: [pricey, fake]}
  - {match: "params/", upstreams: [anthropic, fake]}
  - {match: "retry/", upstreams: [retrying]}
`, models.String(), fakeURL, fakeURL, fakeURL, fakeURL, fakeURL, fakeURL, root, root, root, root+"/gigachat/api/v1", root+"/gigachat/api/v2/oauth"), "FAKE_URL", fakeURL), "SEARCH_URL", root+"/v2/web/search")))))
}

// call sends a JSON request and decodes a JSON answer into out (if not nil).
func call(t testing.TB, base, method, path, token string, body any, out any) int {
	t.Helper()
	return callHeader(t, base, method, path, token, nil, body, out)
}

// callHeader is call with more request headers.
func callHeader(t testing.TB, base, method, path, token string, header map[string]string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

// apiError is the one error body.
type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Code    string  `json:"code"`
		Param   *string `json:"param"`
	} `json:"error"`
}

// param is the error's param, "" when it has none.
func (e *apiError) param() string {
	if e.Error.Param == nil {
		return ""
	}
	return *e.Error.Param
}

// servedGeneration sends a chat request that must be served and returns the
// generation record it made.
func servedGeneration(t *testing.T, key string, body any) generationView {
	t.Helper()
	var r struct {
		ID string `json:"id"`
	}
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &r); st != 200 {
		t.Fatalf("status %d", st)
	}
	var g generationView
	call(t, h.base, "GET", "/api/v1/generation?id="+r.ID, key, nil, &g)
	return g
}

// account makes an account with credits bought and a key; it returns both.
func account(t testing.TB, base string, credits int64, keyBody map[string]any) (accountID, key string) {
	t.Helper()
	n := counter.Add(1)
	var acc struct{ ID string }
	if st := call(t, base, "POST", "/api/admin/accounts", adminToken, map[string]any{"email": fmt.Sprintf("user%d-%d@example.com", n, time.Now().UnixNano())}, &acc); st != 201 {
		t.Fatalf("create account: %d", st)
	}
	if credits > 0 {
		if st := call(t, base, "POST", "/api/admin/accounts/"+acc.ID+"/topups", adminToken,
			map[string]any{"credits": credits, "idempotency_key": fmt.Sprintf("seed-%d", n)}, nil); st != 200 {
			t.Fatalf("top up: %d", st)
		}
	}
	if keyBody == nil {
		keyBody = map[string]any{"name": "test"}
	}
	var k struct{ Key string }
	if st := call(t, base, "POST", "/api/admin/accounts/"+acc.ID+"/keys", adminToken, keyBody, &k); st != 201 {
		t.Fatalf("create key: %d", st)
	}
	return acc.ID, k.Key
}

type creditsView struct {
	Data struct {
		PackageCredits int64 `json:"package_credits"`
		BoughtCredits  int64 `json:"bought_credits"`
		TotalCredits   int64 `json:"balance_credits"` // what may be spent now
		Reserved       int64 `json:"reserved_credits"`
		Rubles         string
	} `json:"data"`
}

func balance(t testing.TB, base, key string) creditsView {
	t.Helper()
	var v creditsView
	if st := call(t, base, "GET", "/api/v1/credits", key, nil, &v); st != 200 {
		t.Fatalf("credits: %d", st)
	}
	return v
}

type keyView struct {
	Data struct {
		Limit          *int64  `json:"limit"`
		LimitRemaining *int64  `json:"limit_remaining"`
		Usage          int64   `json:"usage"`
		LimitReset     *string `json:"limit_reset"`
	} `json:"data"`
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// child is a gateway running in a child process.
type child struct {
	cmd  *exec.Cmd
	base string
	log  interface{ String() string }
}

// startChild runs `shlyuz serve` in a child process on a free port and waits until it answers.
func startChild(t *testing.T, db string) *child {
	t.Helper()
	return startChildWith(t, db, h.config)
}

// startChildWith is startChild with another config file (and extra environment).
func startChildWith(t *testing.T, db, config string, env ...string) *child {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "SHLYUZ_TEST_EXEC=serve --listen "+addr+" --db "+db+" --config "+config), env...)
	return launchChild(t, cmd, addr, "the child gateway to answer")
}

// freeAddr is a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// launchChild starts cmd, a gateway serving on addr, kills it when the test
// ends, and waits until it answers.
func launchChild(t *testing.T, cmd *exec.Cmd, addr, what string) *child {
	t.Helper()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, base: "http://" + addr, log: out}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
	})
	waitFor(t, 60*time.Second, what, func() bool {
		resp, err := http.Get(c.base + "/api/pricing")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return c
}

// stop sends sig and waits for the child to exit.
func (c *child) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := c.cmd.Wait()
	if sig == syscall.SIGTERM && err != nil {
		t.Fatalf("child exited with %v after SIGTERM:\n%s", err, c.log.String())
	}
}

var _ = shlyuz.CreditsPerRuble
