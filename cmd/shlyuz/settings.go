package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// settingError is a start-up failure caused by one setting: it prints as one
// line that names the setting (the flag, variable or config key to change).
type settingError struct {
	setting string
	err     error
}

func (e *settingError) Error() string {
	return e.setting + ": " + oneLine(e.err.Error())
}

func (e *settingError) Unwrap() error { return e.err }

// bad names the setting an error came from (nil stays nil).
func bad(setting string, err error) error {
	if err == nil {
		return nil
	}
	var se *settingError
	if errors.As(err, &se) {
		return err
	}
	return &settingError{setting: setting, err: err}
}

// oneLine folds a multi-line message (a driver's, say) onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r\n", "; ", "\n", "; ").Replace(s)), " ")
}

// actorIdle is the configured idle time before passivation: 10 minutes by
// default, never for a negative one.
func actorIdle(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return 10 * time.Minute
	case d < 0:
		return 0
	}
	return d
}

// storeOpenTimeout bounds connecting to the database at start, so an
// unreachable host is reported instead of hanging the start.
const storeOpenTimeout = 15 * time.Second

// validateConfig checks what can be checked before anything is opened, naming
// the config key of each mistake.
func validateConfig(cfg *Config) error {
	if cfg.JournalInterval < 0 || cfg.JournalInterval > time.Second {
		return bad("journal_interval", fmt.Errorf("%s is out of range (0 for the default 50ms, at most 1s)", cfg.JournalInterval))
	}
	if cfg.Heartbeat < 0 {
		return bad("heartbeat", fmt.Errorf("%s is negative", cfg.Heartbeat))
	}
	if err := cfg.Tracing.Check(); err != nil {
		return bad("tracing", err)
	}
	if cfg.BodyLimit < 0 {
		return bad("body_limit", fmt.Errorf("%d is negative", cfg.BodyLimit))
	}
	if cfg.MaxKeysPerAccount < 0 || cfg.MaxKeysPerAccount > 1_000_000 {
		return bad("max_keys_per_account", fmt.Errorf("%d is out of range (0 for the default 1000, at most 1000000)", cfg.MaxKeysPerAccount))
	}
	if h := cfg.HTTP; h.HeaderTimeout < 0 || h.IdleTimeout < 0 || h.BodyGrace < 0 || h.MinBodyRate < 0 || h.MaxConnections < 0 {
		return bad("http", errors.New("timeouts, min_body_rate and max_connections cannot be negative"))
	}
	if p := cfg.Pricing; p != nil {
		if err := shlyuz.CheckPricing(shlyuz.Pricing{Rate: p.Rate, K: p.K}); err != nil {
			return bad("pricing", errors.New(err.Message))
		}
	}
	for i, p := range cfg.Plans {
		if p.ID == "" || p.PackageCredits <= 0 || p.PackageCredits > shlyuz.MaxCredits {
			return bad(fmt.Sprintf("plans[%d]", i), fmt.Errorf("every plan needs an id and package_credits above zero and at most %d", shlyuz.MaxCredits))
		}
	}
	names := map[string]bool{}
	for i, u := range cfg.Upstreams {
		at := fmt.Sprintf("upstreams[%d]", i)
		switch {
		case u.Name == "":
			return bad(at+".name", errors.New("every upstream needs a name"))
		case names[u.Name]:
			return bad(at+".name", fmt.Errorf("the name %q is used by another upstream", u.Name))
		case u.BaseURL == "":
			return bad(at+".base_url", fmt.Errorf("the upstream %q needs a base_url", u.Name))
		case !strings.HasPrefix(u.BaseURL, "http://") && !strings.HasPrefix(u.BaseURL, "https://"):
			return bad(at+".base_url", fmt.Errorf("%q is not an http:// or https:// URL", u.BaseURL))
		case u.PriceMultiplier.Sign() < 0:
			return bad(at+".price_multiplier", fmt.Errorf("%s is negative", u.PriceMultiplier))
		case u.MaxConcurrent < 0:
			return bad(at+".max_concurrent", fmt.Errorf("%d is negative", u.MaxConcurrent))
		}
		names[u.Name] = true
	}
	for i, r := range cfg.Routes {
		at := fmt.Sprintf("routes[%d]", i)
		if r.Match == "" {
			return bad(at+".match", errors.New("every route needs a match (a model id, a prefix ending in /, or *)"))
		}
		if len(r.Upstreams) == 0 {
			return bad(at+".upstreams", fmt.Errorf("the route %q names no upstream", r.Match))
		}
		for _, n := range r.Upstreams {
			if !names[n] {
				return bad(at+".upstreams", fmt.Errorf("the route %q names the upstream %q, which is not configured", r.Match, n))
			}
		}
	}
	for i, m := range cfg.Models {
		if m.ID == "" {
			return bad(fmt.Sprintf("models[%d].id", i), errors.New("every model needs an id"))
		}
		if err := m.CheckPrice(); err != nil {
			return bad(fmt.Sprintf("models[%d] (%s)", i, m.ID), errors.New(err.Message))
		}
		if err := shlyuz.CheckLifecycle(m.ID, m.Lifecycle); err != nil {
			return bad(fmt.Sprintf("models[%d] (%s)", i, m.ID), err)
		}
	}
	return nil
}

