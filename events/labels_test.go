package events_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

// The hand-made labels of ../shared/extraction say, call by call, what real
// tool calls of the traces in ../shared/samples named, read (which lines)
// and wrote, and whether they failed. They were made from the raw traces,
// never from this package's output. This test scores the events against
// them as ../shared/extraction/score.py does (the same matching and the
// same figures) and fails when any figure drops below 0.98.

type extractionLabel struct {
	Trace        string             `json:"trace"`
	Session      string             `json:"session"`
	CallID       string             `json:"call_id"`
	StepIndex    *int               `json:"step_index"`
	Command      string             `json:"command"`
	Class        string             `json:"class"`
	IsError      bool               `json:"is_error"`
	TargetFiles  []string           `json:"target_files"`
	FilesRead    []string           `json:"files_read"`
	FilesWritten []string           `json:"files_written"`
	LineRanges   []events.LineRange `json:"line_ranges"`
	where        string
}

// labelScore is true positives, predicted and labelled counts.
type labelScore struct{ tp, pred, want int }

func (s *labelScore) add(got, want map[string]bool) {
	for k := range got {
		if want[k] {
			s.tp++
		}
	}
	s.pred += len(got)
	s.want += len(want)
}

func (s labelScore) precision() float64 {
	if s.pred == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.pred)
}

func (s labelScore) recall() float64 {
	if s.want == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.want)
}

func set(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func lineSet(rs []events.LineRange) map[string]bool {
	m := map[string]bool{}
	for _, r := range rs {
		for n := r.Start; n <= r.End && n-r.Start < 1_000_000; n++ {
			m[fmt.Sprintf("%s:%d", r.Path, n)] = true
		}
	}
	return m
}

func readLabels(t *testing.T, dir string) map[string][]extractionLabel {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	out := map[string][]extractionLabel{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for n := 1; sc.Scan(); n++ {
			if len(sc.Bytes()) == 0 {
				continue
			}
			var l extractionLabel
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			l.where = fmt.Sprintf("%s:%d", filepath.Base(f), n)
			out[l.Trace] = append(out[l.Trace], l)
		}
		fh.Close()
	}
	return out
}

func TestExtractionAgreesWithTheHandMadeLabels(t *testing.T) {
	const shared = "../../shared"
	labelDir := filepath.Join(shared, "extraction", "labels")
	if _, err := os.Stat(labelDir); err != nil {
		t.Skip("../shared/extraction is not here (a fresh clone or CI without it)")
	}
	scoreLabels(t, shared, readLabels(t, labelDir))
}

// The project's own labels of the editor agents' samples (Amp, Copilot
// Chat, Cursor), in testdata/extraction, made by the same rules from the
// raw files (the Cursor database's with Python's sqlite3, by
// label_cursor_vscdb.py beside them).
func TestExtractionAgreesWithTheEditorAgentLabels(t *testing.T) {
	const shared = "../../shared"
	if _, err := os.Stat(filepath.Join(shared, "samples")); err != nil {
		t.Skip("../shared/samples is not here (a fresh clone or CI without it)")
	}
	labels := readLabels(t, filepath.Join("..", "testdata", "extraction"))
	if len(labels) == 0 {
		t.Fatal("no labels in ../testdata/extraction")
	}
	scoreLabels(t, shared, labels)
}

// scoreLabels scores the events of the labelled traces of shared/samples
// against the labels, failing below 0.98 on any figure.
func scoreLabels(t *testing.T, shared string, labels map[string][]extractionLabel) {
	t.Helper()
	traces := make([]string, 0, len(labels))
	for tr := range labels {
		traces = append(traces, tr)
	}
	sort.Strings(traces)

	var calls, classOK int
	var failures labelScore
	fields := map[string]*labelScore{"target_files": {}, "files_read": {}, "files_written": {}, "line_ranges": {}}
	var problems []string
	for _, tr := range traces {
		sessions, err := trace.ReadFileAll(filepath.Join(shared, "samples", tr), trace.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		docs := make([]*events.Document, len(sessions))
		for i, s := range sessions {
			docs[i] = events.Normalize(s, events.Options{})
		}
		for _, l := range labels[tr] {
			calls++
			ev := findEvent(docs, l)
			if ev == nil {
				problems = append(problems, l.where+": no event")
				ev = &events.Event{}
			}
			if string(ev.ToolClass) == l.Class {
				classOK++
			} else {
				problems = append(problems, fmt.Sprintf("%s: class %s, labelled %s [%s]", l.where, ev.ToolClass, l.Class, l.Command))
			}
			failures.add(set(boolKey(ev.IsError)), set(boolKey(l.IsError)))
			if ev.IsError != l.IsError {
				problems = append(problems, fmt.Sprintf("%s: is_error %v, labelled %v", l.where, ev.IsError, l.IsError))
			}
			for name, pair := range map[string][2]map[string]bool{
				"target_files":  {set(ev.TargetFiles), set(l.TargetFiles)},
				"files_read":    {set(ev.FilesRead), set(l.FilesRead)},
				"files_written": {set(ev.FilesWritten), set(l.FilesWritten)},
				"line_ranges":   {lineSet(ev.LineRanges), lineSet(l.LineRanges)},
			} {
				fields[name].add(pair[0], pair[1])
				if len(pair[0]) != len(pair[1]) || !subset(pair[0], pair[1]) {
					problems = append(problems, fmt.Sprintf("%s: %s differ [%s]", l.where, name, l.Command))
				}
			}
		}
	}
	for _, p := range problems {
		t.Log(p)
	}
	check := func(name string, v float64) {
		t.Logf("%s: %.3f", name, v)
		if v < 0.98 {
			t.Errorf("%s is %.3f, below 0.98", name, v)
		}
	}
	check("class accuracy", float64(classOK)/float64(calls))
	check("failures precision", failures.precision())
	check("failures recall", failures.recall())
	for _, name := range []string{"target_files", "files_read", "files_written", "line_ranges"} {
		check(name+" precision", fields[name].precision())
		check(name+" recall", fields[name].recall())
	}
}

// boolKey makes a failure a one-element set, so that failures score as
// the other fields do: a true positive is a call both call failed.
func boolKey(b bool) []string {
	if b {
		return []string{"failed"}
	}
	return nil
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// findEvent matches a label to an event as score.py does: by call id in
// the named session (or, for the first session, in any), else by step.
func findEvent(docs []*events.Document, l extractionLabel) *events.Event {
	pick := docs[:min(1, len(docs))]
	if l.Session != "" {
		for _, d := range docs {
			if d.Provenance.TaskName == l.Session || d.Provenance.SessionID == l.Session {
				pick = []*events.Document{d}
				break
			}
		}
	}
	search := pick
	if l.Session == "" {
		search = docs
	}
	if l.CallID != "" {
		for _, d := range search {
			for i := range d.Events {
				if d.Events[i].CallID == l.CallID {
					return &d.Events[i]
				}
			}
		}
		return nil
	}
	if l.StepIndex != nil && len(pick) > 0 {
		for i := range pick[0].Events {
			if pick[0].Events[i].StepIndex == *l.StepIndex {
				return &pick[0].Events[i]
			}
		}
	}
	return nil
}
