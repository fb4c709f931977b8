package sqlite

import (
	"database/sql"

	"github.com/shlyuz/shlyuz/persistence"
)

// MigrationTx runs a migration on tx as the store does, for a test that
// builds an older schema by hand.
func MigrationTx(tx *sql.Tx) persistence.MigrationTx { return migrationTx{tx} }
