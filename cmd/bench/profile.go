package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// cpuProfile fetches the built-in gateway's CPU profile over the next
// seconds (GET /debug/pprof/profile, with the admin token) into
// {-cpuprofile}-{name}.pprof, in the background; the returned wait blocks
// until it is written. Without -cpuprofile, or with -target, it does nothing.
func (b *bench) cpuProfile(ctx context.Context, name string, seconds int) (wait func()) {
	if b.o.cpuProfile == "" || b.adminToken == "" {
		return func() {}
	}
	root := strings.TrimSuffix(metricsURL(firstBase(b.gwBase)), "/metrics")
	return b.profileAt(ctx, root, b.adminToken, name, seconds)
}

// profileAt fetches the CPU profile of the gateway at root
// (http://HOST:PORT) over the next seconds into {-cpuprofile}-{name}.pprof,
// in the background; the returned wait blocks until it is written.
func (b *bench) profileAt(ctx context.Context, root, token, name string, seconds int) (wait func()) {
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", root, max(1, seconds))
	path := b.o.cpuProfile + "-" + name + ".pprof"
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := fetchTo(ctx, b.ctl, url, token, path, time.Duration(seconds+30)*time.Second); err != nil {
			b.logf("   cpu profile %s: %v", name, err)
			return
		}
		b.logf("   cpu profile %s: %s", name, path)
	}()
	return func() { <-done }
}

// fetchTo writes the body of GET url (with a bearer token) to path.
func fetchTo(ctx context.Context, c *http.Client, url, token, path string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// journalBatches reads one of the built-in gateway's journal histograms
// (shlyuz_journal_batch_size: rows per commit; shlyuz_journal_log_write_records:
// records per write-ahead log write): its sum and count so far (ok false
// without the metric).
func (b *bench) journalBatches(metric string) (sum, count float64, ok bool) {
	if b.adminToken == "" {
		return 0, 0, false
	}
	url := metricsURL(firstBase(b.gwBase))
	sum, why := scrapeMetric(b.ctl, url, b.adminToken, metric+"_sum")
	if why != "" {
		return 0, 0, false
	}
	count, why = scrapeMetric(b.ctl, url, b.adminToken, metric+"_count")
	return sum, count, why == ""
}
