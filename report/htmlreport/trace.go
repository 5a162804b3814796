package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/printable"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/report"
)

// How much of a call's arguments and result the call list shows: enough to
// recognize the call, not the whole file it read.
const (
	maxArgumentLines = 12
	maxResultLines   = 6
	maxLineRunes     = 200
	maxDetailRunes   = 160
)

// traceView is one measured trace: its figures, its timeline and its calls.
type traceView struct {
	ID       string
	Name     string
	Meta     string
	Degraded string
	Figures  []figure
	Timeline *timeline
	Calls    []callView
}

// A figure is one labelled value of a trace's summary.
type figure struct{ Label, Value string }

// callView is one tool call as the call list shows it.
type callView struct {
	ID         string
	Step       int
	Tool       string
	Class      string // CSS class of the tool class
	Letter     string
	ClassLabel string
	Category   string
	Gist       string
	Subagent   bool
	Error      bool
	GroundHit  bool
	When       string
	Files      []fileView
	Lines      []string
	Query      string
	Command    string
	Symbols    []string
	Patterns   []patternTag
	Arguments  string
	ArgsNote   string
	Result     string
	ResultNote string
}

// patternTag names a pattern occurrence a call is part of, and says what
// was seen.
type patternTag struct{ Name, Detail string }

type fileView struct {
	Path                             string
	GroundTruth, Read, Written, Edit bool
}

// classInfo names a tool class as the report shows it: the CSS class that
// colours it, the letter drawn on its mark, and its label.
var classInfo = map[events.Class]struct{ css, letter, label string }{
	events.Semantic:   {"c-semantic", "S", "semantic"},
	events.FileLevel:  {"c-file", "F", "file-level"},
	events.Edit:       {"c-edit", "E", "edit"},
	events.OtherClass: {"c-other", "O", "other"},
}

func classOf(c events.Class) (css, letter, label string) {
	info, ok := classInfo[c]
	if !ok {
		info = classInfo[events.OtherClass]
	}
	return info.css, info.letter, info.label
}

// newTraceView builds the view of one measured run; id prefixes the ids of
// its elements, so that several traces share one page.
func newTraceView(id string, run *expectations.Run) traceView {
	tv := traceView{ID: id, Name: clean(run.Trace)}
	doc, res := run.Document, run.Metrics
	if doc == nil {
		tv.Degraded = "no retrieval events could be built from this trace"
		return tv
	}
	var meta []string
	for _, m := range []string{doc.Provenance.Agent, doc.Provenance.Model, doc.Provenance.TraceFormat} {
		if m != "" {
			meta = append(meta, clean(m))
		}
	}
	tv.Meta = strings.Join(meta, " · ")
	if r := doc.Coverage.DegradedReason; r != nil {
		tv.Degraded = clean(*r)
	}
	tv.Figures = traceFigures(doc, res)

	byStep := map[int]*events.Event{}
	for i := range doc.Events {
		byStep[doc.Events[i].StepIndex] = &doc.Events[i]
	}
	var patterns []metrics.Pattern
	if res != nil && res.IndexEffectiveness != nil {
		patterns = res.IndexEffectiveness.Patterns
	}
	// A call shows the patterns it is part of with their detail cut short:
	// the detail of a long fishing run lists its steps, and repeated on
	// each of its calls it would make the page grow with the square of
	// the run. The band over the run has it whole.
	inPattern := map[int][]patternTag{}
	for _, p := range patterns {
		tag := patternTag{Name: p.Name, Detail: shorten(clean(p.Detail), maxDetailRunes)}
		for _, s := range p.Steps {
			inPattern[s] = append(inPattern[s], tag)
		}
	}
	n := len(doc.Events)
	if run.Session != nil {
		n = max(n, len(run.Session.Calls))
	}
	calls := make([]callView, n)
	for i := range calls {
		c := callView{ID: fmt.Sprintf("%s-c%d", id, i+1), Step: i + 1, Patterns: inPattern[i]}
		ev := byStep[i]
		if ev == nil {
			ev = &events.Event{StepIndex: i, ToolClass: events.OtherClass}
		}
		c.Class, c.Letter, c.ClassLabel = classOf(ev.ToolClass)
		c.Tool, c.Category = clean(ev.ToolName), string(ev.ToolCategory)
		c.Subagent, c.Error, c.GroundHit = ev.IsSubagent, ev.IsError, ev.HitsGroundTruth
		c.Query = clean(ev.Query)
		for _, s := range ev.Symbols {
			c.Symbols = append(c.Symbols, clean(s))
		}
		c.When = whenText(ev)
		c.Files = filesOf(ev)
		for _, r := range ev.LineRanges {
			c.Lines = append(c.Lines, fmt.Sprintf("%s:%d–%d", clean(r.Path), r.Start, r.End))
		}
		if run.Session != nil && i < len(run.Session.Calls) {
			call := &run.Session.Calls[i]
			if c.Tool == "" {
				c.Tool = clean(call.Name)
			}
			c.Arguments, c.ArgsNote = cutLines(prettyJSON(call.Arguments), maxArgumentLines)
			// A shell call is known by its command line, a subagent call
			// by its description.
			args := call.ArgumentsMap()
			for _, key := range []string{"command", "description"} {
				if v, ok := args[key].(string); ok && c.Command == "" {
					c.Command = clean(v)
				}
			}
			if call.HasResult {
				c.Result, c.ResultNote = cutLines(call.Result, maxResultLines)
				if c.Result == "" {
					c.ResultNote = "(empty result)"
				}
			} else {
				c.ResultNote = "(the trace has no result for this call)"
			}
		}
		c.Gist = gistOf(&c)
		calls[i] = c
	}
	tv.Calls = calls
	tv.Timeline = newTimeline(id, calls, patterns, len(doc.GroundTruth.Files) > 0)
	return tv
}

