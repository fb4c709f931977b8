package sqlite_test

import (
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/storetest"
)

// BenchmarkCommitBatch is the journal's tick commit under load
// (storetest.BenchCommitBatch).
func BenchmarkCommitBatch(b *testing.B) {
	storetest.BenchCommitBatch(b, func(b *testing.B) shlyuz.Store { return openAt(b, freshPath(b)) })
}