// checkRoutes refuses a route that matches no model of the catalog (a
// pattern such as openai/* silently served nothing), naming it.
func checkRoutes(routes []shlyuz.Route, models []shlyuz.Model) error {
	for i, r := range routes {
		matched := false
		for _, m := range models {
			if ok, _ := r.Matches(m.ID); ok {
				matched = true
				break
			}
		}
		if !matched {
			return bad(fmt.Sprintf("routes[%d].match", i), fmt.Errorf("the route %q matches no model of the catalog: name a model id, "+
				"a prefix ending in / (such as openai/), or * for every model", r.Match))
		}
	}
	return nil
}

// minAdminToken is the shortest admin token the gateway starts with.
const minAdminToken = 32

// checkAdminToken refuses an operator token that can be guessed: shorter
// than minAdminToken, or of a few characters repeated (change-me-change-me…).
// An empty one leaves the operator API off.
func checkAdminToken(tok string) error {
	if tok == "" {
		return nil
	}
	const how = "; make one with: openssl rand -hex 32"
	if len(tok) < minAdminToken {
		return bad("SHLYUZ_ADMIN_TOKEN", fmt.Errorf("the admin token is %d characters long; it must be at least %d random characters%s", len(tok), minAdminToken, how))
	}
	distinct := map[rune]bool{}
	for _, r := range strings.ToLower(tok) {
		distinct[r] = true
	}
	if len(distinct) < 10 || strings.Contains(strings.ToLower(tok), "change") {
		return bad("SHLYUZ_ADMIN_TOKEN", errors.New("the admin token is a well-known or guessable one; use random characters"+how))
	}
	return nil
}

// sqliteFolder says plainly when the folder of a SQLite file is missing (the
// driver says only "unable to open database file").
func sqliteFolder(path string) error {
	file, _, _ := strings.Cut(path, "?")
	dir := filepath.Dir(file)
	if file == "" || strings.HasPrefix(file, ":memory:") || strings.HasPrefix(file, "file:") {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the folder %s for the SQLite file does not exist; create it (mkdir -p %s) or choose another path", dir, dir)
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s, where the SQLite file should go, is not a folder", dir)
	}
	return nil
}

// openStoreSetting opens the store named by --db within storeOpenTimeout.
func openStoreSetting(ctx context.Context, dsn string) (shlyuz.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, storeOpenTimeout)
	defer cancel()
	s, err := openStore(ctx, dsn)
	if err != nil {
		return nil, bad("--db (SHLYUZ_DB, db in the config)", redactErr(err, dsn))
	}
	return s, nil
}

// redactErr keeps a DSN's password out of an error message.
func redactErr(err error, dsn string) error {
	if r := redactDSN(dsn); r != dsn && strings.Contains(err.Error(), dsn) {
		return errors.New(strings.ReplaceAll(err.Error(), dsn, r))
	}
	return err
}

// warnUpstreams logs what is likely a mistake in the upstreams: an
// api_key_env that is not set, an upstream that no route uses.
func warnUpstreams(log *slog.Logger, ups []shlyuz.UpstreamConfig, routes []shlyuz.Route) {
	used := map[string]bool{}
	for _, r := range routes {
		for _, n := range r.Upstreams {
			used[n] = true
		}
	}
	for _, u := range ups {
		if u.APIKeyEnv != "" && os.Getenv(u.APIKeyEnv) == "" {
			log.Warn("upstream "+u.Name+": its api_key_env is not set, so it gets no key", "api_key_env", u.APIKeyEnv)
		}
		if !used[u.Name] {
			log.Warn("upstream " + u.Name + ": no route uses it")
		}
	}
}

// corsOrigins are the browser origins allowed: SHLYUZ_CORS_ORIGINS
// (comma-separated) over the config's; none given: any.
func corsOrigins(fromConfig []string) []string {
	if v := os.Getenv("SHLYUZ_CORS_ORIGINS"); v != "" {
		return strings.Split(v, ",")
	}
	return fromConfig
}
