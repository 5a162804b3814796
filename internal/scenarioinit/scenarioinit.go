// Package scenarioinit proposes a first scenario file for a trace: the
// job of the init command. It reads the trace, takes for ground truth the
// files the agent changed (or the files of a diff of the fix), measures
// the run against them and writes a scenario whose thresholds are the
// measured figures with a stated margin, each value commented with where
// it came from. Before it returns, the proposal is loaded and evaluated
// as check would: a scenario that would not pass on its own trace is
// never proposed.
package scenarioinit

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/lazyre"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Options say how to read the trace and how far the thresholds stand from
// the measured figures.
type Options struct {
	// Format forces a trace reader ("" detects).
	Format string
	// TraceID picks the session of a file that holds several; "" takes
	// the first that changed a file (the first at all with Diff).
	TraceID string
	// Diff is a unified diff of the change the agent had to make; its
	// files are the ground truth instead of those the agent changed.
	Diff string
	// Dir is the folder the scenario is saved in: the paths it names are
	// written relative to it. "" is the current folder.
	Dir string
	// RatioMargin is taken off each measured ratio for its minimum
	// (recall, reciprocal rank, semantic ratio), in [0, 1); the init
	// command's default is DefaultRatioMargin.
	RatioMargin float64
	// StepsMargin is added to the measured steps to the first relevant
	// file for their maximum; the init command's default is
	// DefaultStepsMargin.
	StepsMargin int
	// MaxInputSize bounds the trace file in bytes; zero means
	// trace.DefaultMaxInputSize.
	MaxInputSize int64
}

// The default margins: a run may find the files a tenth later in the
// ranking, or two calls later, and still pass.
const (
	DefaultRatioMargin = 0.10
	DefaultStepsMargin = 2
)

// Propose returns the text of a scenario file for traceFile.
func Propose(traceFile string, opts Options) ([]byte, error) {
	switch {
	case opts.RatioMargin < 0 || opts.RatioMargin >= 1:
		return nil, fmt.Errorf("ratio margin %v: expected a number in [0, 1)", opts.RatioMargin)
	case opts.StepsMargin < 0:
		return nil, fmt.Errorf("steps margin %d: expected 0 or more", opts.StepsMargin)
	}
	if opts.Dir == "" {
		opts.Dir = "."
	}
	p := &proposal{opts: opts, traceFile: traceFile}
	if err := p.pickSession(); err != nil {
		return nil, err
	}
	first, err := expectations.Measure(traceFile, expectations.MeasureOptions{Format: opts.Format, TraceID: p.traceID, MaxInputSize: opts.MaxInputSize})
	if err != nil {
		return nil, err
	}
	p.session = first.Session
	if err := p.groundTruth(first.Document); err != nil {
		return nil, err
	}
	// Measure against the ground truth as the scenario states it: loading
	// the head of the scenario resolves its paths as check will.
	head, err := p.parse(p.head() + "expectations:\n  - type: tools\n    max_calls: 0\n")
	if err != nil {
		return nil, err
	}
	run, err := expectations.Measure(traceFile, expectations.MeasureOptions{
		Format: opts.Format, TraceID: p.traceID, CWD: head.CWD, Truth: head.GroundTruth, MaxInputSize: opts.MaxInputSize,
	})
	if err != nil {
		return nil, err
	}
	body, err := p.expectations(run)
	if err != nil {
		return nil, err
	}
	text := p.head() + body
	// The proposal must pass on its own trace as written.
	s, err := p.parse(text)
	if err != nil {
		return nil, fmt.Errorf("the proposed scenario does not load: %w", err)
	}
	res, err := expectations.Evaluate(s, expectations.EvalOptions{MaxInputSize: opts.MaxInputSize})
	if err != nil {
		return nil, err
	}
	if res.Failed() {
		return nil, errors.New("the proposed scenario fails on its own trace; please report this with the trace's format")
	}
	return []byte(text), nil
}

