package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/suggest"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/retrievaltest/internal/judge"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Registrar is where Register registers its steps: the Step and
// Before methods of *godog.ScenarioContext.
type Registrar interface {
	// Step registers a step: expr is an anchored regular expression,
	// stepFunc a function godog can call with the expression's groups.
	Step(expr, stepFunc any)
	// Before registers a hook run before each scenario; the steps use it
	// to give every scenario its own state in the context.
	Before(h godog.BeforeScenarioHook)
}

var _ Registrar = (*godog.ScenarioContext)(nil)

// Options configure Register. The zero value resolves paths
// against each feature file's folder and uses the built-in expectation
// types.
type Options struct {
	// BaseDir resolves the relative paths in steps (traces, ground truth,
	// scenario files); "" means the folder of the feature file.
	BaseDir string
	// Registry holds the expectation types of scenario files; nil means
	// expectations.DefaultRegistry().
	Registry *expectations.Registry
	// MaxInputSize, when positive, bounds in bytes every trace and
	// scenario file the steps read (as retrievaltest.Options.MaxInputSize
	// does).
	MaxInputSize int64
	// Recorder records the scenario files with a run key that the
	// scenario steps evaluate (collect.Record; see
	// retrievaltest.Options.Recorder); nil makes such a file an error.
	Recorder expectations.Recorder
}

// Register registers the retrieval steps of Catalogue on sc,
// typically from a godog.TestSuite's ScenarioInitializer:
//
//	ScenarioInitializer: func(sc *godog.ScenarioContext) { steps.Register(sc) },
//
// Each scenario keeps its own state (the trace, its ground truth, the
// measured run) in its context.Context, so suites may run scenarios
// concurrently. The trace is measured by "When the trace is measured" or,
// without that step, by the first step that needs it. A failing step
// returns an error that shows the measured value, the threshold and the
// evidence. opts may hold at most one Options.
func Register(sc Registrar, opts ...Options) {
	var o Options
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		panic("steps: Register takes at most one Options")
	}
	sc.Before(func(ctx context.Context, s *godog.Scenario) (context.Context, error) {
		return context.WithValue(ctx, stateKey{}, &stepState{dir: featureDir(s.Uri)}), nil
	})
	r := &stepRunner{opts: o}
	for _, d := range r.defs() {
		sc.Step(d.pattern, d.fn)
	}
	// An undefined step is answered with the closest registered step, and
	// names the scenario's earlier undefined steps too: godog fails the
	// scenario with the last step's error only. godog joins a hook's error
	// to the step's, so a hook with nothing to add returns none: the
	// step's error is printed once.
	if s, ok := sc.(interface{ StepContext() godog.StepContext }); ok {
		s.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
			if status != godog.StepUndefined || err == nil || st == nil {
				return ctx, nil
			}
			ss, _ := ctx.Value(stateKey{}).(*stepState)
			return ctx, undefinedStep(ss, st.Text)
		})
	}
}

// undefinedStep is the error of an undefined step: godog.ErrUndefined with
// the step's text and the closest registered step, after the scenario's
// earlier undefined steps.
func undefinedStep(ss *stepState, text string) error {
	msg := fmt.Sprintf("%q", text)
	if ex := closestStep(text); ex != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", ex)
	}
	if ss == nil {
		return fmt.Errorf("%w: %s", godog.ErrUndefined, msg)
	}
	ss.undefined = append(ss.undefined, msg)
	return fmt.Errorf("%w: %s", godog.ErrUndefined, strings.Join(ss.undefined, "; "))
}

// closestStep returns the text of the registered step whose example is
// nearest to an undefined step's text (keyword and table left out), or ""
// when none is within half the text's length in edits.
func closestStep(text string) string {
	var r stepRunner
	best, bestDist := "", -1
	for _, d := range r.defs() {
		ex, _, _ := strings.Cut(d.example, "\n")
		if _, rest, ok := strings.Cut(ex, " "); ok {
			ex = rest // the keyword: Given, When, Then
		}
		if dist := suggest.Distance(strings.ToLower(text), strings.ToLower(ex)); bestDist < 0 || dist < bestDist {
			best, bestDist = ex, dist
		}
	}
	if bestDist < 0 || bestDist > len([]rune(text))/2 {
		return ""
	}
	return best
}

