//go:build !nodb

package history

import (
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver with database/sql
	_ "modernc.org/sqlite"             // registers the "sqlite" driver: pure Go, so the command stays cgo-free
)

// DriversLinked reports whether this build has the database drivers: every
// build but one made with -tags nodb.
const DriversLinked = true
