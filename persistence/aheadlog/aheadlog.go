// Package aheadlog is the journal's write-ahead file beside an embedded
// store: what the journal queued for the store is appended here first, one
// line a record, and an append is durable against a crash of the process
// (kill -9) once its write(2) returned, as a commit in SQLite's WAL at
// synchronous=NORMAL is: the kernel holds the bytes. Only a crash of the
// machine could lose the last ones, which neither file survives.
//
// The log is a series of segment files, PREFIX.1, PREFIX.2, …: appends go to
// the open segment; Seal closes it (and opens the next one, off the appends' path) and
// names the last sealed segment, and once the store committed everything
// appended before a seal, Drop removes the segments up to it. A process that
// starts finds its dead predecessor's segments and Replays them into the
// store (its entries are idempotent by id) before it serves.
package aheadlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Log is a write-ahead log of segments named PREFIX.N. It is not safe for
// concurrent use: its one writer (the journal) calls it under its own lock.
type Log struct {
	prefix string
	f      *os.File // the open segment; nil until the next append opens one
	seq    uint64   // the open segment's number, or the next one's
	size   int64    // bytes in the open segment
	sealed []uint64 // segments on disk before seq, oldest first
}

// Open opens the log at prefix: the segments found are kept for Replay, and
// appends go to a new segment after them. The directory must be writable
// (Open creates the first segment to find out).
func Open(prefix string) (*Log, error) {
	l := &Log{prefix: prefix}
	names, err := filepath.Glob(globEscape(prefix) + ".*")
	if err != nil {
		return nil, fmt.Errorf("aheadlog: %w", err)
	}
	for _, name := range names {
		n, err := strconv.ParseUint(strings.TrimPrefix(name, prefix+"."), 10, 64)
		if err != nil || n == 0 {
			continue // not a segment (a file that merely shares the prefix)
		}
		l.sealed = append(l.sealed, n)
	}
	slices.Sort(l.sealed)
	l.seq = 1
	if len(l.sealed) > 0 {
		l.seq = l.sealed[len(l.sealed)-1] + 1
	}
	if err := l.openSegment(); err != nil {
		return nil, err
	}
	return l, nil
}

// globEscape escapes the characters filepath.Glob gives a meaning to.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

func (l *Log) segment(n uint64) string { return l.prefix + "." + strconv.FormatUint(n, 10) }

func (l *Log) openSegment() error {
	f, err := os.OpenFile(l.segment(l.seq), os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("aheadlog: %w", err)
	}
	l.f, l.size = f, 0
	return nil
}

// Append writes records, whole lines each ending in its newline (JSON
// values as json.Encoder writes them), in one write(2). When it returns nil
// they survive a crash of the process.
func (l *Log) Append(recs []byte) error {
	if len(recs) < 2 || recs[0] == '\n' || recs[len(recs)-1] != '\n' {
		return errors.New("aheadlog: records are non-empty lines, each with its newline")
	}
	if l.f == nil {
		if err := l.openSegment(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(recs)
	l.size += int64(n)
	if err != nil {
		// Whatever part of the line was written stays the last line of its
		// segment, a torn tail Replay skips: the next record starts a segment.
		if n > 0 {
			l.Seal()
		}
		return fmt.Errorf("aheadlog: append: %w", err)
	}
	return nil
}

// Seal ends the open segment and returns a mark: the segments up to the mark
// hold every record appended so far (0: there are none). It opens the next
// segment at once: creating a file costs a reply that waits for its append a
// few hundred microseconds when the disk is busy, and the sealer (the
// journal's commit) waits for nobody. When that open fails, the next Append
// tries again and reports it.
func (l *Log) Seal() uint64 {
	if l.f == nil || l.size == 0 {
		return l.seq - 1
	}
	_ = l.f.Close() // a write error was reported by Append; closing a file written with O_APPEND loses nothing
	l.sealed = append(l.sealed, l.seq)
	l.f, l.seq = nil, l.seq+1
	_ = l.openSegment()
	return l.seq - 1
}

// Drop removes the sealed segments up to the mark: their records are in the store.
func (l *Log) Drop(mark uint64) error {
	var errs []error
	kept := l.sealed[:0]
	for _, n := range l.sealed {
		if n > mark {
			kept = append(kept, n)
			continue
		}
		if err := os.Remove(l.segment(n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			kept = append(kept, n)
		}
	}
	l.sealed = kept
	return errors.Join(errs...)
}

// Replay calls fn with every whole record of the sealed segments, oldest
// first. A last line without its newline (a write the crash cut short, never
// acknowledged) is skipped. It returns fn's first error.
func (l *Log) Replay(fn func(rec []byte) error) error {
	for _, n := range l.sealed {
		data, err := os.ReadFile(l.segment(n))
		if err != nil {
			return fmt.Errorf("aheadlog: replay: %w", err)
		}
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				break // torn
			}
			if i > 0 {
				if err := fn(data[:i]); err != nil {
					return fmt.Errorf("aheadlog: replay %s: %w", l.segment(n), err)
				}
			}
			data = data[i+1:]
		}
	}
	return nil
}

// Close closes the open segment, removing it when it holds nothing.
func (l *Log) Close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	if l.size == 0 {
		err = errors.Join(err, os.Remove(l.segment(l.seq)))
	}
	l.f = nil
	return err
}
