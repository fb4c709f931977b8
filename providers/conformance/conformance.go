// Package conformance is the one test suite every provider adapter passes:
// each adapter's test calls Run with its constructor, and the suite drives it
// over real HTTP against providers/fake, which speaks every protocol.
package conformance

import (
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Target is an adapter under test.
type Target struct {
	// Name labels the subtests ("openai", "anthropic", …).
	Name string
	// New makes the adapter pointed at the fake upstream; baseURL is the fake
	// server's root (http://127.0.0.1:port, no path): the adapter's test knows
	// which path its protocol lives under there and how its credentials are set.
	New func(t *testing.T, baseURL string) shlyuz.Provider
}

// Run runs the suite. (Stub: filled in by the conformance work.)
func Run(t *testing.T, tg Target) {
	t.Helper()
	_ = tg
}
