//go:build nodb

package history

// DriversLinked reports whether this build has the database drivers. A
// build made with -tags nodb has none: Go initializes the packages of the
// SQLite and PostgreSQL drivers at every start of a program that links
// them, which a command that never opens a history need not pay. Open
// then fails with ErrNoDrivers.
const DriversLinked = false
