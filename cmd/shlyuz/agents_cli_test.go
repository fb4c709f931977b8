package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The agent CLIs as they ship, pinned from npm, in their one-shot modes
// against the gateway and the fake upstream, with nothing set but what
// docs/clients.md tells a user to set. Each answers a prompt and is billed.

// runCLI runs bin (from npmInstall's folder) with args in a fresh home, env
// added, and returns what it printed.
func runCLI(t *testing.T, modules, bin string, home string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(modules, "node_modules", ".bin", bin), args...)
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "NO_COLOR=1"}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	return string(out)
}

// claudeCode is Claude Code as npm ships it, pinned, with its native binary in place.
func claudeCode(t *testing.T) string {
	modules := npmInstall(t, "@anthropic-ai/claude-code@2.1.197")
	// Installed with --ignore-scripts: the package's own installer puts its native binary in place.
	if _, err := os.Stat(filepath.Join(modules, ".claude-installed")); err != nil {
		cmd := exec.Command("node", filepath.Join(modules, "node_modules", "@anthropic-ai", "claude-code", "install.cjs"))
		cmd.Dir = modules
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("claude-code install.cjs: %v\n%s", err, out)
		}
		_ = os.WriteFile(filepath.Join(modules, ".claude-installed"), nil, 0o600)
	}
	return modules
}

