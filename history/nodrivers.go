//go:build nodb

package history

import "context"

// DriversLinked reports whether this build has the database drivers. A
// build made with -tags nodb has none, nor goose: Go initializes the
// packages of the SQLite and PostgreSQL drivers at every start of a
// program that links them, which a command that never opens a history
// need not pay. Open then fails with ErrNoDrivers.
const DriversLinked = false

func (s *Store) migrate(context.Context) error { return ErrNoDrivers }
