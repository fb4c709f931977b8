package main

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadSettingsPrintOneLineAndExit runs the binary with one bad setting at a
// time: each must exit 1 with one line naming the setting, never a panic.
func TestBadSettingsPrintOneLineAndExit(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "ok.db")
	config := func(name, yaml string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	damaged := filepath.Join(dir, "damaged.db") // a write-ahead log with a line that is not a record
	if err := os.WriteFile(damaged+"-ahead.1", []byte("garbage\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	up := "upstreams:\n  - {name: a, base_url: \"http://127.0.0.1:1/v1\"}\n"
	route := "routes:\n  - {match: \"*\", upstreams: [a]}\n"
	cases := []struct {
		name    string
		args    string
		env     []string
		setting string // what the line must name
		says    string // and what it must say
	}{
		{"db scheme", "--db mysql://x", nil, "--db", "must start with sqlite://"},
		{"postgres unreachable", "--db postgres://postgres@127.0.0.1:1/x?sslmode=disable", nil, "--db", "connection refused"},
		{"postgres database missing", "--db " + missingDatabase(t), nil, "--db", "does not exist"},
		{"sqlite unwritable", "--db sqlite:///proc/x.db", nil, "--db", "sqlite"},
		{"write-ahead log damaged", "--db sqlite://" + damaged, nil, "--db", "recover the write-ahead log"},
		{"time zone env", "--db " + db, []string{"SHLYUZ_TIMEZONE=Mars/Olympus"}, "timezone", "unknown time zone Mars/Olympus"},
		{"time zone config", "--db " + db + " --config " + config("tz", "timezone: Nowhere/Land\n"), nil, "timezone", "Nowhere/Land"},
		{"config missing", "--db " + db + " --config " + filepath.Join(dir, "absent.yaml"), nil, "--config", "no such file"},
		{"config unknown key", "--db " + db + " --config " + config("key", "listen: x\nlistne: x\n"), nil, "--config", `key.yaml: line 2: there is no setting "listne"`},
		{"config wrong kind", "--db " + db + " --config " + config("kind", "body_limit: lots\n"), nil, "--config", `line 1: "lots" is not valid here, it must be a whole number`},
		{"sqlite folder missing", "--db sqlite://" + filepath.Join(dir, "no", "such", "x.db"), nil, "--db", "the folder " + filepath.Join(dir, "no", "such") + " for the SQLite file does not exist"},
		{"admin token short", "--db " + db, []string{"SHLYUZ_ADMIN_TOKEN=change-me"}, "SHLYUZ_ADMIN_TOKEN", "at least 32 random characters"},
		{"admin token guessable", "--db " + db, []string{"SHLYUZ_ADMIN_TOKEN=change-me-change-me-change-me-change-me"}, "SHLYUZ_ADMIN_TOKEN", "guessable"},
		{"listen", "--db " + db + " --listen 127.0.0.1:99999", nil, "--listen", "invalid port"},
		{"protocol", "--db " + db + " --config " + config("proto", "upstreams:\n  - {name: a, base_url: \"http://x\", protocol: smoke}\n"+route), nil, "upstreams[0]", `protocol "smoke" is not supported`},
		{"route to unknown upstream", "--db " + db + " --config " + config("route", up+"routes:\n  - {match: \"*\", upstreams: [b]}\n"), nil, "routes[0].upstreams", `"b", which is not configured`},
		{"route matching no model", "--db " + db + " --config " + config("nomatch", up+"routes:\n  - {match: \"openai/*\", upstreams: [a]}\n"), nil, "routes[0].match", `the route "openai/*" matches no model`},
		{"upstream without base_url", "--db " + db + " --config " + config("nobase", "upstreams:\n  - {name: a}\n"), nil, "upstreams[0].base_url", "needs a base_url"},
		{"upstream named twice", "--db " + db + " --config " + config("twice", up+"  - {name: a, base_url: \"http://y\"}\n"), nil, "upstreams[1].name", "used by another"},
		{"journal interval", "--db " + db + " --config " + config("journal", "journal_interval: -5s\n"), nil, "journal_interval", "out of range"},
		{"plan without id", "--db " + db + " --config " + config("plan", "plans:\n  - {package_credits: 5}\n"), nil, "plans[0]", "needs an id"},
		{"pricing", "--db " + db + " --config " + config("pricing", "pricing: {rate: 0, K: 1}\n"), nil, "pricing", "above zero"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			args := tc.args
			if !strings.Contains(args, "--listen") { // never the default port, which a running gateway may hold
				args += " --listen 127.0.0.1:0"
			}
			cmd.Env = append(append(os.Environ(), "SHLYUZ_TEST_EXEC=serve "+args), tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit: %v, want status 1\n%s", err, stderr.String())
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if !strings.HasPrefix(l, "time=") { // the log's own lines
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 {
				t.Fatalf("want one line, got %d:\n%s", len(lines), stderr.String())
			}
			line := lines[0]
			if !strings.HasPrefix(line, "shlyuz: "+tc.setting) || !strings.Contains(line, tc.says) {
				t.Fatalf("line %q, want it to name %q and say %q", line, tc.setting, tc.says)
			}
		})
	}
}

// missingDatabase is a PostgreSQL DSN naming a database that does not exist
// on the server of SHLYUZ_TEST_POSTGRES (or on 127.0.0.1:5432 without it).
func missingDatabase(t *testing.T) string {
	dsn := os.Getenv("SHLYUZ_TEST_POSTGRES")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/shlyuz_no_such_database"
	return u.String()
}
