package expectations

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
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
	// Recorder runs the command of a scenario's run key under an OTLP
	// receiver (collect.Record); nil makes such a scenario an error
	// (ErrNoRecorder). A scenario without a run key runs nothing.
	Recorder Recorder
	// RecordDir is where the traces of a scenario's run key are written,
	// a folder for that one scenario (a trace already there is appended
	// to); "" means a new folder in the temporary folder, kept afterwards
	// so that the report's trace paths can be opened.
	RecordDir string
	// KeepResults keeps what it returns of the calls' results in each
	// Run's session (see MeasureOptions.KeepResults); nil keeps none.
	KeepResults func(result string) string
}

// Evaluate measures every run of the scenario and checks every
// expectation against them. A scenario with a run key is recorded first,
// by opts.Recorder: its command runs with an OTLP receiver's address in
// its environment (see package collect), and the traces it exports are its
// runs. Without a run key nothing is executed.
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
	mopts, err := s.MeasureOptions(opts)
	if err != nil {
		return nil, err
	}
	runs := make([]*Run, 0, len(s.Traces))
	for i, t := range s.Traces {
		run, err := Measure(t, mopts)
		if err != nil {
			return nil, s.TraceError(i, err)
		}
		runs = append(runs, run)
	}
	return EvaluateRuns(s, runs, opts), nil
}

// MeasureOptions returns how Evaluate measures each trace of s (a
// scenario without a run key): the scenario's format, trace id,
// taxonomy, ground truth and symbols (loaded here: the error names the
// scenario's file), and opts' limits. A runner that reads each trace once
// for all the scenarios that name it passes these to MeasureEach, then
// the Runs to EvaluateRuns.
func (s *Scenario) MeasureOptions(opts EvalOptions) (MeasureOptions, error) {
	var symbols []string
	if s.Symbols != "" {
		var err error
		if symbols, err = metrics.LoadSymbols(s.Symbols); err != nil {
			return MeasureOptions{}, &yamlerr.Error{File: s.File, Msg: "symbols: " + err.Error()}
		}
	}
	return MeasureOptions{
		Format:   s.Format,
		TraceID:  s.TraceID,
		CWD:      s.CWD,
		Profiles: s.Profiles,
		Taxonomy: s.Taxonomy,
		Truth:    s.GroundTruth,
		Symbols:  symbols,
		// The trace files' limit; the others are bounded where read.
		MaxInputSize: opts.MaxInputSize,
		// A format is forced by the scenario's key.
		FormatSetting: "format: NAME",
		KeepResults:   opts.KeepResults,
		DropCalls:     !readsCalls(s, orDefault(opts.Registry)),
	}, nil
}

// readsCalls reports whether an expectation of s may read the session's
// calls: a type without ReadsCalls may.
func readsCalls(s *Scenario, reg *Registry) bool {
	for _, e := range s.Expectations {
		t, ok := reg.Lookup(e.Type)
		switch {
		case ok && t.Live:
			// Never checked: reported as skipped.
		case !ok || t.ReadsCalls == nil || t.ReadsCalls(e.Params):
			return true
		}
	}
	return false
}

// TraceError is err, the error of measuring the i-th trace of s, placed
// where the scenario names that trace.
func (s *Scenario) TraceError(i int, err error) error {
	out := &yamlerr.Error{File: s.File, Msg: err.Error(), Err: err}
	if i < len(s.TracePos) {
		out.Line, out.Col = s.TracePos[i].Line, s.TracePos[i].Col
	}
	return out
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
	pr, _ := metrics.SummarizePasses(len(judged), passed) // 0 ≤ passed ≤ len(judged) ≥ 1
	r.PassRate = &pr
	ok, estimate, threshold := judgeRuns(rule, pr)
	if ok {
		r.Status = Pass
	} else {
		r.Status = Fail
	}
	if len(r.Runs) == 1 && estimate == "" {
		o := r.Runs[0].Outcome
		r.Measured, r.Threshold, r.Evidence, r.Message = o.Measured, o.Threshold, o.Evidence, o.Message
		return
	}
	r.Measured = fmt.Sprintf("%d of %d runs passed", passed, len(judged))
	if estimate != "" {
		r.Measured = estimate + " (" + r.Measured + ")"
	}
	r.Threshold = threshold
	verdict := "held"
	if r.Status == Fail {
		verdict = "did not hold"
	}
	r.Message = fmt.Sprintf("%s of %d runs passed, required %s: the expectation %s", countWord(passed), len(judged), threshold, verdict)
	if estimate != "" {
		r.Message = fmt.Sprintf("%s (%s of %d runs passed), required %s: the expectation %s", estimate, countWord(passed), len(judged), threshold, verdict)
	}
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
	r.Evidence = append(r.Evidence, passRateText(pr))
}

// judgeRuns applies the runs rule to the pass counts. estimate is the
// figure an estimator rule measured ("pass@2 0.90"), empty for the rules
// that count passes.
func judgeRuns(rule RunsRule, pr metrics.PassRate) (ok bool, estimate, threshold string) {
	n := pr.Runs
	atK := func(name string, k int, values []float64, min float64) (bool, string, string) {
		threshold := fmt.Sprintf("%s%d ≥ %s", name, k, thresholdText(min, true))
		if k > n {
			// Skipped runs can leave fewer judged runs than k.
			return false, fmt.Sprintf("%s%d undefined with %d judged run(s)", name, k, n), threshold
		}
		v := values[k-1]
		return v >= min-1e-12, fmt.Sprintf("%s%d %.2f", name, k, v), threshold
	}
	switch {
	case rule.MinPassAtK != nil && rule.K != nil:
		return atK("pass@", *rule.K, pr.PassAt, *rule.MinPassAtK)
	case rule.MinPassHatK != nil && rule.K != nil:
		return atK("pass^", *rule.K, pr.PassHat, *rule.MinPassHatK)
	case rule.MinWilsonLow != nil:
		return pr.WilsonLow >= *rule.MinWilsonLow-1e-12,
			fmt.Sprintf("95%% Wilson lower bound %.2f", pr.WilsonLow),
			fmt.Sprintf("a 95%% Wilson lower bound of the pass rate ≥ %s", thresholdText(*rule.MinWilsonLow, true))
	}
	need, threshold := requiredPasses(rule, n)
	return pr.Passed >= need, "", threshold
}

// passRateText words the pass rate with its Wilson interval, pass@k and
// pass^k at every k.
func passRateText(pr metrics.PassRate) string {
	var at, hat []string
	for i := range pr.PassAt {
		at = append(at, fmt.Sprintf("pass@%d %.2f", i+1, pr.PassAt[i]))
		hat = append(hat, fmt.Sprintf("pass^%d %.2f", i+1, pr.PassHat[i]))
	}
	return fmt.Sprintf("pass rate %.2f (95%% Wilson %.2f–%.2f); %s; %s",
		pr.Rate, pr.WilsonLow, pr.WilsonHigh, strings.Join(at, ", "), strings.Join(hat, ", "))
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
