package netguard

import (
	"errors"
	"net"
	"net/http"
	"time"
)

// Client is an HTTP client whose every connection, redirects' included, goes
// through the guard, never through a proxy (which would dial for it), and
// whose credentials stay with the first host (DropCredentialsOnHostChange).
// timeout bounds a whole request (0: none).
func (g *Guard) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.Control}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = d.DialContext
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: DropCredentialsOnHostChange}
}

// credentialHeaders are the headers that carry a secret of the first host.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Goog-Api-Key", "X-Api-Key", "Api-Key", "X-Key"}

// maxRedirects is how many redirects a fetch follows.
const maxRedirects = 5

// DropCredentialsOnHostChange is a CheckRedirect for any client: it follows
// up to five redirects, and one to another host (or from https to http) goes
// without the credentials of the first (Go's client itself keeps custom
// headers such as X-Goog-Api-Key).
func DropCredentialsOnHostChange(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errors.New("netguard: stopped after 5 redirects")
	}
	first := via[0].URL
	if req.URL.Host != first.Host || req.URL.Scheme != first.Scheme {
		for _, h := range credentialHeaders {
			req.Header.Del(h)
		}
	}
	return nil
}