// traceFigures are the figures shown above a timeline: calls by class, the
// semantic ratio, steps to target, the patterns, and the ranked-list
// measures when the run has ground truth.
func traceFigures(doc *events.Document, res *metrics.Result) []figure {
	var fs []figure
	add := func(label, value string) { fs = append(fs, figure{label, value}) }
	if res == nil || res.IndexEffectiveness == nil {
		add("tool calls", strconv.Itoa(len(doc.Events)))
		return fs
	}
	ie := res.IndexEffectiveness
	add("tool calls", fmt.Sprintf("%d (%d semantic, %d file-level, %d edit, %d other)", ie.TotalCalls, ie.SemanticCalls, ie.FileLevelCalls, ie.EditCalls, ie.OtherCalls))
	switch {
	case ie.SemanticRatio != nil:
		v := report.FormatValue("semantic_ratio", *ie.SemanticRatio)
		if ie.Grade != "" {
			v += " (" + ie.Grade + ")"
		}
		add("semantic ratio", v)
	case ie.SemanticToolOffered != nil && !*ie.SemanticToolOffered:
		add("semantic ratio", "no semantic tool offered")
	default:
		add("semantic ratio", "n/a (no semantic or file-level call)")
	}
	if ie.StepsToTarget != nil {
		add("steps to target", fmt.Sprintf("%d (%s)", *ie.StepsToTarget, strings.ReplaceAll(ie.StepsToTargetRule, "_", " ")))
	} else {
		add("steps to target", "not reached: "+clean(ie.StepsToTargetReason))
	}
	count := map[string]int{}
	for _, p := range ie.Patterns {
		count[p.Name]++
	}
	var ps []string
	for _, name := range metrics.PatternNames {
		if count[name] > 0 {
			ps = append(ps, fmt.Sprintf("%s ×%d", name, count[name]))
		}
	}
	if len(ps) == 0 {
		ps = []string{"none"}
	}
	add("patterns", strings.Join(ps, ", "))
	if !res.Computable {
		reason := "no ground truth"
		if res.NonComputableReason != nil {
			reason = *res.NonComputableReason
		}
		add("retrieval", "non-computable: "+clean(reason))
		return fs
	}
	for _, m := range []string{"recall@5", "mrr", "ttfr_steps"} {
		if v, ok := res.Metric(m); ok {
			add(report.Label(m), report.FormatValue(m, v))
		}
	}
	return fs
}

func whenText(ev *events.Event) string {
	var parts []string
	if ev.ElapsedSeconds != nil {
		parts = append(parts, strconv.FormatFloat(*ev.ElapsedSeconds, 'f', 1, 64)+" s")
	}
	if ev.CumulativeTokens != nil {
		parts = append(parts, strconv.FormatInt(*ev.CumulativeTokens, 10)+" tokens")
	}
	return strings.Join(parts, ", ")
}

