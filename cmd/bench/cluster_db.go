package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// clusterSchemas are the fresh PostgreSQL schemas of -cluster: one for the
// single-mode node, one shared by the sql-mode nodes. A DSN selects a
// schema with its search_path parameter, as the gateway's tests do.
type clusterSchemas struct {
	base  string   // -db
	names []string // created, in order
}

// pgExec runs one statement on a connection of its own.
func pgExec(ctx context.Context, dsn, stmt string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, stmt)
	return err
}

// pgReachable connects to db and pings it, within a few seconds; its error
// is one plain line.
func pgReachable(ctx context.Context, db string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, db)
	if err == nil {
		err = conn.Ping(ctx)
		conn.Close(context.Background())
	}
	if err != nil {
		return fmt.Errorf("PostgreSQL at %s is unreachable: %s", redactDSN(db), strings.Join(strings.Fields(innermost(err).Error()), " "))
	}
	return nil
}

// innermost is the last error of err's chain, following the first of
// joined errors (pgx joins one error per attempt, each repeating the
// address; the cause is enough: "connection refused").
func innermost(err error) error {
	for {
		var next error
		switch e := err.(type) {
		case interface{ Unwrap() []error }:
			if errs := e.Unwrap(); len(errs) > 0 {
				next = errs[0]
			}
		case interface{ Unwrap() error }:
			next = e.Unwrap()
		}
		if next == nil {
			return err
		}
		err = next
	}
}

// createSchemas makes n schemas named PREFIX_1… on db. On an error the
// schemas made so far are dropped again.
func createSchemas(ctx context.Context, db, prefix string, n int) (*clusterSchemas, error) {
	s := &clusterSchemas{base: db}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%s_%d", prefix, i)
		if err := pgExec(ctx, db, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
			_ = s.drop()
			return nil, fmt.Errorf("create schema %s: %w", name, err)
		}
		s.names = append(s.names, name)
	}
	return s, nil
}

// dsn is -db with its search_path set to the i-th schema.
func (s *clusterSchemas) dsn(i int) string {
	u, err := url.Parse(s.base)
	if err != nil { // parseFlags checked the prefix; a DSN url cannot parse is refused by pgx too
		return s.base
	}
	q := u.Query()
	q.Set("search_path", s.names[i])
	u.RawQuery = q.Encode()
	return u.String()
}

// drop removes every schema made, even after the run's context ended.
func (s *clusterSchemas) drop() error {
	var errs []error
	for _, name := range s.names {
		if err := pgExec(context.Background(), s.base, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			errs = append(errs, fmt.Errorf("drop schema %s: %w", name, err))
		}
	}
	s.names = nil
	return errors.Join(errs...)
}
