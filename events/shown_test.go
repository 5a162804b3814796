package events

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func outLines(n int, prefix string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(prefix)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestMapShownPlacesPrintedLinesOnTheRequestedOnes(t *testing.T) {
	t.Parallel()
	open := func(start int) []LineRange { return []LineRange{{Path: "a.ts", Start: start}} }
	span := func(start, end int) []LineRange { return []LineRange{{Path: "a.ts", Start: start, End: end}} }
	cases := []struct {
		name   string
		plan   []LineRange
		output string
		want   []LineRange
	}{
		{"sed -n '1,200p' on a 113-line file shows 1-113", span(1, 200), outLines(113, "l"), span(1, 113)},
		{"a range printed whole shows all of it", span(10, 40), outLines(31, "l"), span(10, 40)},
		{"output longer than a bounded plan is not the file's", span(1, 5), outLines(9, "l"), span(1, 5)},
		{"cat shows as many lines as it printed", open(1), outLines(7, "l"), span(1, 7)},
		{"tail -n +N starts at N", open(50), outLines(3, "l"), span(50, 52)},
		{"an empty last line of the output is a line of the file", open(1), "a\n\n", span(1, 2)},
		{"a trailing newline adds no line", open(1), "a\nb\n", span(1, 2)},
		{"a final line without a newline counts", open(1), "a\nb", span(1, 2)},
		{
			"Codex's omitted middle is skipped by its count",
			span(220, 640),
			"Total output lines: 295\n\n" + outLines(128, "h") + "\n[... omitted 39 of 295 lines ...]\n\n" + outLines(128, "t"),
			[]LineRange{{Path: "a.ts", Start: 220, End: 347}, {Path: "a.ts", Start: 387, End: 514}},
		},
		{
			"a cut counted in characters ends what can be numbered",
			open(1),
			outLines(10, "h") + "\n... [600615 characters truncated] ...\n\n" + outLines(10, "t"),
			span(1, 10),
		},
		{
			"mini-swe-agent's elided middle ends what can be numbered",
			open(1),
			outLines(4, "h") + "[... 1234 characters elided ...]\n" + outLines(4, "t"),
			span(1, 4),
		},
		{"nothing after SWE-agent's clipped response", open(1), outLines(3, "h") + "<response clipped><NOTE>To save on context…</NOTE>\n" + outLines(3, "t"), span(1, 3)},
		{
			"several sed ranges are filled in order",
			[]LineRange{{Path: "a.ts", Start: 1, End: 3}, {Path: "a.ts", Start: 10, End: 12}},
			outLines(5, "l"),
			[]LineRange{{Path: "a.ts", Start: 1, End: 3}, {Path: "a.ts", Start: 10, End: 11}},
		},
		{"empty output shows nothing", span(1, 20), "", nil},
		{"a cut of no lines leaves one range", open(1), "a\nb\n[... omitted 0 of 4 lines ...]\nc\nd\n", span(1, 4)},
		{
			"adjacent requested ranges printed whole are one range",
			[]LineRange{{Path: "a.ts", Start: 1, End: 3}, {Path: "a.ts", Start: 4, End: 6}},
			outLines(6, "l"),
			span(1, 6),
		},
		{"a count header without its blank line is still no line", open(1), "Total output lines: 2\na\nb\n", span(1, 2)},
		{"a text that only starts like the header is output", open(1), "Total output lines: many\na\n", span(1, 2)},
		{"a line before a marker that is not blank is output", open(1), "a\nb\n[... omitted 2 of 5 lines ...]\nc\n", []LineRange{{Path: "a.ts", Start: 1, End: 2}, {Path: "a.ts", Start: 5, End: 5}}},
		{
			"a known cut runs on across requested ranges",
			[]LineRange{{Path: "a.ts", Start: 1, End: 3}, {Path: "a.ts", Start: 10, End: 12}},
			"a\nb\n\n[... omitted 2 of 6 lines ...]\n\nc\nd\n",
			[]LineRange{{Path: "a.ts", Start: 1, End: 2}, {Path: "a.ts", Start: 11, End: 12}},
		},
		{
			"a cut past the end of a bounded request leaves nothing after it",
			span(1, 3),
			"a\nb\n[... omitted 5 of 9 lines ...]\nc\nd\n",
			span(1, 2),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, mapShown(tc.plan, shownOutput(tc.output), nil))
		})
	}
}

func TestMapShownWithNothingRequestedCreditsNothing(t *testing.T) {
	t.Parallel()
	assert.Nil(t, mapShown(nil, shownOutput("a\nb\n"), nil))
}

