package aheadlog_test

import (
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/shlyuz/shlyuz/persistence/aheadlog"
)

// An append that wrote part of its line before failing (the file size limit
// here, a full disk in life) ends its segment: the part is a torn tail that
// Replay skips, and the next record, in a new segment, is replayed whole.
func TestAppendCutShortEndsItsSegment(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "j.db-ahead")
	l, err := aheadlog.Open(prefix)
	must(t, err)
	must(t, l.Append([]byte("{\"a\":1}\n"))) // 8 bytes

	var saved syscall.Rlimit
	must(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &saved))
	signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails with EFBIG instead of killing the process
	defer signal.Reset(syscall.SIGXFSZ)
	limited := saved
	limited.Cur = 12
	must(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limited))
	err = l.Append([]byte("{\"b\":22222}\n")) // 4 of its 12 bytes fit
	must(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &saved))
	if err == nil {
		t.Fatal("an append past the file size limit succeeded")
	}
	must(t, l.Append([]byte("{\"c\":3}\n")))

	next, err := aheadlog.Open(prefix)
	must(t, err)
	if got, want := replay(t, next), []string{`{"a":1}`, `{"c":3}`}; !slices.Equal(got, want) {
		t.Fatalf("replayed %q, want %q", got, want)
	}
}
