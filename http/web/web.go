// Package web is the account area: server-rendered pages (html/template,
// embedded) on the gateway's own listener, in Russian with English. Users
// register, confirm their email, log in, top up and buy plans through
// YooKassa, manage their API keys and see their activity. Nothing here moves
// money itself: payments go through billing, balances through the gateway's
// account actor (actors.Gateway).
package web

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/billing"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Config tunes the area.
type Config struct {
	// PublicURL is where users reach the gateway (links in letters, YooKassa's return_url).
	PublicURL string
	// Secret signs confirmation and reset links; a random one when empty (links die with the process).
	Secret []byte
	Mailer Mailer
	// Billing takes payments; nil or off: the top-up page says payments are off.
	Billing *billing.Service
	// Location is the zone of key periods and dates shown; default Europe/Moscow.
	Location *time.Location
	Log      *slog.Logger
	Now      func() time.Time
}

// Web is the account area.
type Web struct {
	gw       *actors.Gateway
	store    shlyuz.Store
	cfg      Config
	pages    map[string]*template.Template
	links    signer
	throttle *throttle
	log      *slog.Logger
	chatAs   func(c *fiber.Ctx, keyHash string) error
}

// The session's lifetime, and the throttle's window and ceilings.
const (
	sessionTTL      = 30 * 24 * time.Hour
	throttleWindow  = 15 * time.Minute
	maxFailsAccount = 5
	maxFailsAddress = 20
)

// New builds the area over the gateway.
func New(gw *actors.Gateway, cfg Config) (*Web, error) {
	if len(cfg.Secret) == 0 {
		cfg.Secret = randomBytes(32)
	}
	if cfg.Location == nil {
		loc, err := time.LoadLocation("Europe/Moscow")
		if err != nil {
			loc = time.FixedZone("MSK", 3*3600)
		}
		cfg.Location = loc
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.Billing == nil {
		b, err := billing.New(gw, billing.Config{Log: cfg.Log, Now: cfg.Now})
		if err != nil {
			return nil, err
		}
		cfg.Billing = b
	}
	w := &Web{gw: gw, store: gw.Store(), cfg: cfg, links: signer{cfg.Secret}, throttle: newThrottle(throttleWindow), log: cfg.Log}
	if err := w.parse(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Web) parse() error {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return err
	}
	w.pages = map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", n)
		if err != nil {
			return err
		}
		w.pages[base] = t
	}
	return nil
}

// Mount registers the area's routes on the app (before the gateway's catch-all
// 404); the web chat answers through chat, the API's own chat path.
func (w *Web) Mount(app *fiber.App, chat func(c *fiber.Ctx, keyHash string) error) {
	w.chatAs = chat
	app.Get("/static/*", w.static)
	app.Post("/payments/yookassa/notify", w.notify) // the acquirer's call: no session, no CSRF
	r := app.Group("/", w.session, w.htmlErrors)
	r.Get("/", w.landing)
	r.Get("/models/*", w.modelPage)
	r.Get("/register", w.registerPage)
	r.Post("/register", w.csrf, w.register)
	r.Get("/confirm", w.confirm)
	r.Get("/login", w.loginPage)
	r.Post("/login", w.csrf, w.login)
	r.Post("/logout", w.csrf, w.logout)
	r.Get("/reset", w.resetPage)
	r.Post("/reset", w.csrf, w.resetRequest)
	r.Get("/reset/confirm", w.resetConfirmPage)
	r.Post("/reset/confirm", w.csrf, w.resetConfirm)

	a := r.Group("/account", w.requireLogin)
	a.Get("/", w.overview)
	a.Get("/keys", w.keysPage)
	a.Post("/keys", w.csrf, w.createKey)
	a.Post("/keys/:id/revoke", w.csrf, w.revokeKey)
	a.Post("/keys/:id/limit", w.csrf, w.setKeyLimit)
	a.Get("/activity", w.activity)
	a.Get("/activity.csv", w.activityCSV)
	a.Get("/topup", w.topUpPage)
	a.Post("/topup", w.csrf, w.topUp)
	a.Get("/plans", w.plansPage)
	a.Post("/plans/:id", w.csrf, w.buyPlan)
	a.Get("/payments/:id", w.paymentPage)
	a.Get("/chat", w.chatPage)
	a.Post("/chat", w.csrfHeader, w.chatSend)
	a.Get("/chat/conversations", w.conversations)
	a.Post("/chat/conversations", w.csrfHeader, w.createConversation)
	a.Get("/chat/conversations/:id", w.conversation)
	a.Put("/chat/conversations/:id", w.csrfHeader, w.saveConversation)
	a.Delete("/chat/conversations/:id", w.csrfHeader, w.deleteConversation)
	a.Post("/chat/conversations/:id/delete", w.csrf, w.deleteConversationForm)
	app.Use(w.notFound) // after every route: a page nobody serves
}

