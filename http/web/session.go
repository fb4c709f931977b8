package web

import (
	"crypto/subtle"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// Cookie names.
const (
	sessionCookie  = "shz_session"
	anonCSRFCookie = "shz_csrf"
)

// signedIn is the request's session and its account.
type signedIn struct {
	ws      shlyuz.WebSession
	account shlyuz.Account
}

func sessionOf(c *fiber.Ctx) *signedIn {
	s, _ := c.Locals("web.session").(*signedIn)
	return s
}

// session loads the signed-in account, if any. A stale or unknown cookie is dropped.
func (w *Web) session(c *fiber.Ctx) error {
	tok := c.Cookies(sessionCookie)
	if tok == "" {
		return c.Next()
	}
	ws, err := w.store.Session(w.ctx(c), hashToken(tok))
	if err == nil && w.now().Before(ws.ExpiresAt) {
		a, aerr := w.store.Account(w.ctx(c), ws.AccountID)
		if aerr == nil {
			c.Locals("web.session", &signedIn{ws: ws, account: a})
			return c.Next()
		}
		err = aerr
	}
	if err != nil && !errors.Is(err, shlyuz.ErrNoRows) {
		w.log.Error("web: load session", "err", err)
		return w.errorPage(c, fiber.StatusInternalServerError)
	}
	w.clearCookie(c, sessionCookie)
	return c.Next()
}

// requireLogin sends a signed-out visitor to the login page; a script's
// request (it carries X-CSRF-Token) gets 401 instead, which it can show.
func (w *Web) requireLogin(c *fiber.Ctx) error {
	if sessionOf(c) == nil {
		if c.Get("X-CSRF-Token") != "" {
			return &shlyuz.Error{Status: fiber.StatusUnauthorized, Type: shlyuz.TypeAuthentication, Code: "signed_out", Message: w.t(c, "signed_out")}
		}
		return c.Redirect("/login", fiber.StatusSeeOther)
	}
	return c.Next()
}

// secure reports whether cookies get the Secure flag: served over TLS, or the public URL is https.
func (w *Web) secure(c *fiber.Ctx) bool {
	return c.Protocol() == "https" || strings.HasPrefix(w.cfg.PublicURL, "https://")
}

func (w *Web) setCookie(c *fiber.Ctx, name, value string, maxAge time.Duration) {
	c.Cookie(&fiber.Cookie{Name: name, Value: value, Path: "/", MaxAge: int(maxAge.Seconds()),
		HTTPOnly: true, Secure: w.secure(c), SameSite: fiber.CookieSameSiteLaxMode})
}

func (w *Web) clearCookie(c *fiber.Ctx, name string) {
	c.Cookie(&fiber.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, Expires: time.Unix(1, 0),
		HTTPOnly: true, Secure: w.secure(c), SameSite: fiber.CookieSameSiteLaxMode})
}

// startSession signs the account in: a fresh session (so a token seen before
// login is worthless after it) and its cookie.
func (w *Web) startSession(c *fiber.Ctx, accountID string) error {
	tok := randomToken()
	now := w.now()
	ws := shlyuz.WebSession{ID: hashToken(tok), AccountID: accountID, CSRF: randomToken(), CreatedAt: now, ExpiresAt: now.Add(sessionTTL)}
	if err := w.store.CreateSession(w.ctx(c), ws); err != nil {
		return err
	}
	w.setCookie(c, sessionCookie, tok, sessionTTL)
	w.clearCookie(c, anonCSRFCookie)
	return nil
}

// anonCSRF is the CSRF token of a visitor not signed in: a random value in a
// cookie that the form must repeat (double submit; SameSite keeps other sites' forms out).
func (w *Web) anonCSRF(c *fiber.Ctx) string {
	if v := c.Cookies(anonCSRFCookie); len(v) == 64 {
		return v
	}
	if v, ok := c.Locals("web.anoncsrf").(string); ok {
		return v
	}
	v := randomToken()
	c.Locals("web.anoncsrf", v)
	w.setCookie(c, anonCSRFCookie, v, 24*time.Hour)
	return v
}

// csrf refuses a form whose token is not the session's (or, signed out, the cookie's).
func (w *Web) csrf(c *fiber.Ctx) error {
	want := ""
	if s := sessionOf(c); s != nil {
		want = s.ws.CSRF
	} else {
		want = c.Cookies(anonCSRFCookie)
	}
	got := c.FormValue("csrf")
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return c.Status(fiber.StatusForbidden).Type("txt", "utf-8").SendString(w.t(c, "csrf"))
	}
	return c.Next()
}
