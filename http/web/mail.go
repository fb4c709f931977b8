package web

import (
	"context"
	"fmt"
	"net"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/wneessen/go-mail"
)

// Mailer sends the area's letters (confirmation, password reset).
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// SMTPConfig is the mail server letters go through.
type SMTPConfig struct {
	Host     string `yaml:"host"`
	Port     int    `yaml:"port"`     // default 587
	Username string `yaml:"username"` // empty: no authentication
	Password string `yaml:"password"`
	From     string `yaml:"from"`
	// TLS: "starttls" (default, required), "tls" (implicit, port 465) or "none" (local relays and tests).
	TLS string `yaml:"tls"`
}

// SMTP sends through an SMTP server with wneessen/go-mail.
type SMTP struct{ Config SMTPConfig }

// Send sends one plain-text letter.
func (s *SMTP) Send(ctx context.Context, to, subject, body string) error {
	m := mail.NewMsg()
	if err := m.From(s.Config.From); err != nil {
		return fmt.Errorf("mail: from %q: %w", s.Config.From, err)
	}
	if err := m.To(to); err != nil {
		return fmt.Errorf("mail: to %q: %w", to, err)
	}
	m.Subject(subject)
	m.SetBodyString(mail.TypeTextPlain, body)
	m.AddAlternativeString(mail.TypeTextHTML, letterHTML(subject, body))
	port := s.Config.Port
	if port == 0 {
		port = 587
	}
	opts := []mail.Option{mail.WithPort(port)}
	switch s.Config.TLS {
	case "none":
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	case "tls":
		opts = append(opts, mail.WithSSL())
	default:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	}
	if s.Config.Username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthPlain), mail.WithUsername(s.Config.Username), mail.WithPassword(s.Config.Password))
	}
	c, err := mail.NewClient(s.Config.Host, opts...)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, m); err != nil {
		return fmt.Errorf("mail: send to %s: %w", to, err)
	}
	return nil
}

// mailOutcome is what became of a letter, so that a page says only what happened.
type mailOutcome int

const (
	mailSent   mailOutcome = iota // handed to the mail server
	mailInBox                     // written to the development mailbox
	mailOff                       // no way to send letters is configured
	mailFailed                    // the mail server refused it
)

// mailWay is what sending a letter would do, for a page that must read the
// same whether or not a letter went (a reset for an unknown address).
func (w *Web) mailWay() mailOutcome {
	switch w.cfg.Mailer.(type) {
	case nil:
		return mailOff
	case *Mailbox:
		return mailInBox
	}
	return mailSent
}

func (w *Web) sendMail(c *fiber.Ctx, to, subject, body string) mailOutcome {
	way := w.mailWay()
	if way == mailOff {
		w.log.Warn("web: no mail server or mailbox configured; a letter was not sent", "subject", subject)
		return way
	}
	if err := w.cfg.Mailer.Send(w.ctx(c), to, subject, body); err != nil {
		w.log.Error("web: send mail", "err", err)
		return mailFailed
	}
	return way
}

// mailNotice is the page after a letter: it says what became of it, and in
// local use where the development mailbox is.
func (w *Web) mailNotice(c *fiber.Ctx, titleKey, sentKey string, out mailOutcome) error {
	switch out {
	case mailInBox:
		data := fiber.Map{}
		if mb, ok := w.cfg.Mailer.(*Mailbox); ok && loopbackURL(w.cfg.PublicURL) {
			data["Mailbox"] = mb.Dir
		}
		return w.render(c, fiber.StatusOK, "notice", titleKey, data, w.t(c, "mail_in_box"), "")
	case mailOff:
		return w.render(c, fiber.StatusOK, "notice", titleKey, nil, "", w.t(c, "mail_off"))
	case mailFailed:
		return w.render(c, fiber.StatusBadGateway, "notice", titleKey, nil, "", w.t(c, "mail_failed"))
	}
	return w.render(c, fiber.StatusOK, "notice", titleKey, nil, w.t(c, sentKey), "")
}

// loopbackURL reports whether the gateway's public URL is this machine (local use).
func loopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := p.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
