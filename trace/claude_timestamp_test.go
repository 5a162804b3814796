package trace

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// timestampSeeds are timestamps in Claude Code's form and in the other
// forms RFC 3339 allows, in range and out of it.
var timestampSeeds = []string{
	"2025-09-03T00:00:01.615Z", "2025-09-03T23:59:59Z", "2025-09-03T00:00:01.123456789Z",
	"2025-09-03T00:00:01.1234567891Z", "2025-09-03T00:00:01.Z", "2025-09-03T00:00:01,5Z",
	"2024-02-29T00:00:00Z", "2025-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "1900-02-29T12:00:00Z",
	"2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z", "2025-09-00T00:00:00Z",
	"2025-09-03T24:00:00Z", "2025-09-03T00:60:00Z", "2025-09-03T00:00:60Z", "0000-01-01T00:00:00Z",
	"2025-09-03t00:00:01Z", "2025-09-03T00:00:01z", "2025-09-03T00:00:01+02:00", "2025-09-03T00:00:01.5-07:30",
	"2025-09-03 00:00:01Z", "+025-09-03T00:00:01Z", "2025-9-03T00:00:01Z", "", "Z", "not a time",
}

func TestTimestampsReadAsTimeParseReadsThem(t *testing.T) {
	t.Parallel()
	for _, s := range timestampSeeds {
		assertTimestampLikeTimeParse(t, s)
	}
	got, ok := parseUTCTimestamp([]byte("2025-09-03T00:00:01.615Z"))
	assert.True(t, ok, "Claude Code's own form takes the fast path")
	assert.Equal(t, time.Date(2025, 9, 3, 0, 0, 1, 615e6, time.UTC), got)
}

func assertTimestampLikeTimeParse(t *testing.T, s string) {
	t.Helper()
	want, err := time.Parse(time.RFC3339Nano, s)
	got, ok := parseTimestamp([]byte(s))
	if assert.Equal(t, err == nil, ok, "%q: accepted as time.Parse accepts it (%v)", s, err) && ok {
		// The same instant in the same zone (time.Parse makes a new
		// zone for each offset it reads, so == compares pointers).
		wantZone, wantOff := want.Zone()
		gotZone, gotOff := got.Zone()
		assert.True(t, want.Equal(got) && wantZone == gotZone && wantOff == gotOff, "%q: %v, want %v", s, got, want)
		if want.Location() == time.UTC {
			assert.True(t, want == got, "%q: %#v, want %#v", s, got, want)
		}
	}
}

func FuzzTimestampLikeTimeParse(f *testing.F) {
	for _, s := range timestampSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assertTimestampLikeTimeParse(t, s)
	})
}
