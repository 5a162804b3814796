package history

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitRefSeparatesADatabaseFromItsBranch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	open(t, db)
	plain := filepath.Join(dir, "base@v1.json")
	require.NoError(t, os.WriteFile(plain, []byte("{}"), 0o644))
	for _, c := range []struct{ spec, db, ref string }{
		{db + "@main", db, "main"},
		{db + "@feature/a@b", "", ""}, // the part before the last @ is no database
		{plain, "", ""},
		{filepath.Join(dir, "missing.json"), "", ""},
		{"postgres://ci:pw@db.example:5432/history@main", "postgres://ci:pw@db.example:5432/history", "main"},
		{"postgres://ci:pw@db.example/history@feature/x", "postgres://ci:pw@db.example/history", "feature/x"},
		{"postgres://ci@db.example/history", "", ""},
	} {
		gotDB, gotRef, ok := SplitRef(c.spec)
		assert.Equal(t, c.db != "", ok, c.spec)
		assert.Equal(t, c.db, gotDB, c.spec)
		assert.Equal(t, c.ref, gotRef, c.spec)
	}
}

func TestSinceTakesADateATimeOrAnAge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-11-30":           time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		"2026-11-30T10:00:00Z": time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		"36h":                  now.Add(-36 * time.Hour),
		"30d":                  now.AddDate(0, 0, -30),
	} {
		got, err := ParseSince(in, now)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ParseSince("-3h", now)
	assert.ErrorContains(t, err, `"-3h": expected a date`)
}
