// Package blob keeps media files (finished videos) outside the database: in a
// local directory (the default, beside the SQLite file) or in S3-compatible
// object storage for a cluster.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Local is a shlyuz.BlobStore in a directory: one file per key.
type Local struct{ dir string }

var _ shlyuz.BlobStore = (*Local)(nil)

// NewLocal keeps files under dir, creating it when absent.
func NewLocal(dir string) (*Local, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return &Local{dir: dir}, nil
}

func (l *Local) path(key string) (string, error) {
	if key == "" || strings.ContainsAny(key, `/\`) || strings.HasPrefix(key, ".") {
		return "", fmt.Errorf("blob: bad key %q", key)
	}
	return filepath.Join(l.dir, key), nil
}

// Put writes the file through a temporary name, so a reader never sees half of it.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	p, err := l.path(key)
	if err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(l.dir, ".put-*")
	if err != nil {
		return 0, fmt.Errorf("blob: %w", err)
	}
	n, err := io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	return n, nil
}

// Get opens n bytes from off (n < 0: to the end).
func (l *Local) Get(ctx context.Context, key string, off, n int64) (io.ReadCloser, int64, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("blob: %s: %w", key, shlyuz.ErrNoRows)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("blob: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("blob: %w", err)
	}
	size := st.Size()
	if n < 0 || off+n > size {
		n = size - off
	}
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, off, max(n, 0)), f}, size, nil
}

// Delete removes the file.
func (l *Local) Delete(ctx context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: %w", err)
	}
	return nil
}
