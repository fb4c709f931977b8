package main

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// TestReservedAddressRefusesUntilReady: the gateway's port is bound before it
// is ready, a client connecting then is refused rather than left waiting,
// once it listens it is served, and another gateway cannot take its port.
func TestReservedAddressRefusesUntilReady(t *testing.T) {
	for _, at := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(at, func(t *testing.T) {
			r, err := reserve(at)
			if err != nil {
				t.Fatal(err)
			}
			port := r.Addr().(*net.TCPAddr).Port
			if port == 0 {
				t.Fatal("the bound port is not known")
			}
			if c, err := net.Dial("tcp", r.Addr().String()); err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
				if c != nil {
					c.Close()
				}
				t.Fatalf("a connection before the gateway is ready: %v, want refused", err)
			}
			ln, err := r.Listen()
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			if _, err := reserve(r.Addr().String()); err == nil {
				t.Fatal("a second gateway could take the port of one that serves")
			}
			accepted := make(chan error, 1)
			go func() {
				c, err := ln.Accept()
				if err == nil {
					c.Close()
				}
				accepted <- err
			}()
			c, err := net.Dial("tcp", r.Addr().String())
			if err != nil {
				t.Fatalf("a connection once it listens: %v", err)
			}
			c.Close()
			if err := <-accepted; err != nil {
				t.Fatal(err)
			}
		})
	}
}
