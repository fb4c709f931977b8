package sqlite_test

import (
	"context"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/storetest"
)

// BenchmarkCommitBatch is the journal's tick commit under load
// (storetest.BenchCommitBatch), with the journal's context (one that is never
// done: modernc starts no interrupt goroutine per statement then).
func BenchmarkCommitBatch(b *testing.B) {
	storetest.BenchCommitBatch(b, context.Background(), func(b *testing.B) shlyuz.Store { return openAt(b, freshPath(b)) })
}