type proposal struct {
	opts      Options
	traceFile string
	// traceID is the session picked in a file of several ("" for one).
	traceID string
	// others are the ids of the file's other sessions.
	others  []string
	session *trace.Session
	// cwd is the working directory the scenario states, and cwdNote why.
	cwd, cwdNote string
	// truth are the ground-truth paths as written, truthNote where they
	// come from; diff is the diff's path as written when there is one.
	truth     []string
	truthNote string
	diff      string
}

// sessionID is how a scenario's trace_id names a session: its task when
// the trace names one, else its id (as trace.MultiSessionError lists them).
func sessionID(s *trace.Session) string {
	if s.Task != "" {
		return s.Task
	}
	return s.ID
}

// pickSession chooses the session of a file that holds several.
func (p *proposal) pickSession() error {
	all, err := trace.ReadFileAll(p.traceFile, trace.Options{Format: p.opts.Format, Source: p.traceFile, MaxInputSize: p.opts.MaxInputSize, MaxResultBytes: events.ResultBytesRead})
	if err != nil {
		return err
	}
	if len(all) < 2 && p.opts.TraceID == "" {
		return nil
	}
	var ids []string
	for _, s := range all {
		ids = append(ids, sessionID(s))
	}
	if p.opts.TraceID != "" {
		if len(all) == 1 && ids[0] == "" {
			return fmt.Errorf("%s holds one session, which has no id: leave the trace id out", p.traceFile)
		}
		if !slices.Contains(ids, p.opts.TraceID) {
			return &trace.MultiSessionError{Source: p.traceFile, IDs: ids, Want: p.opts.TraceID}
		}
		p.traceID = p.opts.TraceID
	} else {
		p.traceID = ids[0]
		if p.opts.Diff == "" {
			// The first session that changed a file has ground truth.
			for i, s := range all {
				if wroteAFile(s) {
					p.traceID = ids[i]
					break
				}
			}
		}
	}
	for _, id := range ids {
		if id != p.traceID {
			p.others = append(p.others, id)
		}
	}
	return nil
}

// wroteAFile reports whether a session has a call whose event writes a
// file.
func wroteAFile(s *trace.Session) bool {
	doc := events.Normalize(s, events.Options{})
	for _, ev := range doc.Events {
		if len(ev.FilesWritten) > 0 {
			return true
		}
	}
	return false
}

// groundTruth sets the ground truth and the working directory.
func (p *proposal) groundTruth(doc *events.Document) error {
	if p.session.CWD != "" {
		p.cwd, p.cwdNote = p.session.CWD, "the agent's working directory, as the trace records it"
	}
	if p.opts.Diff != "" {
		truth, err := groundtruth.Load(p.opts.Diff)
		if err != nil {
			return err
		}
		p.diff = p.rel(p.opts.Diff)
		p.truthNote = "the files of the diff"
		if p.cwd == "" {
			// The trace records no working directory: its paths stay
			// absolute and the diff's relative ones would never match.
			// The folder under which the trace names a file of the diff is
			// the one the agent worked in.
			for _, f := range truth.Paths() {
				if dir, step, ok := namedUnder(doc, f); ok {
					p.cwd = dir
					p.cwdNote = fmt.Sprintf("not recorded by the trace: step %d names %s", step, dir+"/"+f)
					break
				}
			}
		}
		return nil
	}
	var steps []string
	for _, ev := range doc.Events {
		for _, f := range ev.FilesWritten {
			if !slices.Contains(p.truth, f) {
				p.truth = append(p.truth, f)
				steps = append(steps, strconv.Itoa(ev.StepIndex+1))
			}
		}
	}
	if len(p.truth) == 0 {
		return fmt.Errorf("%s: the agent changed no file, so there is nothing to take for ground truth: give the change it had to make with -diff FILE (a unified diff)", p.traceFile)
	}
	p.truthNote = "the files the agent changed (at steps " + strings.Join(steps[:len(steps)-1], ", ") + " and " + steps[len(steps)-1] + ")"
	if len(steps) == 1 {
		p.truthNote = "the file the agent changed (at step " + steps[0] + ")"
	}
	if p.cwd == "" && slices.ContainsFunc(p.truth, func(f string) bool { return strings.HasPrefix(f, "/") }) {
		p.truthNote += "; the trace records no working directory, so paths are as it spells them"
	}
	return nil
}

