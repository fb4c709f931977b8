package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// The floor is what any proxy on this machine must pay to carry a request:
// a fasthttp server that hands the client's request, bytes as they came, to a
// fasthttp client keeping connections to the upstream alive, and the reply
// back. The gateway is built on fasthttp too, so what it adds above this
// proxy is its own work. A net/http reverse proxy (httputil) stands beside it
// for comparison: it costs several times the fasthttp hop and is not the floor.
//
// Both are this binary started again as a child:
// `bench bare-proxy LISTEN UPSTREAM [fasthttp|nethttp]`.

const bareProxyCmd = "bare-proxy"

// The kinds of bare proxy.
const (
	floorProxy   = "fasthttp"
	netHTTPProxy = "nethttp"
)

// runBareProxy serves a proxy of kind on listen until SIGINT or SIGTERM.
func runBareProxy(listen, upstream, kind string) error {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return fmt.Errorf("bare proxy: upstream %q is not a URL", upstream)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	switch kind {
	case floorProxy:
		return serveFastHTTPProxy(ctx, ln, u)
	case netHTTPProxy:
		return serveNetHTTPProxy(ctx, ln, u)
	}
	return fmt.Errorf("bare proxy: kind %q is neither %s nor %s", kind, floorProxy, netHTTPProxy)
}

// serveFastHTTPProxy forwards every request to u's host as it came.
func serveFastHTTPProxy(ctx context.Context, ln net.Listener, u *url.URL) error {
	up := &fasthttp.HostClient{
		Addr:                          u.Host,
		MaxConns:                      4096,
		MaxIdleConnDuration:           90 * time.Second,
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
		NoDefaultUserAgentHeader:      true,
	}
	srv := &fasthttp.Server{
		Handler: func(c *fasthttp.RequestCtx) {
			c.Request.Header.Del("Connection")
			if err := up.Do(&c.Request, &c.Response); err != nil {
				c.Response.Reset()
				c.Error("bare proxy: "+err.Error(), fasthttp.StatusBadGateway)
			}
			c.Response.Header.Del("Connection")
		},
		ReadTimeout:                   time.Minute,
		DisableHeaderNamesNormalizing: true,
		NoDefaultServerHeader:         true,
		NoDefaultDate:                 true,
		MaxRequestBodySize:            64 << 20,
	}
	go func() {
		<-ctx.Done()
		_ = srv.ShutdownWithContext(context.Background())
	}()
	return srv.Serve(ln)
}

// serveNetHTTPProxy is httputil's reverse proxy with keep-alive upstream.
func serveNetHTTPProxy(ctx context.Context, ln net.Listener, u *url.URL) error {
	p := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	p.Transport = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 4096,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// startBareProxy starts this binary as a bare proxy of kind in front of
// upstream (an …/v1 base) and returns the proxy's …/v1 base.
func (b *bench) startBareProxy(ctx context.Context, upstream, kind string) (*child, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	name := kind + " proxy"
	c, err := startChild(name, self, []string{bareProxyCmd, addr, upstream, kind}, os.Environ(), b.tmp+"/"+kind+"-proxy.log")
	if err != nil {
		return nil, "", err
	}
	base := "http://" + addr + "/v1"
	if err := waitReady(ctx, c, b.o.startupTimeout, name, func() bool { return httpOK(b.ctl, base+"/models") }); err != nil {
		return c, "", err
	}
	b.logf("%s on %s in front of %s", name, base, upstream)
	return c, base, nil
}