func TestShownOutputReadsAtMostMaxResultLines(t *testing.T) {
	t.Parallel()
	out := strings.Repeat("x\n", maxResultLines+5)
	assert.Equal(t, []LineRange{{Path: "f", Start: 1, End: maxResultLines}},
		mapShown([]LineRange{{Path: "f", Start: 1}}, shownOutput(out), nil))
}

func TestMapShownLeavesOutTheCommandsErrorLines(t *testing.T) {
	t.Parallel()
	a := &shellAnalyzer{names: []string{"sed"}}
	out := "sed: can't read b.ts: No such file or directory\n" + outLines(4, "l")
	assert.Equal(t, []LineRange{{Path: "a.ts", Start: 1, End: 4}},
		mapShown([]LineRange{{Path: "a.ts", Start: 1, End: 9}}, shownOutput(out), a.errorLine))
	// A file line that only starts like a message ("sed: x" in a YAML
	// file) is the file's.
	assert.False(t, a.errorLine("sed: the stream editor"))
}

func TestCutMarkers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		gap  int
		ok   bool
	}{
		{"[... omitted 164 of 420 lines ...]", 164, true},
		{"... [600615 characters truncated] ...", gapUnknown, true},
		{"[... 52 characters elided ...]", gapUnknown, true},
		{"<response clipped><NOTE>…</NOTE>", gapUnknown, true},
		{"[... 12 lines omitted ...]", 12, true},
		{"[... see the docs ...]", 0, false},
		{"...", 0, false},
		{"    [... omitted 3 of 9 lines ...]", 3, true},
		{"... [CONTENT TRUNCATED] ...", gapUnknown, true},
		{"[Previous command outputs are truncated. Showing the last 9 lines of the output below.]", gapUnknown, true},
		{"[... omitted  of 295 lines ...]", gapUnknown, true},
		{"[... lines omitted ...]", 0, false},
	} {
		gap, ok := cutMarker(tc.line)
		assert.Equal(t, tc.ok, ok, tc.line)
		assert.Equal(t, tc.gap, gap, tc.line)
	}
}

// The runs of an output are its lines between cut markers, each with the
// gap after it; Codex's count of the whole output is left out only when it
// is a number.
func TestShownOutputRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		out  string
		want []shownRun
	}{
		{"a\n[... omitted 3 of 10 lines ...]", []shownRun{{lines: []string{"a"}, gap: 3}}},
		{"a\n[... omitted 3 of 10 lines ...]\nb", []shownRun{{lines: []string{"a"}, gap: 3}, {lines: []string{"b"}}}},
		{"Total output lines: 12\n\nabc", []shownRun{{lines: []string{"abc"}}}},
		{"Total output lines: \nabc", []shownRun{{lines: []string{"Total output lines: ", "abc"}}}},
	} {
		assert.Equal(t, tc.want, shownOutput(tc.out), "%q", tc.out)
	}
}

// FuzzShownLines checks, for any output and any requested range, that the
// lines credited lie inside the request, are no more than the output
// printed, come in order without overlap, and that nothing panics.
func FuzzShownLines(f *testing.F) {
	f.Add("a\nb\nc\n", 1, 0)
	f.Add("Total output lines: 9\n\na\n\n[... omitted 5 of 9 lines ...]\n\nb\n", 3, 100)
	f.Add("x\n... [10 characters truncated] ...\n\ny", 1, 2)
	f.Add("", 5, 4)
	f.Add("\n\n\n", 7, 7)
	f.Fuzz(func(t *testing.T, out string, start, end int) {
		if start < 1 || start > 1_000_000 || end < 0 || end > 1_000_000 || end > 0 && end < start {
			return
		}
		runs := shownOutput(out)
		printed := 0
		for _, r := range runs {
			printed += len(r.lines)
		}
		got := mapShown([]LineRange{{Path: "f", Start: start, End: end}}, runs, nil)
		total, last := 0, 0
		for _, r := range got {
			if r.Start < start || end > 0 && r.End > end || r.End < r.Start || r.Start <= last {
				t.Fatalf("range %v outside [%d, %d] or out of order (after %d)", r, start, end, last)
			}
			total += r.End - r.Start + 1
			last = r.End
		}
		if total > printed {
			t.Fatalf("%d lines credited for %d printed", total, printed)
		}
		if len(runs) == 1 && runs[0].gap == 0 && end == 0 && total != printed {
			t.Fatalf("an uncut output of %d lines credited %d", printed, total)
		}
	})
}