// namedUnder finds a call that names file under an absolute folder and
// returns that folder and the call's 1-based step.
func namedUnder(doc *events.Document, file string) (string, int, bool) {
	for _, ev := range doc.Events {
		for _, t := range ev.TargetFiles {
			if dir, ok := strings.CutSuffix(t, "/"+file); ok && strings.HasPrefix(dir, "/") {
				return dir, ev.StepIndex + 1, true
			}
		}
	}
	return "", 0, false
}

// rel writes a path relative to the scenario's folder, as the scenario
// resolves it.
func (p *proposal) rel(path string) string {
	abs, err1 := filepath.Abs(path)
	dir, err2 := filepath.Abs(p.opts.Dir)
	if err1 != nil || err2 != nil {
		return path
	}
	r, err := filepath.Rel(dir, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// head is the scenario up to its expectations.
func (p *proposal) head() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Proposed by retrievaltest init from %s.\n", filepath.Base(p.traceFile))
	b.WriteString("# Each value says where it comes from. The thresholds are this run's\n")
	b.WriteString("# figures with a margin (see each one): check passes on this trace, and\n")
	b.WriteString("# fails on a run that reaches the files later or finds fewer of them.\n")
	b.WriteString("# Adjust them as your runs vary.\n")
	nameNote := "the trace file's name"
	if p.traceID != "" {
		nameNote = "the session's id"
	}
	fmt.Fprintf(&b, "name: %s  # %s\n", scalar(p.name()), nameNote)
	fmt.Fprintf(&b, "trace: %s  # the trace init read, relative to this file\n", scalar(p.rel(p.traceFile)))
	if p.traceID != "" {
		note := "the session init read"
		if len(p.others) > 0 {
			note = fmt.Sprintf("one of %d sessions of the file; the others: %s", len(p.others)+1, list(p.others))
		}
		fmt.Fprintf(&b, "trace_id: %s  # %s\n", scalar(p.traceID), note)
	}
	if p.cwd != "" {
		fmt.Fprintf(&b, "cwd: %s  # %s\n", scalar(p.cwd), p.cwdNote)
	}
	if p.diff != "" {
		fmt.Fprintf(&b, "ground_truth: {from: %s}  # %s\n", scalar(p.diff), p.truthNote)
	} else {
		fmt.Fprintf(&b, "ground_truth:  # %s\n", p.truthNote)
		for _, f := range p.truth {
			fmt.Fprintf(&b, "  - %s\n", scalar(f))
		}
	}
	return b.String()
}

// list joins ids, the first five of them.
func list(ids []string) string {
	if len(ids) > 5 {
		return strings.Join(ids[:5], ", ") + fmt.Sprintf(" and %d more", len(ids)-5)
	}
	return strings.Join(ids, ", ")
}

// name is the scenario's name: the task or the trace file's name.
func (p *proposal) name() string {
	if p.traceID != "" {
		return p.traceID
	}
	base := filepath.Base(p.traceFile)
	// Drop the extension and the format's own suffixes
	// (fix.claude.jsonl, run.traj.json), not the dots of a version.
	for {
		ext := filepath.Ext(base)
		if ext == "" || ext == base || !traceSuffixes[strings.ToLower(ext)] {
			return base
		}
		base = strings.TrimSuffix(base, ext)
	}
}

// traceSuffixes are the extensions trace files carry.
var traceSuffixes = map[string]bool{
	".json": true, ".jsonl": true, ".ndjson": true, ".traj": true, ".trajectory": true, ".session": true,
	".rollout": true, ".stream": true, ".claude": true, ".toolcalls": true, ".otlp": true, ".vscdb": true,
	".openhands-output": true,
}

// A threshold is one key of a proposed expectation, as written, and
// where its value comes from.
type threshold struct {
	key, note string
}

// expectations writes the expectations from the measured run.
func (p *proposal) expectations(run *expectations.Run) (string, error) {
	ie := run.Metrics.IndexEffectiveness
	if ie == nil || ie.StepsToTarget == nil {
		// A run that never reached the ground truth sets no threshold
		// worth having: the ground truth is not this run's.
		reason := "no call named a relevant file"
		if ie != nil && ie.StepsToTargetReason != "" {
			reason = ie.StepsToTargetReason
		}
		return "", fmt.Errorf("%s: nothing to set a threshold from: %s", p.traceFile, reason)
	}
	values := run.Metrics.Values()
	// ratio makes the minimum of a ratio: key is a format of the value.
	ratio := func(key, metric, what string) (threshold, bool) {
		v, ok := values[metric]
		if !ok || v <= 0 {
			return threshold{}, false
		}
		min := floor2(v - p.opts.RatioMargin)
		note := fmt.Sprintf("%s measured %s, less the margin %s", what, num(v), num(p.opts.RatioMargin))
		if min <= 0 {
			min = floor2(v)
			note = fmt.Sprintf("%s measured %s; the margin %s would leave no minimum", what, num(v), num(p.opts.RatioMargin))
		}
		return threshold{key: fmt.Sprintf(key, num(min)), note: note}, true
	}
	var retrieval []threshold
	for _, m := range []struct{ metric, what string }{
		{"recall@10", "share of the relevant files among the first 10 the agent came across:"},
		{"mrr", "1 / rank of the first relevant file it came across:"},
		{"read.recall@10", "share of the relevant files among the first 10 it read:"},
	} {
		if t, ok := ratio(m.metric+": {min: %s}", m.metric, m.what); ok {
			retrieval = append(retrieval, t)
		}
	}
	index := []threshold{{key: "max_steps_to_target: " + strconv.Itoa(*ie.StepsToTarget+p.opts.StepsMargin),
		note: fmt.Sprintf("the first call to touch a relevant file was call %d, plus the margin %d", *ie.StepsToTarget, p.opts.StepsMargin)}}
	if t, ok := ratio("min_semantic_ratio: %s", "semantic_ratio", "semantic / (semantic + file-level) calls:"); ok {
		index = append(index, t)
	}
	var b bytes.Buffer
	b.WriteString("expectations:\n")
	write := func(typ, description string, ts []threshold) {
		if len(ts) == 0 {
			return
		}
		fmt.Fprintf(&b, "  - type: %s\n    description: %s\n", typ, description)
		for _, t := range ts {
			fmt.Fprintf(&b, "    %s  # %s\n", t.key, t.note)
		}
	}
	write("retrieval", "The agent finds the relevant files as early as in the recorded run.", retrieval)
	write("index_usage", "The agent reaches the code about as soon, and uses the index as much.", index)
	return b.String(), nil
}

// parse loads scenario text as if saved in the scenario's folder.
func (p *proposal) parse(text string) (*expectations.Scenario, error) {
	return expectations.Parse(filepath.Join(p.opts.Dir, "scenario.yaml"), []byte(text), expectations.LoadOptions{})
}

// floor2 rounds down to two decimals, so that a measured figure always
// meets a minimum made from it.
func floor2(v float64) float64 { return math.Floor(v*100+1e-9) / 100 }

// num writes a ratio with at most two decimals.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// plain matches the strings YAML reads as themselves without quotes.
var plain = lazyre.New(`^[A-Za-z0-9_./@+-][A-Za-z0-9_./@+ -]*$`)

// scalar writes a string as a YAML scalar: plain when that reads back the
// same string, else double-quoted.
func scalar(s string) string {
	if plain().MatchString(s) && !strings.HasSuffix(s, " ") && !ambiguous(s) {
		return s
	}
	return strconv.Quote(s)
}

// ambiguous reports whether a plain scalar would read as another type.
func ambiguous(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "@")
}
