package web

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// errorPage answers a page request with the area's HTML page for the status:
// 404 "not found", anything else "something went wrong".
func (w *Web) errorPage(c *fiber.Ctx, status int) error {
	title, text := "error_title", "error"
	if status == fiber.StatusNotFound {
		title, text = "not_found_title", "not_found_text"
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return w.render(c, status, "error", title, fiber.Map{"Text": w.t(c, text)}, "", "")
}

// wantsPage reports whether a request is a person's page view (an HTML
// answer) rather than a script's or an API client's call (JSON).
func wantsPage(c *fiber.Ctx) bool {
	p := c.Path()
	switch {
	case p == "/api" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/payments/"),
		c.Get("X-CSRF-Token") != "":
		return false
	case p == "/account" || strings.HasPrefix(p, "/account/"):
		return true
	}
	return strings.Contains(c.Get(fiber.HeaderAccept), "text/html")
}

// pages turns what a page handler returns unanswered (an error, a panic)
// into the area's HTML page; scripts and API calls keep their JSON errors.
func (w *Web) htmlErrors(c *fiber.Ctx) (err error) {
	if !wantsPage(c) {
		return c.Next()
	}
	defer func() {
		if r := recover(); r != nil {
			w.log.Error("web: panic", "path", c.Path(), "panic", fmt.Sprint(r))
			err = w.errorPage(c, fiber.StatusInternalServerError)
		}
	}()
	err = c.Next()
	if err == nil {
		return nil
	}
	status := fiber.StatusInternalServerError
	var fe *fiber.Error
	var se *shlyuz.Error
	switch {
	case errors.As(err, &fe):
		status = fe.Code
	case errors.As(err, &se):
		status = se.Status
	}
	switch {
	case status == fiber.StatusNotFound:
		return w.errorPage(c, status)
	case status >= 500:
		w.log.Error("web: page failed", "path", c.Path(), "err", err)
		return w.errorPage(c, status)
	}
	return err
}

// notFound is the area's 404 for a page nobody serves; other requests fall
// through to the gateway's JSON 404.
func (w *Web) notFound(c *fiber.Ctx) error {
	if !wantsPage(c) || (c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead && !strings.HasPrefix(c.Path(), "/account")) {
		return c.Next()
	}
	return w.errorPage(c, fiber.StatusNotFound)
}
