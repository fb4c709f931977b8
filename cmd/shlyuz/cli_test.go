package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCommandLine runs the binary as a newcomer would: help exits 0, an
// unknown command says so, each admin subcommand has its own flags and help,
// bad flag values get a clear message, an unreachable gateway is named.
func TestCommandLine(t *testing.T) {
	cases := []struct {
		args   string
		exit   int
		says   string
		nosays string
	}{
		{"serve --help", 0, "-listen", ""},
		{"admin --help", 0, "create-key", "issue"},                // for users: no internal notes
		{"admin create-key --help", 0, "-limit-reset", "-rubles"}, // its own flags only
		{"admin topup --help", 0, "-idempotency-key", "-limit"},
		{"version", 0, "shlyuz", "(devel)"},
		{"frobnicate", 2, `unknown command "frobnicate"`, ""},
		{"admin frobnicate", 1, `unknown command "frobnicate"`, ""},
		{"admin create-key acc-1 --limit abc", 1, `--limit: "abc" is not a whole number`, "invalid character"},
		{"admin create-key acc-1 --limit 10 --expires-at 2027-13-01", 1, "--expires-at", "parsing time"},
		{"admin create-key acc-1 --limit-reset day", 1, "--limit-reset needs --limit", ""},
		{"admin create-key acc-1 --limit 10 --limit-reset fortnight", 1, `"fortnight" is not day, week or month`, ""},
		{"admin topup acc-1 --rubles 1 --credits 2 --idempotency-key k", 1, "exactly one of --rubles and --credits", ""},
		{"admin create-key", 1, "takes one argument", ""},
		{"admin reconcile", 1, "is unreachable", ""},
		{"health", 1, "is unreachable", ""},
		{"admin create-key acc-1 --rpm fast", 1, `--rpm: "fast" is not a whole number above 0`, ""},
		{"admin create-key --help", 0, "-tpm", ""},
		{"health --help", 0, "-live", ""},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			code, out := runCommand(t, tc.args, "http://127.0.0.1:1")
			if code != tc.exit || !strings.Contains(out, tc.says) || (tc.nosays != "" && strings.Contains(out, tc.nosays)) {
				t.Fatalf("exit %d, want %d; output must say %q (and not %q):\n%s", code, tc.exit, tc.says, tc.nosays, out)
			}
		})
	}
}

// TestHealthCommand: `shlyuz health`, a container's health check, exits 0
// for a gateway that is ready.
func TestHealthCommand(t *testing.T) {
	for _, args := range []string{"health", "health --live"} {
		if code, out := runCommand(t, args, h.base); code != 0 || strings.TrimSpace(out) != "ok" {
			t.Fatalf("%s: exit %d: %s", args, code, out)
		}
	}
}

// runCommand runs this binary as `shlyuz <args>` against the gateway at url
// and returns its exit code and output.
func runCommand(t *testing.T, args, url string) (int, string) {
	t.Helper()
	return runShlyuz(t, args, "SHLYUZ_URL="+url, "SHLYUZ_ADMIN_TOKEN=t")
}

// runShlyuz runs this binary as `shlyuz <args>` with env added to its
// environment, to its end, and returns its exit code and output.
func runShlyuz(t *testing.T, args string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "SHLYUZ_TEST_EXEC="+args), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}
