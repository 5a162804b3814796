package sqlitefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSQLiteFile reads whatever it is given as a database: every table,
// every row, every row again by its rowid, and a write-ahead log made of
// the same bytes. It must return or fail, never panic or loop.
func FuzzSQLiteFile(f *testing.F) {
	for _, name := range []string{"kv-interior-overflow.db", "wal.db"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		// Smaller variants, so that mutations reach the structures.
		f.Add(data[:min(len(data), 4096)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = scanAll(data)
		db, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if _, err := db.ApplyWAL(bytes.NewReader(data), int64(len(data))); err == nil {
			_ = scanAll(data)
		}
	})
}
