// Package cbr reads the Central Bank of Russia's daily exchange rates (its
// XML feed: windows-1251, decimal commas) and keeps the gateway's rate of the
// US dollar up to date: every change recorded, the last good rate kept when
// the feed fails, and never over a rate the operator pinned.
package cbr

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"golang.org/x/text/encoding/charmap"

	shlyuz "github.com/shlyuz/shlyuz"
)

// DailyURL is the Central Bank's daily feed.
const DailyURL = "https://www.cbr.ru/scripts/XML_daily.asp"

type valCurs struct {
	Date   string `xml:"Date,attr"`
	Valute []struct {
		CharCode string `xml:"CharCode"`
		Nominal  string `xml:"Nominal"`
		Value    string `xml:"Value"`
	} `xml:"Valute"`
}

// Parse reads a feed and returns the rubles per one unit of the currency (USD, EUR, …) and the feed's date.
func Parse(r io.Reader, currency string) (shlyuz.Decimal, string, error) {
	dec := xml.NewDecoder(r)
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "windows-1251") {
			return charmap.Windows1251.NewDecoder().Reader(in), nil
		}
		return nil, fmt.Errorf("cbr: unexpected charset %q", label)
	}
	var v valCurs
	if err := dec.Decode(&v); err != nil {
		return shlyuz.Decimal{}, "", fmt.Errorf("cbr: %w", err)
	}
	for _, c := range v.Valute {
		if c.CharCode != currency {
			continue
		}
		value, err := shlyuz.ParseDecimal(strings.ReplaceAll(strings.TrimSpace(c.Value), ",", "."))
		if err != nil || value.Sign() <= 0 {
			return shlyuz.Decimal{}, "", fmt.Errorf("cbr: %s value %q is not a positive number", currency, c.Value)
		}
		var nominal int64
		if _, err := fmt.Sscanf(strings.TrimSpace(c.Nominal), "%d", &nominal); err != nil || nominal <= 0 {
			return shlyuz.Decimal{}, "", fmt.Errorf("cbr: %s nominal %q is not a positive number", currency, c.Nominal)
		}
		return value.Quo(nominal), v.Date, nil
	}
	return shlyuz.Decimal{}, "", fmt.Errorf("cbr: no %s in the feed of %s", currency, v.Date)
}

// Updater moves the gateway's rate to the feed's USD rate.
type Updater struct {
	URL      string        // DailyURL when empty
	Interval time.Duration // between checks; default 1h (the feed changes once a day)
	HTTP     *http.Client
	Store    shlyuz.Store
	// Reload reprices the catalog after the stored rate changed.
	Reload func(ctx context.Context) error
	// Current is the pricing in force when none is stored yet (the config's).
	Current func() shlyuz.Pricing
	Log     *slog.Logger
	Now     func() time.Time
}

// Run checks at once, then every Interval, until ctx ends.
func (u *Updater) Run(ctx context.Context) {
	interval := u.Interval
	if interval <= 0 {
		interval = time.Hour
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := u.Once(ctx); err != nil && ctx.Err() == nil {
			u.log().Warn("cbr: the exchange rate was not updated; the last good rate stays", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (u *Updater) log() *slog.Logger {
	if u.Log == nil {
		return slog.Default()
	}
	return u.Log
}

// Once fetches the feed and applies its rate unless the operator pinned one.
// It reports whether the rate changed; on any error nothing changes.
func (u *Updater) Once(ctx context.Context) (bool, error) {
	rate, err := u.fetch(ctx)
	if err != nil {
		return false, err
	}
	// The settings are read before the pin is checked, and saved only while they are still what was read:
	// the operator records a pin before saving a rate, so a pin made at any moment of this run wins.
	st, ok, err := u.Store.Settings(ctx)
	if err != nil {
		return false, err
	}
	var prev *shlyuz.Settings
	if ok {
		read := st
		prev = &read
	} else {
		if u.Current == nil {
			return false, fmt.Errorf("cbr: no pricing to update")
		}
		st.Pricing = u.Current()
	}
	latest, err := u.Store.RateChanges(ctx, 1)
	if err != nil {
		return false, err
	}
	if len(latest) == 1 && shlyuz.Pinned(&latest[0]) {
		return false, nil
	}
	if st.Pricing.Rate.Cmp(rate) == 0 {
		// Stored already; a catalog still on another rate (a reload that
		// failed after the store was written) is reloaded now.
		if ok && u.Reload != nil && u.Current != nil && u.Current().Rate.Cmp(rate) != 0 {
			return false, u.Reload(ctx)
		}
		return false, nil
	}
	now := time.Now
	if u.Now != nil {
		now = u.Now
	}
	change := shlyuz.RateChange{ID: newID(), At: now().UTC(), By: shlyuz.RateByCBR, Old: st.Pricing.Rate, New: rate}
	st.Pricing.Rate, st.UpdatedAt = rate, change.At
	saved, err := u.Store.ReplaceSettings(ctx, prev, st)
	if err != nil {
		return false, err
	}
	if !saved { // the operator changed the settings meanwhile: the next run decides again
		return false, nil
	}
	if err := u.Store.RecordRateChange(ctx, change); err != nil {
		return false, err
	}
	u.log().Info("cbr: the exchange rate changed", "old", change.Old, "new", change.New)
	if u.Reload != nil {
		if err := u.Reload(ctx); err != nil {
			return true, err
		}
	}
	return true, nil
}

func (u *Updater) fetch(ctx context.Context) (shlyuz.Decimal, error) {
	url := u.URL
	if url == "" {
		url = DailyURL
	}
	hc := u.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return shlyuz.Decimal{}, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return shlyuz.Decimal{}, fmt.Errorf("cbr: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return shlyuz.Decimal{}, fmt.Errorf("cbr: %s answered %s", url, resp.Status)
	}
	rate, _, err := Parse(io.LimitReader(resp.Body, 1<<20), "USD")
	return rate, err
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "rate-" + hex.EncodeToString(b[:])
}
