package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary stand in for the bench binary as a child:
// the bare proxy is started as os.Executable() with `bare-proxy LISTEN
// UPSTREAM KIND` (startBareProxy), which under `go test` is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 5 && os.Args[1] == bareProxyCmd {
		if err := runBareProxy(os.Args[2], os.Args[3], os.Args[4]); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
