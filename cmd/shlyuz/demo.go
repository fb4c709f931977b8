package main

import (
	"net"
	"net/http"

	shlyuz "github.com/shlyuz/shlyuz"
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
