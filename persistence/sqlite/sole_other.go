//go:build !unix

package sqlite

import "context"

// LockSole cannot tell on this system: a restarted single node waits out its
// predecessor's lease.
func (s *Store) LockSole(context.Context) (bool, error) { return false, nil }
