package web

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// Link lifetimes and the shortest password.
const (
	confirmTTL     = 24 * time.Hour
	resetTTL       = time.Hour
	minPasswordLen = 10
)

func (w *Web) registerPage(c *fiber.Ctx) error {
	return w.render(c, fiber.StatusOK, "register", "register", fiber.Map{}, "", "")
}

// register creates an account and sends the confirmation letter. A taken
// email gets the same answer (and its owner a letter), so the page does not
// tell who is registered.
func (w *Web) register(c *fiber.Ctx) error {
	email := strings.ToLower(strings.TrimSpace(c.FormValue("email")))
	password := c.FormValue("password")
	form := fiber.Map{"Email": email}
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email {
		form["Bad"] = "email"
		return w.render(c, fiber.StatusBadRequest, "register", "register", form, "", w.t(c, "bad_email"))
	}
	if len([]rune(password)) < minPasswordLen {
		form["Bad"] = "password"
		return w.render(c, fiber.StatusBadRequest, "register", "register", form, "", w.t(c, "weak_password"))
	}
	lang := langOf(c)
	hash := hashPassword(password) // before the lookup, so a taken email answers no faster
	a := shlyuz.Account{ID: newID("acc-"), Email: email, CreatedAt: w.now().UTC()}
	err := w.store.CreateAccount(w.ctx(c), a)
	switch {
	case errors.Is(err, shlyuz.ErrDuplicate):
		out := w.sendMail(c, email, tr(lang, "mail_exists_subj"), fmt.Sprintf(tr(lang, "mail_exists"), w.cfg.PublicURL+"/reset"))
		return w.mailNotice(c, "register", "check_mail", out)
	case err != nil:
		return w.fail(c, err)
	}
	if err := w.store.SaveLogin(w.ctx(c), shlyuz.WebLogin{AccountID: a.ID, PasswordHash: hash}); err != nil {
		return w.fail(c, err)
	}
	exp, sig := w.links.sign("confirm", a.ID, "", confirmTTL, w.now())
	link := w.cfg.PublicURL + "/confirm?" + url.Values{"a": {a.ID}, "e": {exp}, "s": {sig}, "lang": {lang}}.Encode()
	out := w.sendMail(c, email, tr(lang, "mail_confirm_subj"), fmt.Sprintf(tr(lang, "mail_confirm"), link))
	return w.mailNotice(c, "register", "check_mail", out)
}

func (w *Web) confirm(c *fiber.Ctx) error {
	id := c.Query("a")
	if !w.links.verify("confirm", id, "", c.Query("e"), c.Query("s"), w.now()) {
		return w.render(c, fiber.StatusBadRequest, "notice", "register", nil, "", w.t(c, "bad_link"))
	}
	l, err := w.store.Login(w.ctx(c), id)
	if errors.Is(err, shlyuz.ErrNoRows) {
		return w.render(c, fiber.StatusBadRequest, "notice", "register", nil, "", w.t(c, "bad_link"))
	}
	if err != nil {
		return w.fail(c, err)
	}
	if l.ConfirmedAt == nil {
		now := w.now().UTC()
		l.ConfirmedAt = &now
		if err := w.store.SaveLogin(w.ctx(c), l); err != nil {
			return w.fail(c, err)
		}
	}
	return w.render(c, fiber.StatusOK, "login", "login", fiber.Map{}, w.t(c, "confirmed"), "")
}

func (w *Web) loginPage(c *fiber.Ctx) error {
	if sessionOf(c) != nil {
		return c.Redirect("/account/", fiber.StatusSeeOther)
	}
	return w.render(c, fiber.StatusOK, "login", "login", fiber.Map{}, "", "")
}

// login checks the password, throttled per account and per address; every
// failure reads the same, whether the account exists or not.
func (w *Web) login(c *fiber.Ctx) error {
	email := strings.ToLower(strings.TrimSpace(c.FormValue("email")))
	form := fiber.Map{"Email": email}
	now := w.now()
	for _, k := range []struct {
		key string
		max int
	}{{"e:" + email, maxFailsAccount}, {"ip:" + c.IP(), maxFailsAddress}} {
		if blocked, wait := w.throttle.blocked(k.key, k.max, now); blocked {
			msg := fmt.Sprintf(w.t(c, "throttled"), int(wait.Minutes())+1)
			return w.render(c, fiber.StatusTooManyRequests, "login", "login", form, "", msg)
		}
	}
	a, l, err := w.store.LoginByEmail(w.ctx(c), email)
	if err != nil && !errors.Is(err, shlyuz.ErrNoRows) {
		return w.fail(c, err)
	}
	hash := l.PasswordHash
	if err != nil {
		hash = dummyHash
	}
	if !checkPassword(hash, c.FormValue("password")) || err != nil {
		w.throttle.fail("e:"+email, now)
		w.throttle.fail("ip:"+c.IP(), now)
		return w.render(c, fiber.StatusUnauthorized, "login", "login", form, "", w.t(c, "bad_login"))
	}
	if l.ConfirmedAt == nil {
		return w.render(c, fiber.StatusForbidden, "login", "login", form, "", w.t(c, "not_confirmed"))
	}
	w.throttle.reset("e:" + email)
	if err := w.startSession(c, a.ID); err != nil {
		return w.fail(c, err)
	}
	return c.Redirect("/account/", fiber.StatusSeeOther)
}

