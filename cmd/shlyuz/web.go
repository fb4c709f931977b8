package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/billing"
	"github.com/shlyuz/shlyuz/http/web"
	"github.com/shlyuz/shlyuz/payments/yookassa"
	"github.com/shlyuz/shlyuz/rates/cbr"
)

// webConfig is the account area: on unless disabled.
type webConfig struct {
	Disabled bool `yaml:"disabled"`
	// PublicURL is where users reach the gateway (letters' links, the return
	// from YooKassa); default http://<listen address>.
	PublicURL string `yaml:"public_url"`
	// Secret signs email links; set it (from the environment) so links survive a restart.
	Secret string         `yaml:"secret"`
	SMTP   web.SMTPConfig `yaml:"smtp"`
	// MailboxDir is the development mailbox, used while smtp.host is empty:
	// letters are written there as .eml files; default beside the SQLite file
	// ("shlyuz.db.mailbox"), else ./shlyuz-mailbox.
	MailboxDir string `yaml:"mailbox_dir"`
}

// mailboxDir is where the development mailbox of the database db keeps letters.
func mailboxDir(cfg *Config, db string) string {
	if cfg.Web.MailboxDir != "" {
		return cfg.Web.MailboxDir
	}
	if p, ok := strings.CutPrefix(db, "sqlite://"); ok {
		p, _, _ = strings.Cut(p, "?")
		return filepath.Join(filepath.Dir(p), filepath.Base(p)+".mailbox")
	}
	return "shlyuz-mailbox"
}

// paymentsConfig is the acquirer; payments are off while shop_id is empty.
type paymentsConfig struct {
	YooKassa struct {
		ShopID         string        `yaml:"shop_id"`
		SecretKey      string        `yaml:"secret_key"`
		BaseURL        string        `yaml:"base_url"` // default https://api.yookassa.ru; the fake's URL in demos
		MinTopUpRubles int64         `yaml:"min_topup_rubles"`
		Timeout        time.Duration `yaml:"timeout"`
		// Receipts are the 54-FZ receipts: how they go (with_payment, after_payment, off) and their fields.
		Receipts billing.Receipts `yaml:"receipts"`
	} `yaml:"yookassa"`
}

// webArea builds the account area's mount, or nil when it is disabled.
func webArea(cfg *Config, gw *actors.Gateway, listen net.Addr, loc *time.Location, db string, log *slog.Logger) (*web.Web, error) {
	if cfg.Web.Disabled {
		return nil, nil
	}
	wc := web.Config{PublicURL: cfg.Web.PublicURL, Secret: []byte(cfg.Web.Secret), Location: loc, Log: log}
	if wc.PublicURL == "" {
		wc.PublicURL = "http://" + listen.String()
	}
	if cfg.Web.SMTP.Host != "" {
		wc.Mailer = &web.SMTP{Config: cfg.Web.SMTP}
	} else {
		dir, err := filepath.Abs(mailboxDir(cfg, db))
		if err != nil {
			return nil, err
		}
		wc.Mailer = &web.Mailbox{Dir: dir, Log: log}
		log.Warn("web: no smtp.host configured: letters (confirmation, password reset) are written to the development mailbox, and their links to this log",
			"mailbox", dir)
	}
	if y := cfg.Payments.YooKassa; y.ShopID != "" {
		if y.SecretKey == "" {
			return nil, fmt.Errorf("payments.yookassa.secret_key is empty")
		}
		timeout := y.Timeout
		if timeout <= 0 {
			timeout = 30 * time.Second
		}
		yk := &yookassa.Client{BaseURL: y.BaseURL, ShopID: y.ShopID, SecretKey: y.SecretKey, HTTP: &http.Client{Timeout: timeout}}
		b, err := billing.New(gw, billing.Config{YooKassa: yk, Receipts: y.Receipts, PublicURL: wc.PublicURL,
			MinTopUpKopecks: y.MinTopUpRubles * 100, Log: log})
		if err != nil {
			return nil, fmt.Errorf("payments.yookassa.%v", err)
		}
		wc.Billing = b
		log.Info("web: payments through YooKassa are on", "shop", y.ShopID, "base_url", yk.BaseURL, "receipts", b.ReceiptMode())
	} else {
		log.Info("web: payments are off (payments.yookassa.shop_id is empty); operator top-ups still work")
	}
	w, err := web.New(gw, wc)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// rateConfig is the exchange-rate updater: off unless source is cbr.
type rateConfig struct {
	Source   string        `yaml:"source"`   // "cbr": the Central Bank's daily USD rate; empty: the operator's rate only
	URL      string        `yaml:"url"`      // default the Central Bank's XML_daily.asp
	Interval time.Duration `yaml:"interval"` // default 1h
}

// startRates runs the exchange-rate updater when configured; the returned func stops it.
func startRates(cfg *Config, gw *actors.Gateway, log *slog.Logger) (func(), error) {
	switch cfg.ExchangeRate.Source {
	case "":
		return func() {}, nil
	case "cbr":
	default:
		return nil, fmt.Errorf("exchange_rate.source is cbr or empty, not %q", cfg.ExchangeRate.Source)
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &cbr.Updater{URL: cfg.ExchangeRate.URL, Interval: cfg.ExchangeRate.Interval, Store: gw.Store(), Reload: gw.ReloadCatalog,
		Current: func() shlyuz.Pricing { return gw.Catalog().Pricing }, Log: log}
	done := make(chan struct{})
	go func() { defer close(done); u.Run(ctx) }()
	log.Info("the exchange rate follows the Central Bank's daily USD rate (unless the operator pins one)")
	return func() { cancel(); <-done }, nil
}
