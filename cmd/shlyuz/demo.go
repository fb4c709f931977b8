package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
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

// demoKeyPath is where the demo key of the database db is written: beside
// its SQLite file ("shlyuz.db.demo-key"), or for another database in the
// current directory under a name that tells the database.
func demoKeyPath(db string) string {
	if path, ok := strings.CutPrefix(db, "sqlite://"); ok {
		return path + ".demo-key"
	}
	name := "db"
	if u, err := url.Parse(db); err == nil {
		name = u.Hostname() + "-" + strings.TrimPrefix(u.Path, "/")
	}
	return "shlyuz-demo-key." + strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, name)
}

// bootstrapDemo gives a fresh database an account with 10 rubles of credits
// and a key, written to keyPath (never to the log), so that a newcomer's
// first request works. Once the demo account exists it only says where its
// key is. A file already at keyPath (the key of an earlier database at the
// same place) is kept, renamed, never overwritten.
func bootstrapDemo(ctx context.Context, store shlyuz.Store, gw *actors.Gateway, keyPath string, log *slog.Logger) error {
	const id = "acc-demo"
	if _, err := store.Account(ctx, id); err == nil {
		if _, err := os.Stat(keyPath); err == nil {
			log.Info("demo: the demo account's API key is in " + keyPath)
		}
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
	if err := writeNewFile(keyPath, []byte(plain+"\n"), log); err != nil {
		return err
	}
	k := shlyuz.Key{ID: "key-demo", AccountID: id, Name: "demo", Hash: hash, Label: shlyuz.MaskKey(plain), CreatedAt: time.Now().UTC()}
	if err := store.CreateKey(ctx, k, 0); err != nil {
		return err
	}
	log.Info("demo: an account with 10 rubles of credits was created; its API key is in " + keyPath)
	return nil
}

// writeNewFile writes data to path, readable by its owner only; a file
// already there is first moved to path.<unix time>.old.
func writeNewFile(path string, data []byte, log *slog.Logger) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		old := fmt.Sprintf("%s.%d.old", path, time.Now().Unix())
		if err := os.Rename(path, old); err != nil {
			return err
		}
		log.Warn("demo: " + path + " held the key of another database; it was kept as " + old)
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