func (w *Web) static(c *fiber.Ctx) error {
	b, err := staticFiles.ReadFile("static/" + c.Params("*"))
	if err != nil {
		return fiber.ErrNotFound
	}
	switch {
	case strings.HasSuffix(c.Params("*"), ".js"):
		c.Type("js")
	case strings.HasSuffix(c.Params("*"), ".css"):
		c.Type("css")
	case strings.HasSuffix(c.Params("*"), ".svg"):
		c.Set(fiber.HeaderContentType, "image/svg+xml")
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.Send(b)
}

// page is what every template gets.
type page struct {
	Lang    string
	Title   string
	Account *shlyuz.Account
	CSRF    string
	Notice  string
	Error   string
	Path    string
	Loc     *time.Location
	Data    any
}

// T is a message in the page's language.
func (p *page) T(key string) string { return tr(p.Lang, key) }

// Tf is a message with arguments.
func (p *page) Tf(key string, args ...any) string { return fmt.Sprintf(tr(p.Lang, key), args...) }

// The page's formatters: numbers, money and moments in its language and the area's zone.
func (p *page) Num(n int64) string              { return formatInt(p.Lang, n) }
func (p *page) Rub(c shlyuz.Credits) string     { return formatRubles(p.Lang, c) }
func (p *page) Credits(c shlyuz.Credits) string { return formatCredits(p.Lang, c) }
func (p *page) Money(d shlyuz.Decimal) string   { return formatDecimalRubles(p.Lang, d) }
func (p *page) Price(creditsPerUnit shlyuz.Decimal) string {
	return formatPrice(p.Lang, creditsPerUnit)
}
func (p *page) Time(t time.Time) string { return formatTime(p.Lang, p.Loc, t) }
func (p *page) Date(t time.Time) string { return formatDate(p.Lang, p.Loc, t) }
func (p *page) Zone() string            { return zoneName(p.Lang, p.Loc) }

// DateP is a day that may be absent ("—").
func (p *page) DateP(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return p.Date(*t)
}

// Word is a status, kind or period in the page's language; an unknown one as it is.
func (p *page) Word(kind string, v any) string {
	key := kind + "_" + fmt.Sprint(v)
	if _, ok := messages[key]; ok {
		return tr(p.Lang, key)
	}
	return fmt.Sprint(v)
}

// render writes a page with the status.
func (w *Web) render(c *fiber.Ctx, status int, name, titleKey string, data any, notice, errMsg string) error {
	p := &page{Lang: langOf(c), Data: data, Notice: notice, Error: errMsg, Path: c.Path(), Loc: w.cfg.Location}
	p.Title = p.T(titleKey)
	if s := sessionOf(c); s != nil {
		p.Account, p.CSRF = &s.account, s.ws.CSRF
	} else {
		p.CSRF = w.anonCSRF(c)
	}
	t, ok := w.pages[name]
	if !ok {
		return fiber.ErrNotFound
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, p); err != nil {
		w.log.Error("web: render", "page", name, "err", err)
		if name != "error" {
			return w.errorPage(c, fiber.StatusInternalServerError)
		}
		return c.Status(fiber.StatusInternalServerError).SendString(tr(p.Lang, "error"))
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "same-origin")
	c.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; form-action 'self' "+w.formTargets())
	return c.Status(status).Send(buf.Bytes())
}

// formTargets are the origins a form may post to besides the gateway: the acquirer's checkout.
func (w *Web) formTargets() string {
	if !w.paymentsOn() {
		return ""
	}
	return "*"
}

func (w *Web) ctx(c *fiber.Ctx) context.Context { return c.UserContext() }

func (w *Web) now() time.Time { return w.cfg.Now() }

// lang is the request's language.
func (w *Web) t(c *fiber.Ctx, key string) string { return tr(langOf(c), key) }

// Plain is credits as rubles to type into a field.
func (p *page) Plain(c shlyuz.Credits) string { return plainRubles(p.Lang, c) }

// Is reports whether the page is at path.
func (p *page) Is(path string) bool { return p.Path == path }

// Day is a chart's axis day; Axis a chart's axis amount.
func (p *page) Day(t time.Time) string       { return formatDay(p.Lang, p.Loc, t) }
func (p *page) Axis(c shlyuz.Credits) string { return formatAxis(p.Lang, c) }
