package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// OpenExisting is Open for a database that is only read: a SQLite file
// must exist rather than be created empty.
func OpenExisting(ctx context.Context, db string) (*Store, error) {
	if !IsPostgres(db) {
		if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("history %s: no such file (runs are recorded with check -history %s)", db, db)
		}
	}
	return Open(ctx, db)
}

// SplitRef splits DB@REF, a history database and a branch or commit, as
// "check -baseline" takes it; ok is false when spec is not one. A postgres:// URL is one when its path (after
// the host, whose user part may hold an @) has an @; a file path is one
// when the part before its last @ is a SQLite file and the whole is not a
// file.
func SplitRef(spec string) (db, ref string, ok bool) {
	if IsPostgres(spec) {
		u, err := url.Parse(spec)
		if err != nil {
			return "", "", false
		}
		path, r, found := strings.Cut(u.Path, "@")
		if !found {
			return "", "", false
		}
		u.Path, u.RawPath = path, ""
		return u.String(), r, true
	}
	i := strings.LastIndex(spec, "@")
	if i < 0 {
		return "", "", false
	}
	if _, err := os.Stat(spec); err == nil {
		return "", "", false
	}
	if !IsSQLiteFile(spec[:i]) {
		return "", "", false
	}
	return spec[:i], spec[i+1:], true
}

// ParseSince reads a date, an RFC 3339 time or an age before now (a Go
// duration, or a number of days with "d").
func ParseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q: expected a date (2026-11-30), an RFC 3339 time or an age (36h, 30d)", s)
}