// Catalogue lists the steps Register registers, one string each:
// the step's regular expression, a tab, and what it means.
func Catalogue() []string {
	var r stepRunner
	var out []string
	for _, d := range r.defs() {
		out = append(out, d.pattern+"\t"+d.doc)
	}
	return out
}

// stepDef is one step: its anchored pattern, a one-line description, an
// example as written in a feature file, and its function.
type stepDef struct {
	pattern string
	doc     string
	example string
	fn      any
}

// stepState is one scenario's state, held in its context.
type stepState struct {
	dir string // the feature file's folder
	// undefined lists the scenario's undefined steps so far, each with
	// the closest registered step.
	undefined []string
	trace     string
	traceID   string
	cwd       string
	truth     *groundtruth.Truth
	profiles  []string
	taxonomy  string
	symbols   []string
	run       *expectations.Run
}

type stateKey struct{}

// state returns the scenario's state, creating it when the Before hook did
// not run (a registrar that ignores hooks).
func state(ctx context.Context) (context.Context, *stepState) {
	if st, ok := ctx.Value(stateKey{}).(*stepState); ok {
		return ctx, st
	}
	st := &stepState{}
	return context.WithValue(ctx, stateKey{}, st), st
}

// featureDir is the folder of a pickle's feature file; its URI may end in
// ":line" when the suite was asked for one scenario.
func featureDir(uri string) string {
	if i := strings.LastIndexByte(uri, ':'); i > 0 {
		if _, err := strconv.Atoi(uri[i+1:]); err == nil {
			uri = uri[:i]
		}
	}
	if uri == "" {
		return ""
	}
	return filepath.Dir(uri)
}

type stepRunner struct{ opts Options }

// path resolves a path written in a step.
func (r *stepRunner) path(st *stepState, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	base := r.opts.BaseDir
	if base == "" {
		base = st.dir
	}
	return filepath.Join(base, p)
}

// measured returns the scenario's run, measuring the trace on first use.
func (r *stepRunner) measured(st *stepState) (*expectations.Run, error) {
	if st.run != nil {
		return st.run, nil
	}
	if st.trace == "" {
		return nil, errors.New(`no trace: start the scenario with Given the trace "PATH"`)
	}
	run, err := expectations.Measure(st.trace, expectations.MeasureOptions{
		TraceID:  st.traceID,
		CWD:      st.cwd,
		Profiles: st.profiles,
		Taxonomy: st.taxonomy,
		Truth:    st.truth,
		Symbols:  st.symbols,

		MaxInputSize: r.opts.MaxInputSize,
	})
	var multi *trace.MultiSessionError
	if errors.As(err, &multi) && multi.Want == "" && len(multi.IDs) > 0 {
		return nil, fmt.Errorf("%w; in a feature: Given the trace %q session %q", err, st.trace, multi.IDs[0])
	}
	if err != nil {
		return nil, err
	}
	st.run = run
	return run, nil
}

// given wraps a step that changes what is measured: it forgets an earlier
// measurement.
func given[A any](f func(st *stepState, arg A) error) func(context.Context, A) (context.Context, error) {
	return func(ctx context.Context, arg A) (context.Context, error) {
		ctx, st := state(ctx)
		st.run = nil
		return ctx, f(st, arg)
	}
}

// then wraps a step that checks the measured run.
func (r *stepRunner) then(check func(run *expectations.Run) error) func(context.Context) (context.Context, error) {
	return func(ctx context.Context) (context.Context, error) {
		ctx, st := state(ctx)
		run, err := r.measured(st)
		if err != nil {
			return ctx, err
		}
		return ctx, check(run)
	}
}

// thenArg is then for a step with one argument.
func thenArg[A any](r *stepRunner, check func(run *expectations.Run, arg A) error) func(context.Context, A) (context.Context, error) {
	return func(ctx context.Context, arg A) (context.Context, error) {
		ctx, st := state(ctx)
		run, err := r.measured(st)
		if err != nil {
			return ctx, err
		}
		return ctx, check(run, arg)
	}
}

// number matches a threshold written as a fraction (0.6) or a percentage
// (60%).
const number = `([0-9]+(?:\.[0-9]+)?%?)`

