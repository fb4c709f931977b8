package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// startDemo serves the built-in demo upstream on a loopback port, so that a
// gateway with no provider configured still answers the demo/… models.
func startDemo() (shlyuz.UpstreamConfig, shlyuz.Route, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return shlyuz.UpstreamConfig{}, shlyuz.Route{}, nil, err
	}
	f := fake.New(fake.Options{ReplyTokens: 24})
	srv := &http.Server{Handler: f}
	go func() { _ = srv.Serve(ln) }()
	up := shlyuz.UpstreamConfig{Name: "demo", Protocol: "openai", BaseURL: "http://" + ln.Addr().String() + "/v1", MaxConcurrent: 1024}
	route := shlyuz.Route{Match: "demo/", Upstreams: []string{"demo"}}
	return up, route, func() { f.Close(); _ = srv.Close() }, nil
}

// demoKeyFile is where the demo key is written, once, for the README's first request.
const demoKeyFile = "shlyuz-demo-key"

// bootstrapDemo gives a fresh demo gateway an account with 10 rubles of credits
// and a key, written to demoKeyFile (never to the log), so that a newcomer's
// first request works. It does nothing once the demo account exists.
func bootstrapDemo(ctx context.Context, store shlyuz.Store, gw *actors.Gateway, log *slog.Logger) error {
	const id = "acc-demo"
	if _, err := store.Account(ctx, id); err == nil {
		return nil
	} else if !errors.Is(err, shlyuz.ErrNoRows) {
		return err
	}
	if err := store.CreateAccount(ctx, shlyuz.Account{ID: id, Email: "demo@localhost", CreatedAt: time.Now().UTC()}); err != nil {
		return err
	}
	if _, _, err := gw.TopUp(id, 10*shlyuz.CreditsPerRuble, "demo-bootstrap"); err != nil {
		return err
	}
	plain, hash := shlyuz.NewKeySecret()
	if err := os.WriteFile(demoKeyFile, []byte(plain+"\n"), 0o600); err != nil {
		return err
	}
	k := shlyuz.Key{ID: "key-demo", AccountID: id, Name: "demo", Hash: hash, Label: shlyuz.MaskKey(plain), CreatedAt: time.Now().UTC()}
	if err := store.CreateKey(ctx, k); err != nil {
		return err
	}
	log.Info("demo: an account with 10 rubles of credits was created; its API key is in ./" + demoKeyFile)
	return nil
}
