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
)

// The bare proxy is the floor of scenario 7: a reverse proxy that only
// forwards (net/http/httputil, keep-alive to the upstream), so that what the
// gateway adds above it is what its own work costs. It is this binary started
// again as a child: `bench bare-proxy LISTEN UPSTREAM`.

const bareProxyCmd = "bare-proxy"

// runBareProxy serves the proxy on listen until SIGINT or SIGTERM.
func runBareProxy(listen, upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return fmt.Errorf("bare proxy: upstream %q is not a URL", upstream)
	}
	p := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	p.Transport = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 4096,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
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

// startBareProxy starts this binary as the bare proxy in front of upstream
// (an …/v1 base) and returns the proxy's …/v1 base.
func (b *bench) startBareProxy(ctx context.Context, upstream string) (*child, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	c, err := startChild("bare proxy", self, []string{bareProxyCmd, addr, upstream}, os.Environ(), b.tmp+"/bare-proxy.log")
	if err != nil {
		return nil, "", err
	}
	base := "http://" + addr + "/v1"
	if err := waitReady(ctx, c, b.o.startupTimeout, "bare proxy", func() bool { return httpOK(b.ctl, base+"/models") }); err != nil {
		return c, "", err
	}
	b.logf("bare proxy on %s in front of %s", base, upstream)
	return c, base, nil
}