// parseFraction reads number: "60%" is 0.6, "0.6" is 0.6.
func parseFraction(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func (r *stepRunner) defs() []stepDef {
	check := func(e *expectations.Expectation) func(*expectations.Run) error {
		return func(run *expectations.Run) error { return judge.Check(r.opts.Registry, run, e) }
	}
	patternStep := func(forbid bool) func(*expectations.Run, string) error {
		return func(run *expectations.Run, name string) error {
			if !slices.Contains(metrics.PatternNames, name) {
				return fmt.Errorf("unknown pattern %q (known: %s)", name, strings.Join(metrics.PatternNames, ", "))
			}
			if forbid {
				return judge.Check(r.opts.Registry, run, judge.Patterns([]string{name}, nil))
			}
			return judge.Check(r.opts.Registry, run, judge.Patterns(nil, []string{name}))
		}
	}
	bound := func(atMost bool) func(context.Context, string, string) (context.Context, error) {
		return func(ctx context.Context, name, value string) (context.Context, error) {
			ctx, st := state(ctx)
			v, err := parseFraction(value)
			if err != nil {
				return ctx, err
			}
			if _, ok := metrics.Define(name); !ok {
				return ctx, errors.New(metrics.UnknownMetricError(name))
			}
			run, err := r.measured(st)
			if err != nil {
				return ctx, err
			}
			if atMost {
				return ctx, judge.Check(r.opts.Registry, run, judge.MetricBound(name, nil, &v))
			}
			return ctx, judge.Check(r.opts.Registry, run, judge.MetricBound(name, &v, nil))
		}
	}
	return []stepDef{
		{
			pattern: `^the trace "([^"]*)"$`,
			doc:     "the trace to measure, relative to the feature file's folder (or steps.Options.BaseDir)",
			example: `Given the trace "../testdata/examples/fix-token-expiry.claude.jsonl"`,
			fn: given(func(st *stepState, p string) error {
				st.trace, st.traceID = r.path(st, p), ""
				return nil
			}),
		},
		{
			pattern: `^the trace "([^"]*)" session "([^"]*)"$`,
			doc:     "one session of a trace file that holds several (an OpenHands evaluation output.jsonl, an OTLP file): its instance_id or trace id, as a scenario's trace_id",
			example: `Given the trace "output.jsonl" session "django__django-11099"`,
			fn: func(ctx context.Context, p, id string) (context.Context, error) {
				ctx, st := state(ctx)
				st.run = nil
				st.trace, st.traceID = r.path(st, p), id
				return ctx, nil
			},
		},
		{
			pattern: `^the working directory "([^"]*)"$`,
			doc:     "the agent's working directory, as a scenario's cwd: absolute paths below it are made relative to it, for a trace that records none",
			example: `Given the working directory "/root"`,
			fn: given(func(st *stepState, dir string) error {
				st.cwd = dir
				return nil
			}),
		},
		{
			pattern: `^the ground truth files:$`,
			doc:     "the relevant files, one a row: a single column, or a table with a header file (or path) and an optional grade column",
			example: "Given the ground truth files:\n  | file              | grade |\n  | pkg/auth/token.go | 2     |",
			fn: given(func(st *stepState, tbl *godog.Table) error {
				t, err := truthFromTable(tbl)
				st.truth = t
				return err
			}),
		},
		{
			pattern: `^the ground truth from "([^"]*)"$`,
			doc:     "ground truth from a file, task folder, diff or SWE-bench instance (groundtruth.Load)",
			example: `Given the ground truth from "../testdata/examples/fix-token-expiry.groundtruth.json"`,
			fn: given(func(st *stepState, spec string) error {
				t, err := groundtruth.Load(r.path(st, spec))
				st.truth = t
				return err
			}),
		},
		{
			pattern: `^the taxonomy profile "([^"]*)"$`,
			doc:     "classify tools with this built-in profile only (repeat the step to add more)",
			example: `Given the taxonomy profile "sourcegraph-mcp"`,
			fn: given(func(st *stepState, name string) error {
				if !slices.Contains(events.ProfileNames(), name) {
					return fmt.Errorf("unknown taxonomy profile %q (known: %s)", name, strings.Join(events.ProfileNames(), ", "))
				}
				st.profiles = append(st.profiles, name)
				return nil
			}),
		},
		{
			pattern: `^the taxonomy file "([^"]*)"$`,
			doc:     "a taxonomy file whose rules come before the profiles",
			example: `Given the taxonomy file "my-index.taxonomy.yaml"`,
			fn: given(func(st *stepState, p string) error {
				st.taxonomy = r.path(st, p)
				return nil
			}),
		},
		{
			pattern: `^the index symbols from "([^"]*)"$`,
			doc:     "identifiers the index knows, one a line: a text search for one of them is guessing",
			example: `Given the index symbols from "shop.symbols"`,
			fn: given(func(st *stepState, p string) error {
				syms, err := metrics.LoadSymbols(r.path(st, p))
				st.symbols = syms
				return err
			}),
		},
		{
			pattern: `^the trace is measured$`,
			doc:     "read and measure the trace now (optional: the first check does it)",
			example: "When the trace is measured",
			fn: func(ctx context.Context) (context.Context, error) {
				ctx, st := state(ctx)
				_, err := r.measured(st)
				return ctx, err
			},
		},
		{
			pattern: `^the semantic tool ratio is at least ` + number + `$`,
			doc:     "semantic / (semantic + file-level) tool calls is at least the threshold, a fraction or a percentage",
			example: "Then the semantic tool ratio is at least 60%",
			fn: thenArg(r, func(run *expectations.Run, value string) error {
				v, err := parseFraction(value)
				if err != nil {
					return err
				}
				if v > 1 {
					return fmt.Errorf("a ratio of %s: write 60%% or 0.6", value)
				}
				return judge.Check(r.opts.Registry, run, judge.SemanticRatio(v))
			}),
		},
		{
			pattern: `^the agent reaches a relevant file within ([0-9]+) steps?$`,
			doc:     "the first tool call that touches a ground-truth file (the first edit without ground truth) is call N or earlier",
			example: "Then the agent reaches a relevant file within 3 steps",
			fn: thenArg(r, func(run *expectations.Run, n int) error {
				return judge.Check(r.opts.Registry, run, judge.StepsToTarget(n))
			}),
		},
		{
			pattern: `^(\S+) is at least ` + number + `$`,
			doc:     "any metric by name (recall@5, read.mrr, line_coverage, …; see metrics.Definitions) is at least the threshold",
			example: "Then recall@5 is at least 0.8",
			fn:      bound(false),
		},
		{
			pattern: `^(\S+) is at most ` + number + `$`,
			doc:     "any metric by name (steps_to_target, ttfr_steps, redundancy, …) is at most the threshold",
			example: "Then backtracking_events is at most 1",
			fn:      bound(true),
		},
		{
			pattern: `^the agent is not (fishing|guessing)$`,
			doc:     "the pattern did not occur: fishing (a run of file-level calls with no semantic call), guessing (a text search for a known identifier)",
			example: "Then the agent is not fishing",
			fn:      thenArg(r, patternStep(true)),
		},
		{
			pattern: `^the agent is (fishing|guessing)$`,
			doc:     "the pattern occurred (for specs of known-bad traces)",
			example: "Then the agent is fishing",
			fn:      thenArg(r, patternStep(false)),
		},
		{
			pattern: `^the agent works directly$`,
			doc:     "the direct pattern occurred: a semantic call immediately followed by an edit of a file it returned",
			example: "Then the agent works directly",
			fn:      r.then(check(judge.Patterns(nil, []string{metrics.PatternDirect}))),
		},
		{
			pattern: `^the pattern "([^"]*)" is detected$`,
			doc:     "the named pattern (fishing, guessing, direct) occurred",
			example: `Then the pattern "direct" is detected`,
			fn:      thenArg(r, patternStep(false)),
		},
		{
			pattern: `^the pattern "([^"]*)" is not detected$`,
			doc:     "the named pattern did not occur",
			example: `Then the pattern "fishing" is not detected`,
			fn:      thenArg(r, patternStep(true)),
		},
		{
			pattern: `^the agent calls "([^"]*)"$`,
			doc:     "a tool the name or glob matches was called at least once",
			example: `Then the agent calls "mcp__sourcegraph__*"`,
			fn: thenArg(r, func(run *expectations.Run, tool string) error {
				return judge.Check(r.opts.Registry, run, &expectations.Expectation{Type: "tools", Params: &expectations.Tools{MustCall: []string{tool}}})
			}),
		},
		{
			pattern: `^the agent never calls "([^"]*)"$`,
			doc:     "no tool the name or glob matches was called",
			example: `Then the agent never calls "Grep"`,
			fn: thenArg(r, func(run *expectations.Run, tool string) error {
				return judge.Check(r.opts.Registry, run, &expectations.Expectation{Type: "tools", Params: &expectations.Tools{MustNotCall: []string{tool}}})
			}),
		},
		{
			pattern: `^the agent calls "([^"]*)" at most ([0-9]+) times?$`,
			doc:     "tools the name or glob matches were called at most N times in all",
			example: `Then the agent calls "file.read" at most 2 times`,
			fn: func(ctx context.Context, tool string, n int) (context.Context, error) {
				ctx, st := state(ctx)
				run, err := r.measured(st)
				if err != nil {
					return ctx, err
				}
				max := float64(n)
				return ctx, judge.Check(r.opts.Registry, run, &expectations.Expectation{Type: "tools", Params: &expectations.Tools{
					Calls: map[string]expectations.Bound{tool: {Max: &max}},
				}})
			},
		},
		{
			pattern: `^the agent calls "([^"]*)" before "([^"]*)"$`,
			doc:     "both were called and the first call matching the first pattern precedes the first matching the second (a tool name or glob, class:NAME or category:NAME)",
			example: `Then the agent calls "class:semantic" before "category:file_read"`,
			fn: func(ctx context.Context, first, then string) (context.Context, error) {
				return r.before(ctx, first, then, "first")
			},
		},
		{
			pattern: `^every "([^"]*)" call comes after a "([^"]*)" call$`,
			doc:     "no call matching the first pattern comes before the first call matching the second",
			example: `Then every "class:edit" call comes after a "category:file_read" call`,
			fn: func(ctx context.Context, then, first string) (context.Context, error) {
				return r.before(ctx, first, then, "every")
			},
		},
		{
			pattern: `^the agent's calls match (in_order|exact|unordered|subset|superset):$`,
			doc:     "the calls match the table's patterns (one a row) in the sequence mode",
			example: "Then the agent's calls match in_order:\n  | class:semantic |\n  | Edit |",
			fn: func(ctx context.Context, mode string, tbl *godog.Table) (context.Context, error) {
				ctx, st := state(ctx)
				if tbl == nil || len(tbl.Rows) == 0 {
					return ctx, errors.New("the table of calls is empty")
				}
				seq := &expectations.Sequence{Mode: mode}
				for _, row := range tbl.Rows {
					if len(row.Cells) != 1 {
						return ctx, errors.New("the table of calls has one column: a tool name or glob, class:NAME or category:NAME")
					}
					p, err := expectations.ParseCallPattern(row.Cells[0].Value)
					if err != nil {
						return ctx, err
					}
					seq.Calls = append(seq.Calls, p)
				}
				run, err := r.measured(st)
				if err != nil {
					return ctx, err
				}
				return ctx, judge.Check(r.opts.Registry, run, &expectations.Expectation{Type: "sequence", Params: seq})
			},
		},
		{
			pattern: `^at most ([0-9]+) calls? fails?$`,
			doc:     "no more than N tool calls failed",
			example: `Then at most 0 calls fail`,
			fn: thenArg(r, func(run *expectations.Run, n int) error {
				return judge.Check(r.opts.Registry, run, &expectations.Expectation{Type: "errors", Params: &expectations.CallErrors{MaxFailed: &n}})
			}),
		},
		{
			pattern: `^no failing call is retried more than ([0-9]+) times? in a row$`,
			doc:     "the same failing call (same tool, same arguments) is not repeated more than N times right after itself",
			example: `Then no failing call is retried more than 1 time in a row`,
			fn: thenArg(r, func(run *expectations.Run, n int) error {
				return judge.Check(r.opts.Registry, run, &expectations.Expectation{Type: "errors", Params: &expectations.CallErrors{MaxRetries: &n}})
			}),
		},
		{
			pattern: `^the "([^"]*)" expectations of scenario "([^"]*)" pass$`,
			doc:     "every expectation of that type in the scenario file holds (flaky ones may fail; skipped ones are logged)",
			example: `Then the "index_usage" expectations of scenario "../scenarios/add-coupon-support.yaml" pass`,
			fn: func(ctx context.Context, typ, file string) (context.Context, error) {
				ctx, st := state(ctx)
				return ctx, r.scenarioPasses(ctx, r.path(st, file), typ)
			},
		},
		{
			pattern: `^the scenario "([^"]*)" passes$`,
			doc:     "every expectation of the scenario file holds",
			example: `Then the scenario "../scenarios/fix-token-expiry.yaml" passes`,
			fn: func(ctx context.Context, file string) (context.Context, error) {
				ctx, st := state(ctx)
				return ctx, r.scenarioPasses(ctx, r.path(st, file), "")
			},
		},
	}
}

// before checks a before expectation built from two short-form patterns.
func (r *stepRunner) before(ctx context.Context, first, then, mode string) (context.Context, error) {
	ctx, st := state(ctx)
	a, err := expectations.ParseCallPattern(first)
	if err != nil {
		return ctx, err
	}
	b, err := expectations.ParseCallPattern(then)
	if err != nil {
		return ctx, err
	}
	run, err := r.measured(st)
	if err != nil {
		return ctx, err
	}
	return ctx, judge.Check(r.opts.Registry, run, &expectations.Expectation{Type: "before", Params: &expectations.Before{First: a, Then: b, Mode: mode}})
}

// scenarioPasses loads and evaluates a scenario file and checks its
// expectations of type typ ("" for all).
func (r *stepRunner) scenarioPasses(ctx context.Context, file, typ string) error {
	s, err := expectations.Load(file, expectations.LoadOptions{Registry: r.opts.Registry, MaxInputSize: r.opts.MaxInputSize})
	if err != nil {
		return err
	}
	res, err := expectations.Evaluate(s, expectations.EvalOptions{Registry: r.opts.Registry, MaxInputSize: r.opts.MaxInputSize, Recorder: r.opts.Recorder})
	if err != nil {
		return err
	}
	var failed []string
	n := 0
	for _, res := range res.Results {
		if typ != "" && res.Type != typ {
			continue
		}
		n++
		switch {
		case res.Failed():
			failed = append(failed, judge.Result(res))
		case res.Status != expectations.Pass:
			godog.Logf(ctx, "not failing (%s, flaky %t):\n%s", res.Status, res.Flaky, judge.Result(res))
		}
	}
	if n == 0 && typ != "" {
		return fmt.Errorf("%s has no %q expectation", file, typ)
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "\n"))
	}
	return nil
}

