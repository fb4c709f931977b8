package main

import (
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWebAreaDevMailbox: with no smtp.host, a letter is written to the
// development mailbox beside the database (text and HTML, in the user's
// language), the log names the file and the link, the page says where the
// letter went and never that it was sent, and the link confirms the address.
func TestWebAreaDevMailbox(t *testing.T) {
	base, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "web.yaml")
	if err := os.WriteFile(cfgPath, append(base, []byte("\nweb:\n  secret: test-web-secret\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChildWith(t, "sqlite://"+filepath.Join(dir, "dev.db"), cfgPath)
	g := &webGateway{child: c}
	mailbox := filepath.Join(dir, "dev.db.mailbox")

	u := g.user(t)
	u.get("/register?lang=ru")
	email := "newcomer@example.com"
	st, body := u.post("/register", url.Values{"email": {email}, "password": {"correct horse battery"}})
	if st != 200 || !strings.Contains(body, "записано в почтовый ящик разработчика") || !strings.Contains(body, mailbox) ||
		strings.Contains(body, "Мы отправили письмо") {
		t.Fatalf("the page after registering: %d\n%s", st, body)
	}
	var files []string
	waitFor(t, 10*time.Second, "a letter in the mailbox", func() bool {
		files, _ = filepath.Glob(filepath.Join(mailbox, "*.eml"))
		return len(files) == 1
	})
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if msg.Header.Get("To") != email || subject != "Подтвердите адрес — Шлюз" {
		t.Fatalf("the letter's headers: To %q, Subject %q", msg.Header.Get("To"), subject)
	}
	_, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	parts := map[string]string{}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p) // multipart.Reader undoes the quoted-printable encoding
		mt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		parts[mt] = string(b)
	}
	text := letter{Body: parts["text/plain"]}
	link := text.link(t)
	if !strings.Contains(parts["text/plain"], "Чтобы подтвердить адрес") || !strings.Contains(parts["text/html"], `<a href="`+strings.ReplaceAll(link, "&", "&amp;")+`">`) {
		t.Fatalf("the letter's parts: %q", parts)
	}
	if st, body := u.get(link); st != 200 || !strings.Contains(body, "Адрес подтверждён") {
		t.Fatalf("the letter's link: %d\n%s", st, body)
	}
	c.stop(t, syscall.SIGTERM) // its output is read once it has all been written
	if log := c.log.String(); !strings.Contains(log, "development mailbox") || !strings.Contains(log, files[0]) || !strings.Contains(log, "/confirm?") {
		t.Fatalf("the log does not name the letter's file %s and its link:\n%s", files[0], log)
	}
}
