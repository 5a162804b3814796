package htmlreport

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// shownResultCases are results whose entries a page shows in part: many
// lines, long lines (ASCII, multi-byte, tabs, carriage returns, invalid
// bytes), blank lines and trailing newlines.
var shownResultCases = []string{
	"",
	"\n\n",
	"one line",
	"1\n2\n3\n4\n5\n6",
	"1\n2\n3\n4\n5\n6\n",
	"1\n2\n3\n4\n5\n6\n7",
	"1\n2\n3\n4\n5\n6\n\n\nx\n\n",
	strings.Repeat("l\n", keptResultLines-1) + "last",
	strings.Repeat("l\n", keptResultLines) + "one more",
	strings.Repeat(strings.Repeat("w", 999)+"\n", 20),
	strings.Repeat(strings.Repeat("w", 999)+"\n", 5) + ".\n.\n",
	strings.Repeat("line\n", 100000),
	strings.Repeat("x", 5000) + "\n" + strings.Repeat("é", 3000) + "\r\n" + strings.Repeat("\t", 900) + "\n" + strings.Repeat("日本\xff", 700),
	strings.Repeat("a", maxShownLineBytes) + "\r\nb",
	strings.Repeat("\x01", 2000),
}

func TestAShownResultShowsWhatTheWholeResultShows(t *testing.T) {
	for _, s := range shownResultCases {
		shown := ShownResult(s)
		assertShowsTheSame(t, s, shown)
		assert.LessOrEqual(t, len(shown), keptResultBytes+maxShownLineBytes+2*strings.Count(s, "\n")+1)
	}
	big := strings.Repeat(strings.Repeat("y", 100)+"\n", 80000) // 8 MB
	assert.Less(t, len(ShownResult(big)), 200000, "the lines past the first are a byte or two each")
}

func FuzzShownResult(f *testing.F) {
	for _, s := range shownResultCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assertShowsTheSame(t, s, ShownResult(s))
	})
}

func assertShowsTheSame(t *testing.T, whole, shown string) {
	t.Helper()
	wantText, wantNote := resultText(whole)
	gotText, gotNote := resultText(shown)
	if wantText != gotText || wantNote != gotNote {
		t.Fatalf("result %q: shown as %q %q, the whole as %q %q", trim(whole), gotText, gotNote, wantText, wantNote)
	}
	if again := ShownResult(shown); again != shown {
		t.Fatalf("result %q: ShownResult is not the same twice", trim(whole))
	}
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
