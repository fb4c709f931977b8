package main

import (
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	ykfake "github.com/shlyuz/shlyuz/payments/yookassa/fake"
)

// letter is one message the in-process SMTP server took.
type letter struct {
	To, Subject, Body string
}

// mailbox is an in-process SMTP server; the gateway's letters land in it.
type mailbox struct {
	addr    string
	mu      sync.Mutex
	letters []letter
	arrived chan struct{}
}

func newMailbox(t *testing.T) *mailbox {
	t.Helper()
	mb := &mailbox{arrived: make(chan struct{}, 100)}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{mb: mb}, nil }))
	s.Domain = "localhost"
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	mb.addr = ln.Addr().String()
	return mb
}

type smtpSession struct {
	mb *mailbox
	to string
}

func (s *smtpSession) Reset()                                    {}
func (s *smtpSession) Logout() error                             { return nil }
func (s *smtpSession) Mail(string, *smtp.MailOptions) error      { return nil }
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error { s.to = to; return nil }
func (s *smtpSession) Data(r io.Reader) error {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	body, err := decodeBody(msg.Header, msg.Body)
	if err != nil {
		return err
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	s.mb.mu.Lock()
	s.mb.letters = append(s.mb.letters, letter{To: s.to, Subject: subject, Body: body})
	s.mb.mu.Unlock()
	s.mb.arrived <- struct{}{}
	return nil
}

// decodeBody reads a letter's text, single part or the first part of a multipart one.
func decodeBody(h mail.Header, r io.Reader) (string, error) {
	mt, params, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if strings.HasPrefix(mt, "multipart/") {
		p, err := multipart.NewReader(r, params["boundary"]).NextPart()
		if err != nil {
			return "", err
		}
		return decodeBody(mail.Header(p.Header), p)
	}
	if strings.EqualFold(h.Get("Content-Transfer-Encoding"), "quoted-printable") {
		r = quotedprintable.NewReader(r)
	}
	b, err := io.ReadAll(r)
	return string(b), err
}

// letterTo waits for a letter to the address and returns it.
func (mb *mailbox) letterTo(t testing.TB, to string) letter {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		mb.mu.Lock()
		for i, l := range mb.letters {
			if strings.Contains(l.To, to) {
				mb.letters = append(mb.letters[:i], mb.letters[i+1:]...)
				mb.mu.Unlock()
				return l
			}
		}
		mb.mu.Unlock()
		select {
		case <-mb.arrived:
		case <-deadline:
			t.Fatalf("no letter to %s", to)
		}
	}
}

var linkRE = regexp.MustCompile(`https?://\S+`)

// link is the first URL in the letter.
func (l letter) link(t testing.TB) string {
	t.Helper()
	u := linkRE.FindString(l.Body)
	if u == "" {
		t.Fatalf("no link in the letter %q", l.Body)
	}
	return u
}

// webGateway is a child gateway with the web area, mail through the mailbox and payments through the fake YooKassa.
type webGateway struct {
	*child
	mail *mailbox
	yk   *ykfake.Server
}

const (
	ykShop   = "test-shop"
	ykSecret = "test-secret"
)

func startWebGateway(t *testing.T) *webGateway {
	t.Helper()
	return startWebGatewayWith(t, "", true)
}

// startWebGatewayWith starts one with more lines of the web section (each indented two spaces),
// and payments through the fake YooKassa or none.
func startWebGatewayWith(t *testing.T, web string, payments bool) *webGateway {
	t.Helper()
	mb := newMailbox(t)
	yk := ykfake.New(ykShop, ykSecret)
	yln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ysrv := &http.Server{Handler: yk, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = ysrv.Serve(yln) }()
	t.Cleanup(func() { _ = ysrv.Close() })
	base, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(mb.addr)
	cfg := string(base) + `
web:
  secret: test-web-secret
  smtp: {host: "` + host + `", port: ` + port + `, from: "Shlyuz <noreply@shlyuz.test>", tls: none}
` + web + ``
	if payments {
		cfg += `payments:
  yookassa: {shop_id: ` + ykShop + `, secret_key: ` + ykSecret + `, base_url: "http://` + yln.Addr().String() + `", min_topup_rubles: 10}
`
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "web.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChildWith(t, "sqlite://"+filepath.Join(dir, "web.db"), path, "SHLYUZ_ADMIN_TOKEN="+adminToken)
	yk.SetNotifyURL(c.base + "/payments/yookassa/notify")
	return &webGateway{child: c, mail: mb, yk: yk}
}

// browserless is a user of the web area through net/http with a cookie jar.
type browserless struct {
	t       testing.TB
	base    string
	c       *http.Client
	last    string // the body of the last page
	lastURL string // where it came from, after redirects
}

func (g *webGateway) user(t testing.TB) *browserless {
	jar, _ := cookiejar.New(nil)
	return &browserless{t: t, base: g.base, c: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// csrf is the token of the last page's forms.
func (u *browserless) csrf() string {
	m := csrfRE.FindStringSubmatch(u.last)
	if m == nil {
		u.t.Fatalf("no CSRF token on the page:\n%s", u.last)
	}
	return m[1]
}

func (u *browserless) do(req *http.Request) (int, string) {
	u.t.Helper()
	resp, err := u.c.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	u.last, u.lastURL = string(b), resp.Request.URL.String()
	return resp.StatusCode, u.last
}

func (u *browserless) get(path string) (int, string) {
	u.t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = u.base + path
	}
	req, _ := http.NewRequest("GET", path, nil)
	req.Header.Set("Accept-Language", "en")
	return u.do(req)
}

// post submits a form with the last page's CSRF token (unless the form has one).
func (u *browserless) post(path string, form url.Values) (int, string) {
	u.t.Helper()
	if form.Get("csrf") == "" {
		form.Set("csrf", u.csrf())
	}
	req, _ := http.NewRequest("POST", u.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept-Language", "en")
	return u.do(req)
}
