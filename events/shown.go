package events

import (
	"strings"
)

// What a command printed is measured from its output, not from what it
// asked for: `sed -n '1,200p' a.ts` on a 113-line file shows lines 1–113,
// and an output the agent framework cut shows only the lines left on each
// side of the cut. shownOutput reads a shell result into the runs of lines
// the agent saw and the cuts between them.

// A shownRun is a run of consecutive output lines the agent saw, and what
// was cut after it.
type shownRun struct {
	lines []string
	// gap is the number of output lines cut after the run: 0 for none,
	// gapUnknown when the cut is counted in characters (or not counted),
	// so that the lines after it cannot be numbered.
	gap int
}

const gapUnknown = -1

// shownOutput splits a result into runs of shown lines. It recognizes the
// cut markers agent frameworks write in place of what they left out:
//
//   - Codex: a "Total output lines: N" header and "[... omitted K of N
//     lines ...]";
//   - Claude Code: "... [N characters truncated] ...";
//   - mini-swe-agent (as the trace reader renders its elided middle):
//     "[... N characters elided ...]";
//   - SWE-agent and OpenHands: "<response clipped>", after which nothing
//     of the output follows.
//
// A trailing newline does not make a line; a line cut part-way counts.
func shownOutput(result string) []shownRun {
	result = capResult(result)
	// Codex puts the count of the whole output above a cut one.
	if rest, ok := strings.CutPrefix(result, "Total output lines: "); ok {
		if _, j := leadingInt(rest); j > 0 {
			after := rest[j:]
			if s, ok := strings.CutPrefix(after, "\n\n"); ok {
				result = s
			} else if s, ok := strings.CutPrefix(after, "\n"); ok {
				result = s
			}
		}
	}
	var runs []shownRun
	cur := shownRun{}
	lines := 0
	for len(result) > 0 && lines < maxResultLines {
		var line string
		if i := strings.IndexByte(result, '\n'); i >= 0 {
			line, result = result[:i], result[i+1:]
		} else {
			line, result = result, ""
		}
		lines++
		line = strings.TrimSuffix(line, "\r")
		if gap, ok := cutMarker(line); ok {
			// Codex and Claude Code write their markers between blank
			// lines; those are not output lines.
			if n := len(cur.lines); n > 0 && cur.lines[n-1] == "" {
				cur.lines = cur.lines[:n-1]
			}
			cur.gap = gap
			runs = append(runs, cur)
			cur = shownRun{}
			if strings.HasPrefix(result, "\n") {
				result = result[1:]
			} else if strings.HasPrefix(result, "\r\n") {
				result = result[2:]
			}
			if strings.Contains(line, "<response clipped>") {
				return runs
			}
			continue
		}
		cur.lines = append(cur.lines, line)
	}
	if len(cur.lines) > 0 {
		runs = append(runs, cur)
	}
	return runs
}

