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

// How long a line of a result and a pattern's detail on a call get.
const (
	maxLineRunes   = 400
	maxDetailRunes = 160
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
	// Level is the heading level of the trace's title: 2 on a page of
	// traces, 3 inside a scenario.
	Level int
	// Data and Details are the trace's data blocks (encodeData), from
	// which the page's script draws the call list.
	Data, Details string
	// Counts are the calls of each class, failed, hitting the ground
	// truth and by subagents, for the filter bar.
	Counts callCounts
}

type callCounts struct {
	Total, Semantic, File, Edit, Other, Failed, GroundTruth, Subagent int
	// Messages counts the messages of the conversation.
	Messages int
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
	PatternIdx []int
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
	tv := traceView{ID: id, Name: clean(run.Trace), Level: 2}
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
	inPatternIdx := map[int][]int{}
	var pdata []patternData
	for _, p := range patterns {
		tag := patternTag{Name: p.Name, Detail: shorten(clean(p.Detail), maxDetailRunes)}
		for _, s := range p.Steps {
			inPattern[s] = append(inPattern[s], tag)
			inPatternIdx[s] = append(inPatternIdx[s], len(pdata))
		}
		first, last, _ := stepsOf(p)
		pdata = append(pdata, patternData{Name: p.Name, Detail: clean(p.Detail), First: first + 1, Last: last + 1})
	}
	n := len(doc.Events)
	if run.Session != nil {
		n = max(n, len(run.Session.Calls))
	}
	calls := make([]callView, n)
	for i := range calls {
		c := callView{ID: fmt.Sprintf("%s-c%d", id, i+1), Step: i + 1, Patterns: inPattern[i], PatternIdx: inPatternIdx[i]}
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
			c.Arguments, c.ArgsNote = argumentsText(prettyJSON(call.Arguments))
			c.Command = cleanLines(commandOf(call.ArgumentsMap()))
			if call.HasResult {
				c.Result, c.ResultNote = resultText(call.Result)
				if c.Result == "" {
					c.ResultNote = "(empty result)"
				}
			} else {
				c.ResultNote = "(the trace has no result for this call)"
			}
		}
		c.Gist = gistOf(&c)
		calls[i] = c
		tv.Counts.add(&c)
	}
	tv.Calls = calls
	var prompt, answer string
	var msgs []messageData
	if run.Session != nil {
		prompt, answer = cleanLines(run.Session.Prompt), cleanLines(run.Session.Answer)
		msgs = messagesOf(run.Session.Messages, run.Session.Start)
	}
	data := dataOf(calls, pdata, prompt, answer)
	data.Messages = msgs
	tv.Counts.Messages = len(msgs)
	var err error
	tv.Data, tv.Details, err = encodeData(data)
	if err != nil {
		tv.Degraded = err.Error()
	}
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

func (n *callCounts) add(c *callView) {
	n.Total++
	switch c.Letter {
	case "S":
		n.Semantic++
	case "F":
		n.File++
	case "E":
		n.Edit++
	default:
		n.Other++
	}
	if c.Error {
		n.Failed++
	}
	if c.GroundHit {
		n.GroundTruth++
	}
	if c.Subagent {
		n.Subagent++
	}
}

// commandOf is what a call ran, from its arguments: a shell call's command
// line (a string, or an argument list whose last word is the script a
// shell was given with -c or -lc), else a subagent call's description.
func commandOf(args map[string]any) string {
	for _, key := range []string{"command", "cmd", "script", "description"} {
		switch v := args[key].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any:
			var words []string
			for _, w := range v {
				if s, ok := w.(string); ok {
					words = append(words, s)
				}
			}
			if n := len(words); n >= 3 && (words[n-2] == "-c" || words[n-2] == "-lc") {
				return words[n-1]
			}
			if len(words) > 0 {
				return strings.Join(words, " ")
			}
		}
	}
	return ""
}

// gistOf is the few words that identify a call in its summary line: what
// it ran (the command line or description), else the query, else the
// first file.
func gistOf(c *callView) string {
	switch {
	case c.Command != "":
		return shorten(firstLine(c.Command), 80)
	case c.Query != "":
		return shorten(firstLine(c.Query), 80)
	case len(c.Files) > 0:
		s := c.Files[0].Path
		if len(c.Files) > 1 {
			s += fmt.Sprintf(" (+%d)", len(c.Files)-1)
		}
		return shorten(s, 100)
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
// page keeps: the first lines, up to a budget of lines and bytes, each cut
// past what the page can show of it, and a "." for every line after them,
// so that the entry's text and its count of lines left out are those of
// the whole result. A page of a long session then holds a few kilobytes a
// call instead of its results (Load keeps no more).
func ShownResult(s string) string {
	kept, more := keptLines(s)
	return strings.Join(kept, "\n") + strings.Repeat("\n.", more)
}

// maxShownLineBytes is what ShownResult keeps of a line: more than the
// bytes of maxLineRunes+1 runes however they are written, so that the
// line is shortened as the whole line would be.
const maxShownLineBytes = 4 * (maxLineRunes + 56)

// clean makes text from a trace safe to show: control characters, bidi
// overrides and invalid bytes become visible escapes (printable.Text), so
// that a path cannot reorder or hide the text around it. Escaping for
// HTML is html/template's job.
func clean(s string) string { return printable.Text(s) }

// firstLine is the text before the first line break, written or escaped.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	l, _, _ = strings.Cut(l, `\n`)
	return l
}

// cleanLines is clean line by line: the line breaks stay, tabs become four
// spaces, and a carriage return at the end of a line goes.
func cleanLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = clean(strings.ReplaceAll(strings.TrimSuffix(l, "\r"), "\t", "    "))
	}
	return strings.Join(lines, "\n")
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
