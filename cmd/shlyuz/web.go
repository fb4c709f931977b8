package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/web"
	"github.com/shlyuz/shlyuz/payments/yookassa"
)

// webConfig is the account area (issue 12): on unless disabled.
type webConfig struct {
	Disabled bool `yaml:"disabled"`
	// PublicURL is where users reach the gateway (letters' links, the return
	// from YooKassa); default http://<listen address>.
	PublicURL string `yaml:"public_url"`
	// Secret signs email links; set it (from the environment) so links survive a restart.
	Secret string         `yaml:"secret"`
	SMTP   web.SMTPConfig `yaml:"smtp"`
}

// paymentsConfig is the acquirer; payments are off while shop_id is empty.
type paymentsConfig struct {
	YooKassa struct {
		ShopID         string        `yaml:"shop_id"`
		SecretKey      string        `yaml:"secret_key"`
		BaseURL        string        `yaml:"base_url"` // default https://api.yookassa.ru; the fake's URL in demos
		MinTopUpRubles int64         `yaml:"min_topup_rubles"`
		Timeout        time.Duration `yaml:"timeout"`
	} `yaml:"yookassa"`
}

// webArea builds the account area's mount, or nil when it is disabled.
func webArea(cfg *Config, gw *actors.Gateway, listen net.Addr, loc *time.Location, log *slog.Logger) (func(*fiber.App, func(*fiber.Ctx, string) error), error) {
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
		log.Warn("web: no smtp.host configured: confirmation and reset letters are not sent")
	}
	if y := cfg.Payments.YooKassa; y.ShopID != "" {
		if y.SecretKey == "" {
			return nil, fmt.Errorf("payments.yookassa.secret_key is empty")
		}
		timeout := y.Timeout
		if timeout <= 0 {
			timeout = 30 * time.Second
		}
		wc.YooKassa = &yookassa.Client{BaseURL: y.BaseURL, ShopID: y.ShopID, SecretKey: y.SecretKey, HTTP: &http.Client{Timeout: timeout}}
		wc.MinTopUpKopecks = y.MinTopUpRubles * 100
		log.Info("web: payments through YooKassa are on", "shop", y.ShopID, "base_url", wc.YooKassa.BaseURL)
	} else {
		log.Info("web: payments are off (payments.yookassa.shop_id is empty); operator top-ups still work")
	}
	w, err := web.New(gw, wc)
	if err != nil {
		return nil, err
	}
	return w.Mount, nil
}
