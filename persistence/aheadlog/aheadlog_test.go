package aheadlog_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shlyuz/shlyuz/persistence/aheadlog"
)

func replay(t *testing.T, l *aheadlog.Log) []string {
	t.Helper()
	var got []string
	if err := l.Replay(func(rec []byte) error { got = append(got, string(rec)); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func segments(t *testing.T, prefix string) []string {
	t.Helper()
	names, err := filepath.Glob(prefix + ".*")
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	slices.Sort(names)
	return names
}

// A log a process left behind (appended, sealed or not, never dropped) is
// replayed whole by its successor, oldest first; what was dropped is not.
func TestLogSurvivesItsProcess(t *testing.T) {
	for _, tc := range []struct {
		name    string
		run     func(t *testing.T, l *aheadlog.Log)
		want    []string
		wantSeg []string // after the successor opened
	}{
		{"nothing appended", func(*testing.T, *aheadlog.Log) {}, nil, []string{"j.db-ahead.1", "j.db-ahead.2"}},
		{"appended, never sealed", func(t *testing.T, l *aheadlog.Log) {
			must(t, l.Append([]byte("{\"a\":1}\n")))
			must(t, l.Append([]byte("{\"a\":2}\n")))
		}, []string{`{"a":1}`, `{"a":2}`}, []string{"j.db-ahead.1", "j.db-ahead.2"}},
		{"sealed and dropped, then more", func(t *testing.T, l *aheadlog.Log) {
			must(t, l.Append([]byte("{\"a\":1}\n")))
			must(t, l.Drop(l.Seal()))
			must(t, l.Append([]byte("{\"a\":2}\n")))
			mark := l.Seal()
			must(t, l.Append([]byte("{\"a\":3}\n")))
			if mark != 2 {
				t.Fatalf("mark %d, want 2", mark)
			}
		}, []string{`{"a":2}`, `{"a":3}`}, []string{"j.db-ahead.2", "j.db-ahead.3", "j.db-ahead.4"}},
		{"dropped up to a mark taken before the last append", func(t *testing.T, l *aheadlog.Log) {
			must(t, l.Append([]byte("{\"a\":1}\n")))
			mark := l.Seal()
			must(t, l.Append([]byte("{\"a\":2}\n")))
			must(t, l.Drop(mark))
		}, []string{`{"a":2}`}, []string{"j.db-ahead.2", "j.db-ahead.3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "j.db-ahead")
			l, err := aheadlog.Open(prefix)
			must(t, err)
			if got := replay(t, l); len(got) != 0 {
				t.Fatalf("a new log replays %q", got)
			}
			tc.run(t, l) // and no Close: the process was killed
			next, err := aheadlog.Open(prefix)
			must(t, err)
			if got := replay(t, next); !slices.Equal(got, tc.want) {
				t.Fatalf("replayed %q, want %q", got, tc.want)
			}
			if got := segments(t, prefix); !slices.Equal(got, tc.wantSeg) {
				t.Fatalf("segments %q, want %q", got, tc.wantSeg)
			}
			must(t, next.Drop(next.Seal()))
			must(t, next.Close())
			if got := segments(t, prefix); len(got) != 0 {
				t.Fatalf("segments left after the replay was dropped and the log closed: %q", got)
			}
		})
	}
}

// A record the crash cut short (no newline) is skipped; an append is whole
// lines, each with its newline, and several records appended at once replay
// one by one.
func TestLogTornTailAndBadRecords(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "j.db-ahead")
	l, err := aheadlog.Open(prefix)
	must(t, err)
	for _, bad := range []string{"", "\n", "{}", "{}\n{}", "\n{}\n"} {
		if err := l.Append([]byte(bad)); err == nil {
			t.Fatalf("Append(%q) was taken", bad)
		}
	}
	must(t, l.Append([]byte("{\"whole\":true}\n")))
	must(t, l.Append([]byte("{\"one\":1}\n{\"two\":2}\n")))
	f, err := os.OpenFile(prefix+".1", os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString(`{"torn":`)
	must(t, err)
	must(t, f.Close())
	next, err := aheadlog.Open(prefix)
	must(t, err)
	if got, want := replay(t, next), []string{`{"whole":true}`, `{"one":1}`, `{"two":2}`}; !slices.Equal(got, want) {
		t.Fatalf("replayed %q, want %q", got, want)
	}
	if err := next.Replay(func([]byte) error { return os.ErrInvalid }); err == nil {
		t.Fatal("Replay hid its callback's error")
	}
}

// A directory it cannot write is found at Open, not at the first charge.
func TestLogOpenUnwritable(t *testing.T) {
	if _, err := aheadlog.Open(filepath.Join(t.TempDir(), "missing", "j.db-ahead")); err == nil {
		t.Fatal("opened a log in a directory that does not exist")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
