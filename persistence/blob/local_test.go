package blob

import (
	"errors"
	"io"
	"strings"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

// testBlobStore is the contract every BlobStore keeps.
func testBlobStore(t *testing.T, s shlyuz.BlobStore) {
	ctx := t.Context()
	if n, err := s.Put(ctx, "a.mp4", strings.NewReader("0123456789")); err != nil || n != 10 {
		t.Fatalf("put: %d %v", n, err)
	}
	for _, c := range []struct {
		off, n int64
		want   string
	}{{0, -1, "0123456789"}, {2, 3, "234"}, {8, 100, "89"}} {
		rc, size, err := s.Get(ctx, "a.mp4", c.off, c.n)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != c.want || size != 10 {
			t.Fatalf("get %d+%d: %q of %d", c.off, c.n, b, size)
		}
	}
	if err := s.Delete(ctx, "a.mp4"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a.mp4"); err != nil {
		t.Fatalf("deleting an absent file: %v", err)
	}
	if _, _, err := s.Get(ctx, "a.mp4", 0, -1); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Fatalf("get after delete: %v", err)
	}
}

func TestLocal(t *testing.T) {
	s, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testBlobStore(t, s)
	if _, err := s.Put(t.Context(), "../escape", strings.NewReader("x")); err == nil {
		t.Fatal("a key with a path was accepted")
	}
}