// truthFromTable reads a ground-truth table: one column of paths, or
// columns under a header naming file (or path) and optionally grade.
func truthFromTable(tbl *godog.Table) (*groundtruth.Truth, error) {
	if tbl == nil || len(tbl.Rows) == 0 {
		return nil, errors.New("the ground truth table is empty")
	}
	type file struct {
		Path  string `json:"path"`
		Grade *int   `json:"grade,omitempty"`
	}
	rows := tbl.Rows
	pathCol, gradeCol := 0, -1
	header := false
	for i, c := range rows[0].Cells {
		switch strings.ToLower(strings.TrimSpace(c.Value)) {
		case "file", "path":
			pathCol, header = i, true
		case "grade":
			gradeCol, header = i, true
		}
	}
	if header {
		rows = rows[1:]
	} else if len(rows[0].Cells) != 1 {
		return nil, errors.New("a ground truth table with several columns needs a header row naming the file (or path) column")
	}
	var files []file
	for _, row := range rows {
		f := file{Path: strings.TrimSpace(row.Cells[pathCol].Value)}
		if gradeCol >= 0 {
			g, err := strconv.Atoi(strings.TrimSpace(row.Cells[gradeCol].Value))
			if err != nil {
				return nil, fmt.Errorf("grade of %s: %q is not a whole number", f.Path, row.Cells[gradeCol].Value)
			}
			f.Grade = &g
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, errors.New("the ground truth table has a header and no files")
	}
	// Going through groundtruth.Parse normalizes the paths as every other
	// ground truth is normalized.
	data, err := json.Marshal(map[string]any{"files": files})
	if err != nil {
		return nil, err
	}
	return groundtruth.Parse("ground truth table", data)
}
