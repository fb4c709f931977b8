// Command fakeupstream serves the fake OpenAI-compatible upstream of package
// providers/fake, for demos and load tests of the gateway:
//
//	fakeupstream -listen 127.0.0.1:9090 -latency 200ms -tokens-per-sec 50
//	SHLYUZ_FAKE_UPSTREAM=http://127.0.0.1:9090/v1 shlyuz serve -config examples/fake-upstream.yaml
//
// It answers POST /v1/chat/completions and GET /v1/models. A request picks a
// fault with the X-Fake-Fault header or "fault-<name>" in its model name
// (fake/fault-500, fake/fault-cut, …). It stops gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/shlyuz/shlyuz/providers/fake"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9090", "address to listen on")
	latency := flag.Duration("latency", 0, "delay before the first byte of every reply")
	tps := flag.Int("tokens-per-sec", 0, "stream pacing in tokens per second (0: as fast as possible)")
	replyTokens := flag.Int("reply-tokens", 16, "tokens in each reply")
	apiKey := flag.String("api-key", "", "if set, require Authorization: Bearer <key>")
	flag.Parse()

	if err := run(*listen, fake.Options{
		Latency:      *latency,
		TokensPerSec: *tps,
		ReplyTokens:  *replyTokens,
		APIKey:       *apiKey,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "fakeupstream:", err)
		os.Exit(1)
	}
}

func run(addr string, opts fake.Options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	f := fake.New(opts)
	mux := http.NewServeMux()
	mux.Handle("/v1/", f)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
	}
	log.Printf("fake upstream on http://%s/v1", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Printf("shutting down")
	f.Close() // release hung and stalled requests
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