func (w *Web) logout(c *fiber.Ctx) error {
	if s := sessionOf(c); s != nil {
		if err := w.store.DeleteSession(w.ctx(c), s.ws.ID); err != nil {
			return w.fail(c, err)
		}
	}
	w.clearCookie(c, sessionCookie)
	return c.Redirect("/", fiber.StatusSeeOther)
}

func (w *Web) resetPage(c *fiber.Ctx) error {
	return w.render(c, fiber.StatusOK, "reset", "reset", fiber.Map{}, "", "")
}

// resetRequest mails a reset link when the account exists; the page reads the same either way.
func (w *Web) resetRequest(c *fiber.Ctx) error {
	email := strings.ToLower(strings.TrimSpace(c.FormValue("email")))
	a, l, err := w.store.LoginByEmail(w.ctx(c), email)
	out := w.mailWay() // an unknown address reads the same as a known one
	switch {
	case err == nil:
		lang := langOf(c)
		exp, sig := w.links.sign("reset", a.ID, l.PasswordHash, resetTTL, w.now())
		link := w.cfg.PublicURL + "/reset/confirm?" + url.Values{"a": {a.ID}, "e": {exp}, "s": {sig}, "lang": {lang}}.Encode()
		out = w.sendMail(c, email, tr(lang, "mail_reset_subj"), fmt.Sprintf(tr(lang, "mail_reset"), link))
	case !errors.Is(err, shlyuz.ErrNoRows):
		return w.fail(c, err)
	}
	if out == mailFailed { // a known address's failure must not tell it apart
		out = w.mailWay()
	}
	return w.mailNotice(c, "reset", "check_mail_reset", out)
}

// resetLink checks a reset link: signed, unexpired, and made for the current password (so it works once).
func (w *Web) resetLink(c *fiber.Ctx, id, exp, sig string) (shlyuz.WebLogin, bool) {
	l, err := w.store.Login(w.ctx(c), id)
	if err != nil {
		return l, false
	}
	return l, w.links.verify("reset", id, l.PasswordHash, exp, sig, w.now())
}

func (w *Web) resetConfirmPage(c *fiber.Ctx) error {
	form := fiber.Map{"A": c.Query("a"), "E": c.Query("e"), "S": c.Query("s")}
	if _, ok := w.resetLink(c, c.Query("a"), c.Query("e"), c.Query("s")); !ok {
		return w.render(c, fiber.StatusBadRequest, "notice", "reset", nil, "", w.t(c, "bad_link"))
	}
	return w.render(c, fiber.StatusOK, "reset_confirm", "reset", form, "", "")
}

func (w *Web) resetConfirm(c *fiber.Ctx) error {
	form := fiber.Map{"A": c.FormValue("a"), "E": c.FormValue("e"), "S": c.FormValue("s")}
	l, ok := w.resetLink(c, c.FormValue("a"), c.FormValue("e"), c.FormValue("s"))
	if !ok {
		return w.render(c, fiber.StatusBadRequest, "notice", "reset", nil, "", w.t(c, "bad_link"))
	}
	password := c.FormValue("password")
	if len([]rune(password)) < minPasswordLen {
		return w.render(c, fiber.StatusBadRequest, "reset_confirm", "reset", form, "", w.t(c, "weak_password"))
	}
	l.PasswordHash = hashPassword(password)
	if l.ConfirmedAt == nil { // the letter reached its owner: the address is confirmed
		now := w.now().UTC()
		l.ConfirmedAt = &now
	}
	if err := w.store.SaveLogin(w.ctx(c), l); err != nil {
		return w.fail(c, err)
	}
	if err := w.store.DeleteSessionsOf(w.ctx(c), l.AccountID); err != nil {
		return w.fail(c, err)
	}
	return w.render(c, fiber.StatusOK, "login", "login", fiber.Map{}, w.t(c, "password_changed"), "")
}

type overviewData struct {
	Balance        shlyuz.Balance
	Reserved       shlyuz.Credits
	PackageLive    bool
	Available      shlyuz.Credits
	Payments       []shlyuz.Payment
	PaymentsOn     bool
	PackageExpires time.Time
	APIBase        string
}

func (w *Web) overview(c *fiber.Ctx) error {
	s := sessionOf(c)
	b, err := w.gw.Balance(s.account.ID)
	if err != nil {
		return w.fail(c, err)
	}
	pays, perr := w.cfg.Billing.Payments(w.ctx(c), s.account.ID, 10)
	if perr != nil {
		return w.fail(c, perr)
	}
	now := w.now()
	d := overviewData{Balance: b.Balance, Reserved: b.Reserved, PackageLive: b.Balance.PackageLive(now),
		Available: b.Balance.Available(now), Payments: pays, PaymentsOn: w.paymentsOn(),
		PackageExpires: b.Balance.PackageExpiresAt, APIBase: w.cfg.PublicURL + "/api/v1"}
	return w.render(c, fiber.StatusOK, "overview", "overview", d, "", "")
}

// fail logs an unexpected error and shows a generic page.
func (w *Web) fail(c *fiber.Ctx, err error) error {
	w.log.Error("web: request failed", "path", c.Path(), "err", err)
	return w.errorPage(c, fiber.StatusInternalServerError)
}