// filesOf lists every file an event named, each once, with what the call
// did with it.
func filesOf(ev *events.Event) []fileView {
	var out []fileView
	index := map[string]int{}
	add := func(paths []string, set func(*fileView)) {
		for _, p := range paths {
			i, ok := index[p]
			if !ok {
				i = len(out)
				index[p] = i
				out = append(out, fileView{Path: clean(p)})
			}
			set(&out[i])
		}
	}
	add(ev.TargetFiles, func(*fileView) {})
	add(ev.FilesRead, func(f *fileView) { f.Read = true })
	add(ev.FilesWritten, func(f *fileView) { f.Written = true })
	add(ev.GroundTruthHits, func(f *fileView) { f.GroundTruth = true })
	return out
}

// gistOf is the few words that identify a call in its summary line: the
// query, else the first file, else the command line or description.
func gistOf(c *callView) string {
	switch {
	case c.Query != "":
		return shorten(firstLine(c.Query), 80)
	case len(c.Files) > 0:
		s := c.Files[0].Path
		if len(c.Files) > 1 {
			s += fmt.Sprintf(" (+%d)", len(c.Files)-1)
		}
		return shorten(s, 100)
	case c.Command != "":
		return shorten(firstLine(c.Command), 80)
	}
	return ""
}

// markTitle is the tooltip of a call's mark: what the call list says of
// it, on a few lines.
func markTitle(c *callView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d · %s · %s", c.Step, c.Tool, c.ClassLabel)
	if c.Subagent {
		b.WriteString(" · subagent")
	}
	if c.Error {
		b.WriteString(" · error")
	}
	if c.When != "" {
		b.WriteString(" · " + c.When)
	}
	if c.Query != "" {
		b.WriteString("\nquery: " + shorten(firstLine(c.Query), 120))
	}
	for i, f := range c.Files {
		if i == 5 {
			fmt.Fprintf(&b, "\n… %d more files", len(c.Files)-5)
			break
		}
		b.WriteString("\n" + f.Path)
		if f.GroundTruth {
			b.WriteString(" (ground truth)")
		}
	}
	if len(c.Lines) > 0 {
		b.WriteString("\nlines " + strings.Join(c.Lines[:min(len(c.Lines), 3)], ", "))
	}
	for _, p := range c.Patterns {
		b.WriteString("\n" + p.Name + ": " + p.Detail)
	}
	return b.String()
}

// prettyJSON indents raw JSON arguments; text that is not JSON is shown as
// it is.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	// A JSON string (a command line) reads better unquoted.
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return b.String()
}

// ShownResult is as much of a tool call's result as the call's entry on a
// page shows: the first lines, each cut past what the page can show of
// it, and a "." for every line after them, so that the entry's text and
// its count of lines left out are those of the whole result. A page of a
// long session then holds a few kilobytes a call instead of its results
// (Load keeps no more).
func ShownResult(s string) string {
	s = strings.TrimRight(s, "\n")
	var b strings.Builder
	for range maxResultLines {
		line, rest, more := strings.Cut(s, "\n")
		if len(line) > maxShownLineBytes {
			line = line[:maxShownLineBytes]
		}
		b.WriteString(line)
		if !more {
			return b.String()
		}
		b.WriteByte('\n')
		s = rest
	}
	b.WriteString(strings.Repeat(".\n", strings.Count(s, "\n")))
	b.WriteByte('.')
	return b.String()
}

// maxShownLineBytes is what ShownResult keeps of a line: more than the
// bytes of maxLineRunes+1 runes however they are written, so that the
// line is shortened as the whole line would be.
const maxShownLineBytes = 4 * (maxLineRunes + 56)

// cutLines keeps the first n lines of s, each cut at maxLineRunes, made
// printable, and says what was left out.
func cutLines(s string, n int) (string, string) {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "", ""
	}
	lines := strings.Split(s, "\n")
	note := ""
	if len(lines) > n {
		note = fmt.Sprintf("… %d more lines", len(lines)-n)
		lines = lines[:n]
	}
	for i, l := range lines {
		lines[i] = shorten(clean(strings.ReplaceAll(strings.TrimSuffix(l, "\r"), "\t", "    ")), maxLineRunes)
	}
	return strings.Join(lines, "\n"), note
}

// clean makes text from a trace safe to show: control characters, bidi
// overrides and invalid bytes become visible escapes (printable.Text), so
// that a path cannot reorder or hide the text around it. Escaping for
// HTML is html/template's job.
func clean(s string) string { return printable.Text(s) }

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, `\n`)
	return l
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// stepsOf returns the first and last step of a pattern, 0-based.
func stepsOf(p metrics.Pattern) (int, int, bool) {
	if len(p.Steps) == 0 {
		return 0, 0, false
	}
	return slices.Min(p.Steps), slices.Max(p.Steps), true
}
