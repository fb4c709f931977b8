package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Mailbox is the development mailbox: with no mail server configured, each
// letter is written to Dir as an .eml file (text and HTML), and its link is
// logged, so a newcomer running the gateway locally can confirm an address.
type Mailbox struct {
	Dir string
	Log *slog.Logger
	Now func() time.Time
}

var letterLink = regexp.MustCompile(`https?://[^\s<>"]+`)

// Send writes the letter to the mailbox.
func (m *Mailbox) Send(_ context.Context, to, subject, body string) error {
	if err := os.MkdirAll(m.Dir, 0o700); err != nil {
		return fmt.Errorf("mailbox: %w", err)
	}
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(rnd[:]) + "-" + safeName(to) + ".eml"
	path := filepath.Join(m.Dir, name)
	if err := os.WriteFile(path, letterEML(to, subject, body, now()), 0o600); err != nil {
		return fmt.Errorf("mailbox: %w", err)
	}
	if m.Log != nil {
		m.Log.Info("web: letter written to the development mailbox (no smtp.host configured)",
			"to", to, "subject", subject, "file", path, "link", letterLink.FindString(body))
	}
	return nil
}

// safeName keeps an address's letters, digits, dots, dashes and @ for a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '@' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

// letterHTML is the letter's text as HTML: escaped, paragraphs kept, links clickable.
func letterHTML(subject, body string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>` + html.EscapeString(subject) + `</title></head>` +
		`<body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:36rem">`)
	for _, para := range strings.Split(strings.TrimSpace(body), "\n\n") {
		esc := html.EscapeString(para)
		esc = letterLink.ReplaceAllStringFunc(esc, func(u string) string {
			return `<a href="` + u + `">` + u + `</a>`
		})
		b.WriteString("<p>" + strings.ReplaceAll(esc, "\n", "<br>") + "</p>")
	}
	b.WriteString("</body></html>")
	return b.String()
}

// letterEML is the letter as a MIME message with a text and an HTML part.
func letterEML(to, subject, body string, at time.Time) []byte {
	const boundary = "shlyuz-letter-boundary"
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: Shlyuz <noreply@localhost>\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMIME-Version: 1.0\r\n",
		to, mime.QEncoding.Encode("utf-8", subject), at.Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Content-Type: multipart/alternative; boundary=%q\r\n\r\n", boundary)
	for _, part := range []struct{ typ, text string }{{"text/plain", body}, {"text/html", letterHTML(subject, body)}} {
		fmt.Fprintf(&b, "--%s\r\nContent-Type: %s; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", boundary, part.typ)
		qp := quotedprintable.NewWriter(&b)
		_, _ = qp.Write([]byte(part.text))
		_ = qp.Close()
		b.WriteString("\r\n")
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes()
}
