package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// upstreamKeyEnv carries -direct-key to the built-in gateway (api_key_env).
const upstreamKeyEnv = "SHLYUZ_BENCH_UPSTREAM_KEY"

// benchUpstream is one upstream the built-in gateway routes a model to.
type benchUpstream struct {
	name, model, baseURL string
	withKey              bool
}

// gatewayConfig is the YAML of the built-in gateway: examples/fake-upstream.yaml
// with one upstream per scenario, an exact route per benchmark model, the
// models priced (small USD prices, rate and K set) so that billing runs, a
// large max_concurrent and a breaker that a burst of errors does not open.
func gatewayConfig(ups []benchUpstream) string {
	var b strings.Builder
	b.WriteString(`# Written by cmd/bench: the fake-upstream example with one upstream per scenario.
pricing: {rate: "100", K: "1"}   # 0.1 USD per Mtok is 1 credit a token
models:
`)
	for _, u := range ups {
		fmt.Fprintf(&b, "  - {id: %q, name: %q, context_length: 2000000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: \"0.1\", completion_usd_per_mtok: \"0.2\"}}\n", u.model, "Benchmark "+u.name)
	}
	b.WriteString("upstreams:\n")
	for _, u := range ups {
		fmt.Fprintf(&b, "  - name: %s\n    protocol: openai\n    base_url: %q\n", u.name, u.baseURL)
		if u.withKey {
			fmt.Fprintf(&b, "    api_key_env: %s\n", upstreamKeyEnv)
		}
		b.WriteString("    max_concurrent: 4096\n    timeout: 60s\n    first_byte_timeout: 10s\n    idle_timeout: 10s\n    breaker: {consecutive_failures: 1000000}\n")
	}
	b.WriteString("routes:\n")
	for _, u := range ups {
		fmt.Fprintf(&b, "  - {match: %q, upstreams: [%s], strip_prefix: false}\n", u.model, u.name)
	}
	return b.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// adminCall sends a JSON request to the operator API and decodes the answer.
func adminCall(ctx context.Context, c *http.Client, root, token, path string, body, out any, want int) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, root+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != want {
		return fmt.Errorf("POST %s: HTTP %d: %s", path, resp.StatusCode, answer)
	}
	if out != nil {
		if err := json.Unmarshal(answer, out); err != nil {
			return fmt.Errorf("POST %s: %w", path, err)
		}
	}
	return nil
}

// setupAccount creates an account, tops it up and creates a key with a
// monthly ceiling, as the e2e harness does; it returns the key.
func setupAccount(ctx context.Context, c *http.Client, root, token string, credits, ceiling int64) (accountID, key string, err error) {
	var acc struct{ ID string }
	if err := adminCall(ctx, c, root, token, "/api/admin/accounts",
		map[string]any{"email": fmt.Sprintf("bench-%d@example.com", time.Now().UnixNano())}, &acc, http.StatusCreated); err != nil {
		return "", "", err
	}
	if err := adminCall(ctx, c, root, token, "/api/admin/accounts/"+acc.ID+"/topups",
		map[string]any{"credits": credits, "idempotency_key": "bench-" + randomHex(8)}, nil, http.StatusOK); err != nil {
		return "", "", err
	}
	var k struct{ Key string }
	if err := adminCall(ctx, c, root, token, "/api/admin/accounts/"+acc.ID+"/keys",
		map[string]any{"name": "bench", "limit": ceiling, "limit_reset": "month"}, &k, http.StatusCreated); err != nil {
		return "", "", err
	}
	return acc.ID, k.Key, nil
}

// getJSON fetches url with an optional bearer key and decodes it; false if not 200.
func getJSON(c *http.Client, url, key string, out any) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return false
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out) == nil
}

// scrapeMallocs reads go_memstats_mallocs_total from a Prometheus text
// endpoint, with the admin token when one is given (/metrics needs it unless
// the gateway's metrics are public).
func scrapeMallocs(c *http.Client, url, token string) (float64, string) {
	return scrapeMetric(c, url, token, "go_memstats_mallocs_total")
}

// scrapeMetric reads one sample from a Prometheus text endpoint, with the
// admin token when one is given.
func scrapeMetric(c *http.Client, url, token, name string) (float64, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, errorKind(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Sprintf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	v, ok := parseMetric(raw, name)
	if !ok {
		return 0, "GET " + url + " has no " + name
	}
	return v, ""
}

// parseMallocs finds the go_memstats_mallocs_total sample in Prometheus text.
func parseMallocs(text []byte) (float64, bool) { return parseMetric(text, "go_memstats_mallocs_total") }

// parseMetric finds the sample of the metric name in Prometheus text.
func parseMetric(text []byte, metric string) (float64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
		}
		if name != metric {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseFloat(f[0], 64)
		return v, err == nil
	}
	return 0, false
}

// metricsURL is {scheme}://{host}/metrics of a base URL.
func metricsURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/metrics"
}

// redactDSN hides a password in a DSN.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxx")
	}
	return u.String()
}

// Machine is where the numbers came from.
type Machine struct {
	NProc        int    `json:"nproc"`
	GOMAXPROCS   int    `json:"gomaxprocs"`
	CPUModel     string `json:"cpu_model"`
	GoVersion    string `json:"go_version"`
	OSArch       string `json:"os_arch"`
	Kernel       string `json:"kernel,omitempty"`
	MemTotalKB   int64  `json:"mem_total_kb,omitempty"`
	LoadAvgStart string `json:"loadavg_start"`
	LoadAvgEnd   string `json:"loadavg_end"`
	GitCommit    string `json:"git_commit,omitempty"`
	GitDirty     bool   `json:"git_dirty,omitempty"`
}

func machineInfo(ctx context.Context, root string) Machine {
	m := Machine{NProc: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
		OSArch: runtime.GOOS + "/" + runtime.GOARCH, LoadAvgStart: loadAvg()}
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(raw)
	}
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(raw))
	}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemTotalKB = parseStatusKB(raw, "MemTotal")
	}
	if root != "" {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", "rev-parse", "HEAD")
		cmd.Dir = root
		if out, err := cmd.Output(); err == nil {
			m.GitCommit = strings.TrimSpace(string(out))
			st := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no")
			st.Dir = root
			if out, err := st.Output(); err == nil {
				m.GitDirty = len(bytes.TrimSpace(out)) > 0
			}
		}
	}
	return m
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo []byte) string {
	for _, line := range strings.Split(string(cpuinfo), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// loadAvg is the three load averages of /proc/loadavg ("1.05 3.58 3.00").
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}
