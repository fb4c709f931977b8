package web

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

type keyRow struct {
	Key   shlyuz.Key
	Spent shlyuz.Credits
	Live  bool
}

type keysData struct {
	Keys    []keyRow
	Plain   string // the new key, shown once
	Form    fiber.Map
	Bad     string // the field the error is about
	APIBase string
	Model   string // a served model for the snippets
}

func (w *Web) keysPage(c *fiber.Ctx) error {
	return w.renderKeys(c, fiber.StatusOK, "", fiber.Map{}, "")
}

func (w *Web) renderKeys(c *fiber.Ctx, status int, plain string, form fiber.Map, errMsg string) error {
	s := sessionOf(c)
	keys, err := w.store.KeysOf(w.ctx(c), s.account.ID)
	if err != nil {
		return w.fail(c, err)
	}
	now := w.now()
	d := keysData{Plain: plain, Form: form, APIBase: w.cfg.PublicURL + "/api/v1"}
	d.Bad, _ = form["Bad"].(string)
	_, d.Model = w.chatModels()
	for i := len(keys) - 1; i >= 0; i-- { // newest first
		k := keys[i]
		if k.WebChat {
			continue // the web chat's own key is not the user's to manage
		}
		row := keyRow{Key: k, Live: k.Usable(now) == nil}
		since := shlyuz.PeriodStart(now, k.LimitReset, w.cfg.Location)
		if row.Spent, err = w.store.KeySpend(w.ctx(c), k.ID, since); err != nil {
			return w.fail(c, err)
		}
		d.Keys = append(d.Keys, row)
	}
	notice := ""
	if plain != "" {
		notice = w.t(c, "key_created")
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return w.render(c, status, "keys", "keys", d, notice, errMsg)
}

// createKey makes a key with a name, an optional ceiling in rubles, its period and an optional expiry date.
func (w *Web) createKey(c *fiber.Ctx) error {
	s := sessionOf(c)
	form := fiber.Map{"Name": c.FormValue("name"), "Limit": c.FormValue("limit"), "Reset": c.FormValue("reset"), "Expires": c.FormValue("expires"),
		"Management": c.FormValue("management") == "1", "Allowed": c.FormValue("allowed_models")}
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" || !shlyuz.KeyNameFits(name) {
		return w.renderKeys(c, fiber.StatusBadRequest, "", bad(form, "name"), w.t(c, "bad_name"))
	}
	limit, ok := ceiling(langOf(c), c.FormValue("limit"))
	if !ok {
		return w.renderKeys(c, fiber.StatusBadRequest, "", bad(form, "limit"), w.t(c, "bad_limit"))
	}
	reset, err := shlyuz.ParseLimitReset(c.FormValue("reset"))
	if err != nil {
		return w.renderKeys(c, fiber.StatusBadRequest, "", bad(form, "limit"), w.t(c, "bad_limit"))
	}
	if reset != shlyuz.ResetNever && limit == nil { // a period says when a ceiling's spend starts again
		return w.renderKeys(c, fiber.StatusBadRequest, "", bad(form, "limit"), w.t(c, "bad_limit"))
	}
	var expires *time.Time
	if v := c.FormValue("expires"); v != "" {
		d, err := time.ParseInLocation("2006-01-02", v, w.cfg.Location)
		if err != nil || !d.After(w.now()) {
			return w.renderKeys(c, fiber.StatusBadRequest, "", bad(form, "expires"), w.t(c, "bad_expiry"))
		}
		expires = &d
	}
	allowed := shlyuz.SplitAllowedModels(c.FormValue("allowed_models")) // comma-separated ids and provider/ prefixes
	if shlyuz.ValidateAllowedModels(allowed) != nil {
		return w.renderKeys(c, fiber.StatusBadRequest, "", bad(form, "allowed_models"), w.t(c, "bad_allowed_models"))
	}
	plain, _, kerr := w.gw.CreateKey(w.ctx(c), s.account.ID, actors.KeySpec{Name: name, Limit: limit, LimitReset: reset, ExpiresAt: expires,
		Management: c.FormValue("management") == "1", AllowedModels: allowed}) // a management key: /api/v1/keys, no model calls
	if kerr != nil {
		return w.fail(c, kerr)
	}
	return w.renderKeys(c, fiber.StatusCreated, plain, fiber.Map{}, "")
}

// ceiling reads a ceiling in rubles (at most two decimals) as credits; empty is none.
func ceiling(lang, v string) (*shlyuz.Credits, bool) {
	if strings.TrimSpace(v) == "" {
		return nil, true
	}
	k, ok := kopecks(lang, v)
	if !ok {
		return nil, false
	}
	credits := k * (shlyuz.CreditsPerRuble / 100)
	return &credits, true
}

// ownKey is the account's key named by the path, or false after a 404 page.
func (w *Web) ownKey(c *fiber.Ctx) (shlyuz.Key, bool, error) {
	k, err := w.store.Key(w.ctx(c), c.Params("id"))
	if errors.Is(err, shlyuz.ErrNoRows) || (err == nil && (k.AccountID != sessionOf(c).account.ID || k.WebChat)) {
		return k, false, w.render(c, fiber.StatusNotFound, "notice", "keys", nil, "", w.t(c, "not_found"))
	}
	if err != nil {
		return k, false, w.fail(c, err)
	}
	return k, true, nil
}

// setKeyLimit changes one of the account's keys' ceiling (empty: none), in the store and its live actor.
func (w *Web) setKeyLimit(c *fiber.Ctx) error {
	k, ok, err := w.ownKey(c)
	if !ok {
		return err
	}
	limit, ok := ceiling(langOf(c), c.FormValue("limit"))
	if !ok {
		return w.renderKeys(c, fiber.StatusBadRequest, "", fiber.Map{}, w.t(c, "bad_limit"))
	}
	if k.Revoked() {
		return w.renderKeys(c, fiber.StatusConflict, "", fiber.Map{}, w.t(c, "key_revoked"))
	}
	if kerr := w.gw.SetKeyLimit(w.ctx(c), k.ID, limit); kerr != nil {
		return w.fail(c, kerr)
	}
	return c.Redirect("/account/keys", fiber.StatusSeeOther)
}

// revokeKey revokes one of the account's keys, in the store and in its live actor.
func (w *Web) revokeKey(c *fiber.Ctx) error {
	k, ok, err := w.ownKey(c)
	if !ok {
		return err
	}
	if err := w.gw.RevokeKey(w.ctx(c), k.ID); err != nil {
		return w.fail(c, err)
	}
	return c.Redirect("/account/keys", fiber.StatusSeeOther)
}

// bad marks the form's field the error is about.
func bad(form fiber.Map, field string) fiber.Map {
	form["Bad"] = field
	return form
}
