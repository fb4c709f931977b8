package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz/providers/fake"
)

const (
	rulesFile     = "../../deploy/prometheus/shlyuz.rules.yml"
	rulesTestFile = "../../deploy/prometheus/shlyuz.rules.test.yml"
	dashboardFile = "../../deploy/grafana/shlyuz.json"
)

// TestAlertRulesPromtool checks the alert rules and runs their unit tests
// with Prometheus's promtool (.ci/run installs it; without it, outside CI,
// the test is skipped).
func TestAlertRulesPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is not installed: .ci/run installs Debian's prometheus package")
		}
		t.Skip("promtool is not installed")
	}
	for _, args := range [][]string{{"check", "rules", rulesFile}, {"test", "rules", rulesTestFile}} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestDeployMetricsExist: every metric the alert rules and the Grafana
// dashboard read is in the /metrics of a running gateway that has served
// calls (one of them over-reported, so its counter exists).
func TestDeployMetricsExist(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	for _, body := range []map[string]any{
		{"model": "test/model", "max_tokens": 8, "messages": []map[string]any{{"role": "user", "content": "hi"}}},
		{"model": "bill/gpt-4o-mini", "max_tokens": 5, "messages": []map[string]any{{"role": "user", "content": "Think hard. " + fake.UsageMarker + " reasoning=100000]]"}}},
	} {
		resp := postChat(t, h.base, key, body)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%v: %d", body["model"], resp.StatusCode)
		}
	}
	var exposed map[string]bool
	waitFor(t, 10*time.Second, "the journal's commit metrics", func() bool {
		exposed = seriesNames(get(t, h.base+"/metrics", adminToken, 200))
		return exposed["shlyuz_journal_lag_seconds_bucket"]
	})

	used := map[string][]string{} // metric name → files using it
	name := regexp.MustCompile(`\b(?:shlyuz|go|process)_[a-z0-9_]+\b`)
	rules, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range name.FindAllString(string(rules), -1) {
		used[n] = append(used[n], "rules")
	}
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil || len(dash.Panels) == 0 {
		t.Fatalf("dashboard: %v, %d panels", err, len(dash.Panels))
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				used[n] = append(used[n], "dashboard: "+p.Title)
			}
		}
	}
	if len(used) < 10 {
		t.Fatalf("only %d metric names found in the rules and the dashboard", len(used))
	}
	for n, where := range used {
		if !exposed[n] {
			t.Errorf("%s (used by %s) is not in /metrics", n, strings.Join(where, ", "))
		}
	}
}

// seriesNames is the set of series names in a Prometheus text exposition.
func seriesNames(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		if i := strings.IndexAny(line, "{ "); i > 0 {
			out[line[:i]] = true
		}
	}
	return out
}
