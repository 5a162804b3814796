package events

import "testing"

func TestIsClockReadsTwoOrThreeColonSeparatedParts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"09:47", true},
		{"9:47", true},
		{"09:47:12", true},
		{"09:47:12.123456789", true},
		{"9:47.5", true},
		{"09", false},
		{"", false},
		{":", false},
		{"09:", false},
		{":47", false},
		{"09:47:", false},
		{"09:47:12:01", false},
		{"009:47", false},
		{"09:7", false},
		{"09:477", false},
		{"09:47:1", false},
		{"09:4a", false},
		{"09:47.", false},
		{"09:47.1x", false},
		{"09::47", false},
		{"2024", false},
	} {
		if got := isClock(c.in); got != c.want {
			t.Errorf("isClock(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
