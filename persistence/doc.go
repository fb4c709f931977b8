// Package persistence owns the durable form of the gateway's state: the schema
// and its versioned migrations, shared by the two implementations of
// shlyuz.Store that live in its subpackages.
//
//   - persistence/sqlite is the embedded default: one file, modernc.org/sqlite.
//   - persistence/cockroach is the shared store of a cluster: CockroachDB, or
//     PostgreSQL, through pgx and cockroach-go's retry loop.
//   - persistence/storetest is the contract suite both must pass.
//
// The schema is written once (migrations/NNNN_name.sql) in SQL that SQLite,
// PostgreSQL and CockroachDB all accept. A migration that must differ per
// dialect is written as NNNN_name.sqlite.sql and NNNN_name.postgres.sql.
// Conventions of the schema:
//
//   - Instants are BIGINT unix microseconds, 0 meaning "none"; a nullable
//     instant (a key's expires_at, revoked_at) is NULL when absent.
//   - Credits are BIGINT; decimals (rate, K, prices) are TEXT in their exact
//     printed form; structured values (a generation's attempts, a model
//     override) are JSON in TEXT.
//
// Migrate applies the migrations a database lacks and records each applied
// version in the schema_migrations table; both stores call it when they open.
package persistence
