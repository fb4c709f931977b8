package web

import (
	"context"
	"fmt"

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
