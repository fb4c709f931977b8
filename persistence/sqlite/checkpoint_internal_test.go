package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// TestWALBounded: keys made while a reader holds an old snapshot grow the
// WAL past its limit (a passive checkpoint cannot reset it then); once the
// reader is done, one round of the checkpointer brings the file back under
// the limit, and the keys are all there.
func TestWALBounded(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "shlyuz.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.walLimit = 256 << 10
	if err := s.CreateAccount(ctx, shlyuz.Account{ID: "acct-1", Email: "a@example.com", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	reader, err := s.db.QueryContext(ctx, `SELECT id FROM accounts UNION ALL SELECT id FROM accounts`)
	if err != nil || !reader.Next() { // a statement in progress holds its snapshot
		t.Fatal(err)
	}
	const keys = 150
	for i := range keys {
		plain, hash := shlyuz.NewKeySecret()
		k := shlyuz.Key{ID: fmt.Sprintf("key-%d", i), AccountID: "acct-1", Name: "k", Hash: hash, Label: shlyuz.MaskKey(plain), CreatedAt: time.Now()}
		if err := s.CreateKey(ctx, k, 0); err != nil {
			t.Fatal(err)
		}
	}
	s.checkpoint() // the reader still holds the old frames: no truncation yet
	grown := s.walSize()
	if grown <= s.walLimit {
		t.Fatalf("WAL %d bytes after %d keys under an open reader; want past the limit %d for this test to mean anything", grown, keys, s.walLimit)
	}
	_ = reader.Close()
	s.checkpoint()
	if got := s.walSize(); got > s.walLimit {
		t.Fatalf("WAL %d bytes after the checkpointer's round (was %d); want at most %d", got, grown, s.walLimit)
	}
	all, err := s.KeysOf(ctx, "acct-1")
	if err != nil || len(all) != keys {
		t.Fatalf("KeysOf = %d, %v; want %d", len(all), err, keys)
	}
	t.Logf("WAL: %d bytes grown, %d after the checkpoint", grown, s.walSize())
}
