//go:build unix

package sqlite_test

import (
	"errors"
	"testing"

	"github.com/shlyuz/shlyuz"
)

// Only one store on a file holds the single-node lock; it is free again once
// its holder closes (a restarted node proves its predecessor gone).
func TestLockSoleIsExclusiveUntilClose(t *testing.T) {
	path := freshPath(t)
	first, second := openAt(t, path), openAt(t, path)
	for _, step := range []struct {
		name string
		lock func() (bool, error)
		want bool
	}{
		{"first takes it", func() (bool, error) { return first.LockSole(t.Context()) }, true},
		{"first again", func() (bool, error) { return first.LockSole(t.Context()) }, true},
		{"second is refused", func() (bool, error) { return second.LockSole(t.Context()) }, false},
		{"second after the first closed", func() (bool, error) { _ = first.Close(); return second.LockSole(t.Context()) }, true},
	} {
		got, err := step.lock()
		if got != step.want || (err == nil) != step.want || (err != nil && !errors.Is(err, shlyuz.ErrMemberConflict)) {
			t.Fatalf("%s: %v %v, want %v", step.name, got, err, step.want)
		}
	}
}
