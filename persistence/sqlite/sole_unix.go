//go:build unix

package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/shlyuz/shlyuz"
)

// LockSole takes an exclusive flock(2) on the database file without waiting,
// and holds it until the store is closed. The kernel lets go of it when the
// process ends, however it ends, so a gateway that gets it knows no other
// single node serves this file. flock is independent of the POSIX record
// locks SQLite itself takes on the file, so it never blocks a read or write.
func (s *Store) LockSole(context.Context) (bool, error) {
	s.soleMu.Lock()
	defer s.soleMu.Unlock()
	if s.sole != nil {
		return true, nil
	}
	f, err := os.OpenFile(s.path, os.O_RDWR, 0)
	if err != nil {
		return false, fmt.Errorf("sqlite: lock %s: %w", s.path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, fmt.Errorf("sqlite: %s is locked by another process: %w", s.path, shlyuz.ErrMemberConflict)
		}
		return false, fmt.Errorf("sqlite: lock %s: %w", s.path, err)
	}
	s.sole = f
	return true, nil
}
