// Package upstream is the plumbing the provider adapters share for talking to
// an upstream over HTTP: the client and its transport (with an optional CA
// file), the sending of a non-streamed call and the opening of a streamed one
// under the configured timeouts, the body of a streamed reply (read on one
// goroutine, closed from any), and the mapping of what goes wrong on the way
// (transport failures, Retry-After headers, upstream messages clipped for
// quoting) to *shlyuz.Error values. What an upstream's error bodies look like
// and which status means what stays in each adapter.
package upstream

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/shlyuz/shlyuz/netguard"
)

// NewTransport is the HTTP transport the adapters use: a large pool of
// kept-alive connections per host, a bounded dial and TLS handshake, and no
// overall timeout (a stream may last many minutes; the adapter bounds the
// phases of a call itself).
func NewTransport() *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          0, // no global cap
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       IdleConnTimeout,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ReadBufferSize:        16 << 10,
		WriteBufferSize:       16 << 10,
	}
}

// NewClient is a client on a NewTransport. A caFile (the configuration's
// ca_file) adds the PEM certificates in it to the system's roots; the error
// for one that cannot be used starts with "ca_file".
func NewClient(caFile string) (*http.Client, error) {
	if caFile == "" {
		return NewClientWithRoots(nil), nil
	}
	roots, err := pemRoots(caFile)
	if err != nil {
		return nil, err
	}
	return NewClientWithRoots(roots), nil
}

// NewClientWithRoots is a client on a NewTransport that verifies servers
// against roots, with TLS 1.2 at least; nil roots leave the transport's TLS
// settings as they are (the system's roots).
func NewClientWithRoots(roots *x509.CertPool) *http.Client {
	tr := NewTransport()
	if roots != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	// A redirect to another host goes without the upstream's credentials.
	return &http.Client{Transport: NewFreshRetry(tr), CheckRedirect: netguard.DropCredentialsOnHostChange}
}

// pemRoots is the system's roots plus the PEM certificates of the file.
// Roots is the system's trusted roots plus the certificates of a PEM file
// (a private or national CA such as the Russian Trusted Root CA).
func Roots(path string) (*x509.CertPool, error) { return pemRoots(path) }

func pemRoots(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ca_file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("ca_file %s holds no PEM certificate", path)
	}
	return pool, nil
}

// NewRequest is a POST of body to url under ctx, with a copy of header and,
// unless accept is empty, that Accept header.
func NewRequest(ctx context.Context, url string, header http.Header, body []byte, accept string) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header = header.Clone()
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	return r, nil
}

// Accept is the Accept header of a call: an event stream or a JSON reply.
func Accept(stream bool) string {
	if stream {
		return "text/event-stream"
	}
	return "application/json"
}

// JSONText renders a raw JSON scalar as text: strings unquoted, numbers as
// written, null and absent as "", anything else compact as given.
func JSONText(v json.RawMessage) string {
	if t := bytes.TrimSpace(v); len(t) == 0 || string(t) == "null" {
		return ""
	}
	if v[0] == '"' {
		// jsontext reads a valid literal in one pass, several times faster
		// than encoding/json (a prompt's text is most of a body); what it
		// refuses (invalid UTF-8, a lone surrogate) encoding/json reads as
		// it always did, with U+FFFD.
		if b, err := jsontext.AppendUnquote(nil, v); err == nil {
			return string(b)
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return ""
	}
	return string(v)
}
