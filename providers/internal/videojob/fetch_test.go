package videojob

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// A finished file on the upstream's own host is fetched with its key; one on
// another host goes through the guard (a loopback host is refused) without
// it; a redirect off the host drops the key.
func TestFetchKeepsTheKeyOnTheUpstreamsHost(t *testing.T) {
	var otherHits atomic.Int64
	var otherKey atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		otherKey.Store(r.Header.Get("X-Goog-Api-Key"))
		_, _ = io.WriteString(w, "elsewhere")
	}))
	defer other.Close()
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, other.URL+"/file", http.StatusFound)
			return
		}
		if r.Header.Get("X-Goog-Api-Key") != "k" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "file")
	}))
	defer own.Close()
	c := &Client{Name: "up", HTTP: upstream.NewClientWithRoots(nil), Header: http.Header{"X-Goog-Api-Key": {"k"}}, Base: own.URL + "/v1beta/models/"}
	ctx := context.Background()

	rc, err := c.Fetch(ctx, own.URL+"/v1beta/files/1:download", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(rc); string(b) != "file" {
		t.Fatalf("own host: %q", b)
	}
	_ = rc.Close()

	if _, err := c.Fetch(ctx, other.URL+"/file", nil); err == nil || otherHits.Load() != 0 {
		t.Fatalf("a loopback host off the upstream's was fetched: %v", err)
	}

	rc, err = c.Fetch(ctx, own.URL+"/redirect", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = rc.Close()
	if otherHits.Load() != 1 || otherKey.Load() != "" {
		t.Fatalf("the redirect: %d hits, key %q", otherHits.Load(), otherKey.Load())
	}
}
