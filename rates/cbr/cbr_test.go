package cbr_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/sqlite"
	"github.com/shlyuz/shlyuz/rates/cbr"
)

func feed(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/XML_daily.asp")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ currency, want string }{{"USD", "81.5075"}, {"EUR", "93.8613"}, {"CNY", "11.4254"}} {
		rate, date, err := cbr.Parse(strings.NewReader(string(feed(t))), tc.currency)
		if err != nil || rate.String() != tc.want || date != "25.11.2026" {
			t.Errorf("Parse(%s) = %s %s %v; want %s", tc.currency, rate, date, err, tc.want)
		}
	}
	for _, bad := range []string{"", "<ValCurs></ValCurs>", `<?xml version="1.0" encoding="koi8-r"?><ValCurs/>`,
		`<ValCurs><Valute><CharCode>USD</CharCode><Nominal>1</Nominal><Value>abc</Value></Valute></ValCurs>`,
		`<ValCurs><Valute><CharCode>USD</CharCode><Nominal>0</Nominal><Value>1,0</Value></Valute></ValCurs>`} {
		if _, _, err := cbr.Parse(strings.NewReader(bad), "USD"); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// TestUpdater: against a local server with a real-format feed, a real SQLite store.
func TestUpdater(t *testing.T) {
	var broken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/xml; charset=windows-1251")
		_, _ = w.Write(feed(t))
	}))
	defer srv.Close()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "rates.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var reloads atomic.Int32
	var reloadFails atomic.Bool                                                             // the next reload fails (after the store was written)
	current := shlyuz.Pricing{Rate: shlyuz.MustDecimal("90"), K: shlyuz.MustDecimal("1.2")} // the catalog's
	u := &cbr.Updater{URL: srv.URL, Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Reload: func(ctx context.Context) error {
			reloads.Add(1)
			if reloadFails.Swap(false) {
				return errors.New("reload failed")
			}
			st, _, err := store.Settings(ctx)
			current = st.Pricing
			return err
		},
		Current: func() shlyuz.Pricing { return current }}

	rate := func() string {
		st, _, err := store.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Pricing.Rate.String() + " K " + st.Pricing.K.String()
	}
	steps := []struct {
		name    string
		before  func()
		changed bool
		fails   bool
		want    string
		changes int
	}{
		{"first fetch", nil, true, false, "81.5075 K 1.2", 1},
		{"same rate again", nil, false, false, "81.5075 K 1.2", 1},
		{"the feed is down: the last good rate stays", func() { broken.Store(true) }, false, true, "81.5075 K 1.2", 1},
		{"the operator pins a rate", func() {
			broken.Store(false)
			st, _, _ := store.Settings(ctx)
			old := st.Pricing.Rate
			st.Pricing.Rate = shlyuz.MustDecimal("100")
			_ = store.SaveSettings(ctx, st)
			_ = store.RecordRateChange(ctx, shlyuz.RateChange{ID: "pin", At: time.Now(), By: shlyuz.RateByOperator, Old: old, New: st.Pricing.Rate})
		}, false, false, "100 K 1.2", 2},
		{"unpinned: the feed moves it again", func() {
			_ = store.RecordRateChange(ctx, shlyuz.RateChange{ID: "unpin", At: time.Now(), By: shlyuz.RateByUnpin,
				Old: shlyuz.MustDecimal("100"), New: shlyuz.MustDecimal("100")})
		}, true, false, "81.5075 K 1.2", 4},
		{"the operator pins a rate again, and unpins it", func() {
			st, _, _ := store.Settings(ctx)
			st.Pricing.Rate = shlyuz.MustDecimal("100")
			_ = store.SaveSettings(ctx, st)
			current = st.Pricing // the operator's change reprices the catalog
			_ = store.RecordRateChange(ctx, shlyuz.RateChange{ID: "pin2", At: time.Now(), By: shlyuz.RateByOperator, Old: shlyuz.MustDecimal("81.5075"), New: st.Pricing.Rate})
			_ = store.RecordRateChange(ctx, shlyuz.RateChange{ID: "unpin2", At: time.Now().Add(time.Microsecond), By: shlyuz.RateByUnpin,
				Old: shlyuz.MustDecimal("100"), New: shlyuz.MustDecimal("100")})
			reloadFails.Store(true) // the rate is stored, the catalog not repriced
		}, true, true, "81.5075 K 1.2", 7},
		{"the catalog left on the old rate is repriced at the next check", nil, false, false, "81.5075 K 1.2", 7},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		changed, err := u.Once(ctx)
		if changed != s.changed || (err != nil) != s.fails {
			t.Fatalf("%s: changed %v, err %v", s.name, changed, err)
		}
		if got := rate(); got != s.want {
			t.Fatalf("%s: rate %s; want %s", s.name, got, s.want)
		}
		cs, _ := store.RateChanges(ctx, 100)
		if len(cs) != s.changes {
			t.Fatalf("%s: %d changes recorded; want %d", s.name, len(cs), s.changes)
		}
	}
	cs, _ := store.RateChanges(ctx, 1)
	if cs[0].By != shlyuz.RateByCBR || cs[0].Old.String() != "100" || cs[0].New.String() != "81.5075" {
		t.Fatalf("the last change %+v", cs[0])
	}
	if reloads.Load() != 4 || current.Rate.String() != "81.5075" {
		t.Fatalf("the catalog was repriced %d times (want 4) and is at %s", reloads.Load(), current.Rate)
	}
}

// pinAfterCheck is a store on which the operator pins a rate right after the updater has looked for a pin.
type pinAfterCheck struct {
	*sqlite.Store
	pinned bool
}

func (s *pinAfterCheck) RateChanges(ctx context.Context, limit int) ([]shlyuz.RateChange, error) {
	cs, err := s.Store.RateChanges(ctx, limit)
	if err != nil || s.pinned {
		return cs, err
	}
	s.pinned = true
	st, _, err := s.Settings(ctx)
	if err != nil {
		return nil, err
	}
	old := st.Pricing.Rate
	st.Pricing.Rate, st.UpdatedAt = shlyuz.MustDecimal("100"), time.Now()
	// as the operator API does: the pin is recorded first, then the rate saved
	if err := s.RecordRateChange(ctx, shlyuz.RateChange{ID: "pin", At: st.UpdatedAt, By: shlyuz.RateByOperator, Old: old, New: st.Pricing.Rate}); err != nil {
		return nil, err
	}
	return cs, s.SaveSettings(ctx, st)
}

// TestUpdaterLosesToAPinMadeMeanwhile: a pin that lands between the updater's check and its save wins.
func TestUpdaterLosesToAPinMadeMeanwhile(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(feed(t)) }))
	defer srv.Close()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "rates.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SaveSettings(ctx, shlyuz.Settings{Pricing: shlyuz.Pricing{Rate: shlyuz.MustDecimal("90"), K: shlyuz.MustDecimal("1")}, UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	store := &pinAfterCheck{Store: db}
	u := &cbr.Updater{URL: srv.URL, Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	changed, err := u.Once(ctx)
	if err != nil || changed {
		t.Fatalf("Once = %v, %v; want no change", changed, err)
	}
	st, _, err := db.Settings(ctx)
	if err != nil || st.Pricing.Rate.String() != "100" {
		t.Fatalf("rate %v (%v); want the pinned 100", st.Pricing.Rate, err)
	}
	if cs, _ := db.RateChanges(ctx, 10); len(cs) != 1 || cs[0].By != shlyuz.RateByOperator {
		t.Fatalf("changes %+v; want the pin alone", cs)
	}
}
