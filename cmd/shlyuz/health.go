package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// health asks a running gateway whether it is ready to serve (GET /readyz):
// exit 0 when it is. Container health checks use it, since the image has no
// curl.
func health(args []string) error {
	fs := flag.NewFlagSet("health", flag.ContinueOnError)
	url := fs.String("url", envOr("SHLYUZ_URL", "http://127.0.0.1:8080"), "the gateway's address (env SHLYUZ_URL)")
	live := fs.Bool("live", false, "ask only whether the process is up (/healthz), not whether it is ready")
	if err := fs.Parse(args); err != nil {
		return err
	}
	path := "/readyz"
	if *live {
		path = "/healthz"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(*url, "/")+path, nil)
	if err != nil {
		return fmt.Errorf("--url: %v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the gateway at %s is unreachable", *url)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New("the gateway at " + *url + " is not ready: " + resp.Status)
	}
	fmt.Println("ok")
	return nil
}
