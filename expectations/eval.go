package expectations

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// EvalOptions control evaluating a scenario.
type EvalOptions struct {
	// Registry holds the expectation types; nil means DefaultRegistry().
	Registry *Registry
	// MaxInputSize bounds, in bytes, each trace file read (see
	// MeasureOptions.MaxInputSize); zero means trace.DefaultMaxInputSize.
	MaxInputSize int64
	// Context stops the command of a scenario's run key (it is sent
	// SIGTERM, then killed); nil means context.Background().
	Context context.Context
	// RecordDir is where the traces of a scenario's run key are written,
	// a folder for that one scenario (a trace already there is appended
	// to); "" means a new folder in the temporary folder, kept afterwards
	// so that the report's trace paths can be opened.
	RecordDir string
}

// Evaluate measures every run of the scenario and checks every
// expectation against them. A scenario with a run key is recorded first:
// its command runs with an OTLP receiver's address in its environment
// (see package collect), and the traces it exports are its runs. Without
// a run key nothing is executed.
func Evaluate(s *Scenario, opts EvalOptions) (*ScenarioResult, error) {
	if len(s.Run) > 0 {
		files, err := record(s, opts)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", s.File, err)
		}
		recorded := *s
		recorded.Traces = files
		s = &recorded
	}
	var symbols []string
	if s.Symbols != "" {
		var err error
		if symbols, err = metrics.LoadSymbols(s.Symbols); err != nil {
			return nil, fmt.Errorf("scenario %s: symbols: %w", s.File, err)
		}
	}
	mopts := MeasureOptions{
		Format:   s.Format,
		TraceID:  s.TraceID,
		Profiles: s.Profiles,
		Taxonomy: s.Taxonomy,
		Truth:    s.GroundTruth,
		Symbols:  symbols,
		// The trace files' limit; the others are bounded where read.
		MaxInputSize: opts.MaxInputSize,
	}
	runs := make([]*Run, 0, len(s.Traces))
	for _, t := range s.Traces {
		run, err := Measure(t, mopts)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", s.File, err)
		}
		runs = append(runs, run)
	}
	return EvaluateRuns(s, runs, opts), nil
}

// EvaluateRuns checks the scenario's expectations against runs measured
// by the caller.
//
// Each expectation is checked on every run, and the per-run outcomes are
// combined by the scenario's runs rule (see RunsRule). A type that needs
// a live run is skipped. With no run at all, every other expectation
// fails: it cannot pass without a measurement.
func EvaluateRuns(s *Scenario, runs []*Run, opts EvalOptions) *ScenarioResult {
	reg := orDefault(opts.Registry)
	out := &ScenarioResult{Scenario: s, Name: s.Name, File: s.File, Runs: runs}
	for _, e := range s.Expectations {
		out.Results = append(out.Results, evaluateOne(s, e, runs, reg))
	}
	return out
}

func evaluateOne(s *Scenario, e *Expectation, runs []*Run, reg *Registry) *Result {
	r := &Result{
		Scenario:    s.Name,
		Type:        e.Type,
		Description: e.Description,
		Flaky:       e.Flaky,
		Pos:         e.Pos,
		Runs:        []RunOutcome{},
	}
	for _, run := range runs {
		r.Runs = append(r.Runs, RunOutcome{Trace: run.Trace, Outcome: CheckOne(e, run, reg)})
	}
	if t, ok := reg.Lookup(e.Type); ok && t.Live {
		r.Status = Skipped
		r.Message = liveReason(t)
		return r
	}
	if len(runs) == 0 {
		r.Status = Fail
		r.Measured = "n/a"
		r.Message = "no run to judge: the scenario names no trace (add trace: or traces:)"
		return r
	}
	combine(r, s.Runs)
	return r
}

// combine sets the result's status and message from its per-run outcomes.
// Runs whose outcome is skipped do not count either way.
func combine(r *Result, rule RunsRule) {
	var judged []RunOutcome
	passed := 0
	for _, o := range r.Runs {
		if o.Status == Skipped {
			continue
		}
		judged = append(judged, o)
		if o.Status == Pass {
			passed++
		}
	}
	if len(judged) == 0 {
		r.Status, r.Message = Skipped, r.Runs[0].Message
		return
	}
	need, threshold := requiredPasses(rule, len(judged))
	if passed >= need {
		r.Status = Pass
	} else {
		r.Status = Fail
	}
	if len(r.Runs) == 1 {
		o := r.Runs[0].Outcome
		r.Measured, r.Threshold, r.Evidence, r.Message = o.Measured, o.Threshold, o.Evidence, o.Message
		return
	}
	r.Measured = fmt.Sprintf("%d of %d runs passed", passed, len(judged))
	r.Threshold = threshold
	verdict := "held"
	if r.Status == Fail {
		verdict = "did not hold"
	}
	r.Message = fmt.Sprintf("%s of %d runs passed, required %s: the expectation %s", countWord(passed), len(judged), threshold, verdict)
	// The first failing run's message says what went wrong; every run's
	// verdict is evidence.
	quoted := false
	for i, o := range r.Runs {
		if o.Status == Fail && !quoted {
			r.Message += fmt.Sprintf("; run %d (%s): %s", i+1, filepath.Base(o.Trace), o.Message)
			quoted = true
		}
		r.Evidence = append(r.Evidence, fmt.Sprintf("run %d %s: %s, %s", i+1, filepath.Base(o.Trace), o.Status, o.Measured))
	}
}

func countWord(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

// requiredPasses turns the runs rule into a number of passing runs out of
// n, and words it.
func requiredPasses(rule RunsRule, n int) (int, string) {
	switch {
	case rule.AtLeast != nil:
		return *rule.AtLeast, fmt.Sprintf("at least %d", *rule.AtLeast)
	case rule.MinPassRate != nil:
		// A small tolerance keeps 0.6 × 5 from needing 3.0000000000000004
		// runs.
		need := int(math.Ceil(*rule.MinPassRate*float64(n) - 1e-9))
		return need, fmt.Sprintf("a pass rate ≥ %s (%d of %d)", thresholdText(*rule.MinPassRate, true), need, n)
	}
	return n, fmt.Sprintf("all %d", n)
}

func liveReason(t Type) string {
	return fmt.Sprintf("%s needs a live run (the worktree, the build, the tests); a trace cannot show it", t.Name)
}

// CheckOne checks one expectation against one run.
//
// A live-run type is skipped; an unknown type, missing parameters or a
// check that panics fail with a message saying so.
func CheckOne(e *Expectation, run *Run, reg *Registry) Outcome {
	reg = orDefault(reg)
	t, ok := reg.Lookup(e.Type)
	switch {
	case !ok:
		return fail("unknown expectation type %q", e.Type)
	case t.Live:
		return Outcome{Status: Skipped, Message: liveReason(t)}
	case run == nil:
		return fail("no run to judge")
	case e.Params == nil:
		return fail("%s has no parameters", e.Type)
	}
	return runCheck(t, e, run)
}

// runCheck runs a type's check, turning a panic into a failed outcome: a
// user type's bug should fail its expectation, not the whole test binary.
func runCheck(t Type, e *Expectation, run *Run) (out Outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = fail("%s: the check panicked: %v", e.Type, p)
			out.Evidence = []string{string(debug.Stack())}
		}
	}()
	out = t.Check(e.Params, run)
	if out.Status == "" {
		out.Status = Fail
		out.Message = strings.TrimSpace(out.Message + " (the check returned no status)")
	}
	return out
}