// cutMarker recognizes a line that stands for output the agent framework
// left out, and how many lines it left out when the marker says.
func cutMarker(line string) (gap int, ok bool) {
	// Most lines are not markers: look at the first byte past the
	// indentation before trimming.
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) || line[i] != '[' && line[i] != '.' && line[i] != '<' {
		return 0, false
	}
	t := strings.TrimSpace(line[i:])
	if strings.HasPrefix(t, "<response clipped>") || strings.HasPrefix(t, "[Previous command outputs are truncated") {
		// SWE-agent and OpenHands; OpenHands' note stands before the last
		// lines of an output whose start it dropped.
		return gapUnknown, true
	}
	var inner string
	if len(t) < len("[... ")+len(" ...]") {
		return 0, false
	}
	switch {
	case strings.HasPrefix(t, "[... ") && strings.HasSuffix(t, " ...]"):
		inner = t[len("[... ") : len(t)-len(" ...]")]
	case strings.HasPrefix(t, "... [") && strings.HasSuffix(t, "] ..."):
		inner = t[len("... [") : len(t)-len("] ...")]
	default:
		return 0, false
	}
	// "omitted 39 of 295 lines"
	if rest, ok := strings.CutPrefix(inner, "omitted "); ok {
		n, j := leadingInt(rest)
		if j > 0 && strings.HasPrefix(rest[j:], " of ") && strings.HasSuffix(rest, " lines") {
			return n, true
		}
		return gapUnknown, true
	}
	// "600615 characters truncated", "1234 characters elided"
	if n, j := leadingInt(inner); j > 0 {
		rest := strings.TrimSpace(inner[j:])
		if strings.HasPrefix(rest, "characters ") || strings.HasPrefix(rest, "chars ") ||
			strings.HasPrefix(rest, "bytes ") || strings.HasPrefix(rest, "tokens ") {
			return gapUnknown, true
		}
		if strings.HasPrefix(rest, "lines ") {
			return n, true
		}
	}
	// Gemini CLI: "... [CONTENT TRUNCATED] ...".
	if l := strings.ToLower(inner); strings.Contains(l, "truncated") || strings.Contains(l, "clipped") || strings.Contains(l, "elided") {
		return gapUnknown, true
	}
	return 0, false
}

// printedLines counts the output lines of a content command, its error
// messages left out.
func printedLines(runs []shownRun, skip func(string) bool) int {
	n := 0
	for _, r := range runs {
		for _, l := range r.lines {
			if skip == nil || !skip(l) {
				n++
			}
		}
	}
	return n
}

// blankOutput reports whether the agent saw no output at all: the result
// is empty, blank, or only cut markers.
func blankOutput(result string) bool {
	for line := range strings.Lines(capResult(result)) {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "Total output lines: ") {
			continue
		}
		if _, ok := cutMarker(strings.TrimRight(line, "\r\n")); !ok {
			return false
		}
	}
	return true
}

// mapShown places the output lines of a command that prints a file's
// lines in order onto the lines it asked for. plan lists the requested
// ranges in the order the command prints them; an End of 0 runs to the
// end of the file. Output past the requested lines is not the file's (a
// bounded request cannot print more); a request the output does not fill
// was cut short by the end of the file. Lines after a cut of unknown size cannot be numbered
// and are left out. skip reports output lines that are not the file's
// (error messages on stderr).
func mapShown(plan []LineRange, runs []shownRun, skip func(string) bool) []LineRange {
	var out []LineRange
	pi := 0 // the requested range being printed
	next := 0
	if len(plan) > 0 {
		next = plan[0].Start
	}
	// advance moves the print position on by n requested lines,
	// recording them when record is set. It returns false once the
	// request is used up.
	advance := func(n int, record bool) bool {
		for n > 0 && pi < len(plan) {
			r := plan[pi]
			if next < r.Start {
				next = r.Start
			}
			left := n
			if r.End > 0 {
				left = min(n, r.End-next+1)
			}
			if left > 0 {
				if record {
					out = appendRange(out, r.Path, next, next+left-1)
				}
				next += left
				n -= left
			}
			if r.End > 0 && next > r.End {
				pi++
				if pi < len(plan) {
					next = plan[pi].Start
				}
			}
		}
		return pi < len(plan)
	}
	for _, run := range runs {
		shown := 0
		for _, l := range run.lines {
			if skip != nil && skip(l) {
				continue
			}
			shown++
		}
		if !advance(shown, true) {
			break
		}
		if run.gap == gapUnknown {
			break
		}
		if !advance(run.gap, false) {
			break
		}
	}
	return out
}

// appendRange appends a range of the one file a request is about,
// extending the last one when it continues it.
func appendRange(rs []LineRange, p string, start, end int) []LineRange {
	if n := len(rs); n > 0 && rs[n-1].End+1 >= start {
		rs[n-1].End = max(rs[n-1].End, end)
		return rs
	}
	return append(rs, LineRange{Path: p, Start: start, End: end})
}
