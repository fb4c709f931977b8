package cockroach

import (
	"errors"
	"testing"

	"github.com/shlyuz/shlyuz"
)

// Only one store on a schema holds the single-node lock, another schema's
// store has its own, and the lock is free again once its holder closes
// (a restarted node proves its predecessor gone).
func TestLockSoleIsExclusivePerSchemaUntilClose(t *testing.T) {
	dsn := freshSchema(t)
	first, second, elsewhere := openAt(t, dsn), openAt(t, dsn), openFresh(t)
	if !first.postgres {
		t.Skip("CockroachDB has no advisory locks: LockSole is always false")
	}
	for _, step := range []struct {
		name string
		lock func() (bool, error)
		want bool
	}{
		{"first takes it", func() (bool, error) { return first.LockSole(t.Context()) }, true},
		{"second is refused", func() (bool, error) { return second.LockSole(t.Context()) }, false},
		{"another schema's store takes its own", func() (bool, error) { return elsewhere.LockSole(t.Context()) }, true},
		{"second after the first closed", func() (bool, error) { _ = first.Close(); return second.LockSole(t.Context()) }, true},
	} {
		got, err := step.lock()
		if got != step.want || (err == nil) != step.want || (err != nil && !errors.Is(err, shlyuz.ErrMemberConflict)) {
			t.Fatalf("%s: %v %v, want %v", step.name, got, err, step.want)
		}
	}
}
