package history

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// postgresEnv names a PostgreSQL server to test against instead of one the
// tests start: a postgres:// URL of a role that may create databases.
const postgresEnv = "RETRIEVALTEST_POSTGRES"

var (
	pgOnce   sync.Once
	pgServer *testServer
	pgURL    string
	pgSkip   string
	pgDBs    atomic.Int64
)

// postgresDSN returns the URL of a new, empty database on the test
// server, starting the server on first use; it skips the test, with what
// to install, when no server can be had.
func postgresDSN(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		// -short runs against SQLite alone: no server to start, which is
		// what makes mutation testing (a test run per mutant) bearable.
		t.Skip("PostgreSQL tests skipped with -short")
	}
	pgOnce.Do(func() {
		if u := os.Getenv(postgresEnv); u != "" {
			pgURL = u
			return
		}
		var err error
		pgServer, err = startPostgres()
		if err != nil {
			pgSkip = err.Error()
			return
		}
		pgURL = pgServer.url
	})
	if pgURL == "" {
		t.Skipf("PostgreSQL tests skipped: %s (install Debian's postgresql package, or set %s to a postgres:// URL)", pgSkip, postgresEnv)
	}
	admin, err := sql.Open("pgx", pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("history_test_%d_%d", os.Getpid(), pgDBs.Add(1))
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("creating the test database: %v", err)
	}
	t.Cleanup(func() {
		if a, err := sql.Open("pgx", pgURL); err == nil {
			a.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			a.Close()
		}
	})
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func lastLines(b []byte) string {
	const keep = 600
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return string(b)
}

func TestMain(m *testing.M) {
	if child := os.Getenv(childEnv); child != "" {
		os.Exit(runChild(child))
	}
	code := m.Run()
	if pgServer != nil {
		pgServer.stop()
	}
	os.Exit(code)
}

// withTimeout is a context for one test's database work.
func withTimeout(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
