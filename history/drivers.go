//go:build !nodb

package history

import (
	"context"
	"fmt"
	"io/fs"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver with database/sql
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // registers the "sqlite" driver: pure Go, so the command stays cgo-free
)

// DriversLinked reports whether this build has the database drivers (and
// goose, which migrates the schema): every build but one made with -tags
// nodb.
const DriversLinked = true

// migrate brings the schema to this build's version, from the migrations
// of the store's database, and refuses a schema newer than the build's.
func (s *Store) migrate(ctx context.Context) error {
	sub, dial, locker := "migrations/sqlite", goose.DialectSQLite3, goose.WithLocker(sqliteLocker{})
	if s.dialect == postgresDialect {
		l, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return fmt.Errorf("history %s: %w", s.name, err)
		}
		sub, dial, locker = "migrations/postgres", goose.DialectPostgres, goose.WithSessionLocker(l)
	}
	fsys, err := fs.Sub(migrations, sub)
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(dial, s.db, fsys, locker)
	if err != nil {
		return fmt.Errorf("history %s: %w", s.name, err)
	}
	current, err := p.GetDBVersion(ctx)
	if err == nil {
		sources := p.ListSources()
		if latest := sources[len(sources)-1].Version; current > latest {
			return fmt.Errorf("history %s: schema version %d is newer than this build's (%d): use a newer retrievaltest", s.name, current, latest)
		}
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("history %s: migrating the schema: %w", s.name, err)
	}
	return nil
}
