package history

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations
var migrations embed.FS

// ErrNoDrivers is the error of Open in a build without the database
// drivers (see DriversLinked).
var ErrNoDrivers = errors.New("this build of retrievaltest has no database drivers (they would slow down every command's start); " +
	"run it through retrievaltest-clouds, which the release archives carry beside it, or build it without -tags nodb " +
	"(go install github.com/agentretrieval/agentretrieval/cmd/retrievaltest@latest)")

// A Store is an open history database.
type Store struct {
	db      *sql.DB
	dialect dialect
	// name is the database as the user gave it, with any password
	// hidden, for errors.
	name string
}

type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// IsPostgres reports whether dsn names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens the history database dsn, creating it when it does not exist,
// and brings its schema to this build's version. dsn is a postgres:// URL
// or the path of a SQLite file.
//
// A database whose schema is newer than this build's is an error: an older
// binary must not write rows a newer schema does not expect.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if dsn == "" {
		return nil, errors.New("history: no database given (expected a SQLite file path or a postgres:// URL)")
	}
	s := &Store{name: displayName(dsn)}
	if !DriversLinked {
		return nil, fmt.Errorf("history %s: %w", s.name, ErrNoDrivers)
	}
	var err error
	if IsPostgres(dsn) {
		s.dialect = postgresDialect
		s.db, err = sql.Open("pgx", dsn)
		if err != nil {
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
	} else {
		if strings.Contains(dsn, "://") {
			return nil, fmt.Errorf("history %s: expected a SQLite file path or a postgres:// URL", s.name)
		}
		if info, err := os.Stat(dsn); err == nil && info.IsDir() {
			return nil, fmt.Errorf("history %s: is a folder (expected a SQLite file path or a postgres:// URL)", s.name)
		} else if err == nil {
			if err := checkSQLiteHeader(dsn); err != nil {
				return nil, err
			}
		}
		s.dialect = sqliteDialect
		s.db, err = sql.Open("sqlite", sqliteDSN(dsn))
		if err != nil {
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// sqliteDSN is the modernc.org/sqlite data source of a file: writers wait
// up to a minute for each other instead of failing with SQLITE_BUSY,
// transactions take the write lock when they begin (so two writers never
// deadlock upgrading a read lock), the write-ahead log lets readers run
// beside a writer, and foreign keys are enforced (deleting a scenario
// deletes its expectations).
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(60000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// checkSQLiteHeader rejects an existing file that is not a SQLite database
// (an empty file is one SQLite will initialize), so that a baseline JSON
// file given by mistake is named rather than overwritten.
func checkSQLiteHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.Read(head)
	if n == 0 {
		return nil
	}
	if string(head[:n]) != "SQLite format 3\x00" {
		return fmt.Errorf("history %s: not a SQLite database (expected a SQLite file path or a postgres:// URL)", path)
	}
	return nil
}

// IsSQLiteFile reports whether path is an existing SQLite database file.
func IsSQLiteFile(path string) bool {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
		return false
	}
	return checkSQLiteHeader(path) == nil
}

// displayName is dsn with a URL's password replaced by "xxxxx".
func displayName(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Name is the database as Open was given it, with a URL's password hidden.
func (s *Store) Name() string { return s.name }

// q rewrites a statement's "?" placeholders to PostgreSQL's "$1", "$2", …;
// the statements of this package hold no "?" of their own.
func (s *Store) q(query string) string {
	if s.dialect != postgresDialect {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sqliteLocker serializes schema migrations of one SQLite file between
// processes, which goose leaves to the caller for SQLite: a row in a lock
// table, taken by inserting it. A lock older than staleLock was left by a
// process that died and is taken over.
type sqliteLocker struct{}

const staleLock = 2 * time.Minute

func (sqliteLocker) Lock(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS history_migration_lock (id INTEGER PRIMARY KEY CHECK (id = 1), taken_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	for {
		now := time.Now().UnixMilli()
		if _, err := db.ExecContext(ctx, `DELETE FROM history_migration_lock WHERE taken_at < ?`, now-staleLock.Milliseconds()); err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		res, err := db.ExecContext(ctx, `INSERT INTO history_migration_lock (id, taken_at) VALUES (1, ?) ON CONFLICT DO NOTHING`, now)
		if err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("migration lock: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (sqliteLocker) Unlock(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `DELETE FROM history_migration_lock`)
	return err
}