func TestClaudeCodeAnswersThroughTheFake(t *testing.T) {
	modules := claudeCode(t)
	_, key := account(t, h.base, 200_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	out := runCLI(t, modules, "claude", t.TempDir(), []string{
		"ANTHROPIC_BASE_URL=" + h.base + "/api", "ANTHROPIC_AUTH_TOKEN=" + key,
	}, "-p", "Say hi.")
	if !strings.Contains(out, "tok0") {
		t.Fatalf("claude -p printed no answer of the fake's:\n%s", out)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; after >= before {
		t.Fatalf("not billed: %d → %d", before, after)
	}
}

// Claude Code asks for max_tokens 64,000, which a 20 ₽ key ceiling or a
// 10 ₽ balance cannot hold at the output price: it is served with the cap
// lowered to what it can pay for, never past the ceiling or the balance.
// The model is Haiku 4.5 (ANTHROPIC_MODEL, as docs/clients.md says): at the
// test rate (100 ₽ a dollar, K 1) Claude Code's own prompt, some 30,000
// tokens of tools and instructions, holds 30 ₽ at an Opus's dearest
// prompt price (10 USD a million, a one-hour cache write).
func TestClaudeCodeAnswersWithinWhatItCanAfford(t *testing.T) {
	modules := claudeCode(t)
	const (
		claudeCodeAsks = 64_000 // http/testdata/agents/claude-code-2.1.197.json
		// ../shared/data/litellm-model-prices.json "claude-haiku-4-5": output 5e-06 USD a token,
		// × 100 ₽ × K 1 × 100,000 credits a ruble.
		haikuOutputCredits = 50
	)
	for _, tc := range []struct {
		name    string
		credits int64
		keyBody map[string]any
		limit   int64 // what may be spent: the ceiling or the balance
	}{
		{"key ceiling 20 ₽", 100_000_000, map[string]any{"name": "agent", "limit": 2_000_000, "limit_reset": "month"}, 2_000_000},
		{"balance 10 ₽", 1_000_000, nil, 1_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := fmt.Sprintf("afford-%d", counter.Add(1))
			var mu sync.Mutex
			var caps []int64
			see := func(r *http.Request, body []byte) {
				if !bytes.Contains(body, []byte(marker)) {
					return
				}
				var b struct {
					MaxTokens           int64 `json:"max_tokens"`
					MaxCompletionTokens int64 `json:"max_completion_tokens"`
				}
				_ = json.Unmarshal(body, &b)
				mu.Lock()
				caps = append(caps, max(b.MaxTokens, b.MaxCompletionTokens))
				mu.Unlock()
			}
			onFakeRequest.Store(&see)
			defer onFakeRequest.Store(nil)
			_, key := account(t, h.base, tc.credits, tc.keyBody)
			before := balance(t, h.base, key).Data.TotalCredits
			out := runCLI(t, modules, "claude", t.TempDir(), []string{
				"ANTHROPIC_BASE_URL=" + h.base + "/api", "ANTHROPIC_AUTH_TOKEN=" + key, "ANTHROPIC_MODEL=claude-haiku-4-5",
			}, "-p", "Say hi. "+marker)
			if !strings.Contains(out, "tok0") {
				t.Fatalf("claude -p printed no answer of the fake's:\n%s", out)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(caps) == 0 {
				t.Fatal("the fake upstream saw no request of the CLI's")
			}
			for _, c := range caps {
				if c < 1 || c >= claudeCodeAsks || c*haikuOutputCredits > tc.limit {
					t.Fatalf("the upstream was asked for max_tokens %v, want each below %d and within %d credits at %d a token",
						caps, claudeCodeAsks, tc.limit, haikuOutputCredits)
				}
			}
			b := balance(t, h.base, key).Data
			var k keyView
			call(t, h.base, "GET", "/api/v1/key", key, nil, &k)
			spent := before - b.TotalCredits
			if spent <= 0 || spent > tc.limit || k.Data.Usage != spent || b.TotalCredits < 0 || b.Reserved != 0 {
				t.Fatalf("spent %d of %d (key usage %d), balance %d, reserved %d", spent, tc.limit, k.Data.Usage, b.TotalCredits, b.Reserved)
			}
			t.Logf("upstream max_tokens %v, charged %d credits", caps, spent)
		})
	}
}

func TestCodexAnswersThroughTheFake(t *testing.T) {
	modules := npmInstall(t, "@openai/codex@0.171.0")
	_, key := account(t, h.base, 200_000_000, nil)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	config := `model = "openai/gpt-5"
model_provider = "shlyuz"

[model_providers.shlyuz]
name = "Shlyuz"
base_url = "` + h.base + `/api/v1"
env_key = "SHLYUZ_API_KEY"
wire_api = "responses"
`
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	before := balance(t, h.base, key).Data.TotalCredits
	out := runCLI(t, modules, "codex", home, []string{"SHLYUZ_API_KEY=" + key}, "exec", "--skip-git-repo-check", "Say hi.")
	if !strings.Contains(out, "tok0") {
		t.Fatalf("codex exec printed no answer of the fake's:\n%s", out)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; after >= before {
		t.Fatalf("not billed: %d → %d", before, after)
	}
}

// geminiCLI is Gemini CLI as npm ships it, pinned.
const geminiCLI = "@google/gemini-cli@0.61.0"

// geminiHome is a home with docs/clients.md's settings for Gemini CLI.
func geminiHome(t *testing.T) string {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// geminiEnv is docs/clients.md's environment for Gemini CLI.
func geminiEnv(key, model string) []string {
	return []string{"GOOGLE_GEMINI_BASE_URL=" + h.base + "/api/v1", "GEMINI_API_KEY=" + key, "GEMINI_MODEL=" + model,
		"GEMINI_CLI_TRUST_WORKSPACE=true"}
}

// Gemini CLI with docs/clients.md's setup: the base URL and key in the
// environment, API-key sign-in chosen in ~/.gemini/settings.json (0.61 reads
// GOOGLE_GEMINI_BASE_URL as its "gateway" sign-in, which its headless mode
// then refuses), a model named, the folder trusted. It answers through a
// Gemini upstream (its request as it came) and through an OpenAI one
// (translated), and is billed.
func TestGeminiCLIAnswersThroughTheFake(t *testing.T) {
	modules := npmInstall(t, geminiCLI)
	for _, model := range []string{"gemini-2.5-flash", "test/model"} {
		t.Run(model, func(t *testing.T) {
			_, key := account(t, h.base, 200_000_000, nil)
			before := balance(t, h.base, key).Data.TotalCredits
			out := runCLI(t, modules, "gemini", geminiHome(t), geminiEnv(key, model), "-p", "Say hi.")
			if !strings.Contains(out, "tok0") {
				t.Fatalf("gemini -p printed no answer of the fake's:\n%s", out)
			}
			if after := balance(t, h.base, key).Data.TotalCredits; after >= before {
				t.Fatalf("not billed: %d → %d", before, after)
			}
		})
	}
}

// An account that cannot pay is told so by Gemini CLI, at once: the 429
// RESOURCE_EXHAUSTED says "limit: 0", which it takes as final instead of
// retrying, and shows the gateway's message.
func TestGeminiCLISaysTheBalanceIsOut(t *testing.T) {
	modules := npmInstall(t, geminiCLI)
	_, key := account(t, h.base, 0, nil)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	home := geminiHome(t)
	cmd := exec.CommandContext(ctx, filepath.Join(modules, "node_modules", ".bin", "gemini"), "-p", "Say hi.")
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "NO_COLOR=1"}, geminiEnv(key, "gemini-2.5-flash")...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("gemini -p with no credits: %v (%s)\n%s", err, time.Since(start), out)
	}
	if !strings.Contains(string(out), "Insufficient credits") {
		t.Fatalf("gemini -p did not say why:\n%s", out)
	}
	t.Logf("gemini -p gave up in %s:\n%s", time.Since(start), out)
}
