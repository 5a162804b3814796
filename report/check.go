package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentretrieval/agentretrieval/expectations"
)

// A Check is the report of a set of evaluated scenarios (the check
// command's): their rows in this package's row types, and their figures.
type Check struct {
	Results      []*expectations.ScenarioResult
	Index        []IndexRow
	Retrieval    []RetrievalRow
	Expectations []ExpectationRow
	// Figures are every scenario's retrieval figures, keyed by scenario
	// name: what a baseline file records.
	Figures *Baseline
	// Bad are the scenario files that could not be checked; each is also
	// a row of Expectations with status Error.
	Bad []*expectations.ScenarioError
}

// CheckOptions control the rendering of a Check.
type CheckOptions struct {
	// Metrics are the retrieval table's columns; nil means
	// DefaultRetrievalMetrics.
	Metrics []string
	// Target is the aggregate semantic-ratio target; 0 means
	// DefaultSemanticTarget, a negative target none (see IndexOptions).
	Target float64
	// Baseline, when set, adds each figure's change and a section of the
	// regressions worse than MaxRegression.
	Baseline *Baseline
	// MaxRegression is the single allowed change of every figure, in its
	// own units; Tolerances, when set, takes its place.
	MaxRegression float64
	// Tolerances are the allowed changes by figure kind and name (see
	// ParseTolerances); nil means MaxRegression for every figure.
	Tolerances *Tolerances
	// BaselineName names the baseline file in the verdict; may be empty.
	BaselineName string
	// OnlyFailures leaves passing scenarios out of the markdown report;
	// otherwise their expectations are collapsed under <details>.
	OnlyFailures bool
	// FullReport says where the complete report is, for the note of a
	// step summary cut to fit ("the -o file report.md").
	FullReport string
}

// NewCheck builds the rows of a check report from scenario results, in
// their order. A scenario's index row has the mean semantic ratio of its
// runs, their lower-median steps to target, every pattern seen and the
// outcome of its index_usage expectations; its retrieval row the mean of
// each metric over the runs that have it.
//
// Each of bad, a scenario that could not be checked, is one row of
// Expectations with status Error, whose evidence is every problem at its
// file:line:col.
func NewCheck(results []*expectations.ScenarioResult, bad ...*expectations.ScenarioError) *Check {
	c := &Check{Results: results, Figures: NewBaseline("scenario"), Bad: bad}
	for _, b := range bad {
		c.Expectations = append(c.Expectations, errorRow(b))
	}
	// The rows of each scenario are made on all processors (the mean of
	// every measure over its runs, hundreds of scenarios), and gathered
	// in order.
	index := make([]IndexRow, len(results))
	retrieval := make([]RetrievalRow, len(results))
	// The figures of each row, copied for the baseline there too.
	figures := make([]map[string]float64, len(results))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(results)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(results); i = int(next.Add(1)) - 1 {
				index[i], retrieval[i] = scenarioIndexRow(results[i]), scenarioRetrievalRow(results[i])
				figures[i] = maps.Clone(retrieval[i].Values)
			}
		})
	}
	wg.Wait()
	for i, res := range results {
		c.Index = append(c.Index, index[i])
		row := retrieval[i]
		c.Retrieval = append(c.Retrieval, row)
		if _, ok := c.Figures.Entries[res.Name]; !ok && len(row.Values) > 0 {
			c.Figures.Entries[res.Name] = figures[i]
		} else {
			// A second scenario of the same name: its figures replace
			// those of the first, one by one.
			for m, v := range row.Values {
				c.Figures.Set(res.Name, m, v)
			}
		}
		for _, r := range res.Results {
			c.Expectations = append(c.Expectations, expectationRow(res.Name, r))
		}
	}
	return c
}

// BadInput reports whether a scenario could not be checked.
func (c *Check) BadInput() bool { return len(c.Bad) > 0 }

// Failed lists the scenarios that failed, in order.
func (c *Check) Failed() []string {
	var out []string
	for _, r := range c.Results {
		if r.Failed() {
			out = append(out, r.Name)
		}
	}
	return out
}

// Regressions lists the figures worse than opts.Baseline by more than
// opts.MaxRegression; nil without a baseline.
func (c *Check) Regressions(opts CheckOptions) []Regression {
	if opts.Baseline == nil {
		return nil
	}
	return RegressionsWithin(*opts.Baseline, *c.Figures, opts.tolerances())
}

// tolerances are the options' allowed changes: Tolerances, else
// MaxRegression for every figure.
func (o CheckOptions) tolerances() *Tolerances {
	if o.Tolerances != nil {
		return o.Tolerances
	}
	return UniformTolerance(o.MaxRegression)
}

// checkJSON is the JSON form of a check report.
type checkJSON struct {
	Passed      bool                           `json:"passed"`
	Scenarios   []*expectations.ScenarioResult `json:"scenarios"`
	Errors      []inputErrorJSON               `json:"errors"`
	Figures     map[string]map[string]float64  `json:"figures"`
	Regressions []Regression                   `json:"regressions"`
}

// inputErrorJSON is a scenario that could not be checked, in JSON.
type inputErrorJSON struct {
	File     string             `json:"file"`
	Scenario string             `json:"scenario,omitempty"`
	Problems []inputProblemJSON `json:"problems"`
}

type inputProblemJSON struct {
	Pos     string `json:"pos"`
	Message string `json:"message"`
}

// WriteJSON writes the report as one JSON document: whether everything
// passed (no failed scenario, no bad input, no regression), every scenario
// result with its full texts, the scenarios that could not be checked
// ("errors", each problem with its position), the figures and the
// regressions against opts.Baseline.
func (c *Check) WriteJSON(w io.Writer, opts CheckOptions) error {
	regs := c.Regressions(opts)
	if regs == nil {
		regs = []Regression{}
	}
	errs := []inputErrorJSON{}
	for _, b := range c.Bad {
		e := inputErrorJSON{File: b.File, Scenario: b.Name}
		pos, msg := b.Problems()
		for i := range pos {
			e.Problems = append(e.Problems, inputProblemJSON{Pos: pos[i], Message: msg[i]})
		}
		errs = append(errs, e)
	}
	doc := checkJSON{
		Passed:      len(c.Failed()) == 0 && len(regs) == 0 && len(c.Bad) == 0,
		Scenarios:   c.Results,
		Errors:      errs,
		Figures:     c.Figures.Entries,
		Regressions: regs,
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// scenarioStatus is a scenario's overall result: fail when an expectation
// failed it, flaky when only flaky ones failed, skipped when every
// expectation was skipped, else pass; "" with no expectation.
func scenarioStatus(res *expectations.ScenarioResult) Status {
	var out Status
	skipped := 0
	for _, r := range res.Results {
		switch st := StatusOf(r); st {
		case Fail:
			return Fail
		case Flaky:
			out = Flaky
		case Skipped:
			skipped++
		}
	}
	switch {
	case out != "":
		return out
	case len(res.Results) == 0:
		return ""
	case skipped == len(res.Results):
		return Skipped
	}
	return Pass
}

// scenarioIndexRow summarizes a scenario's runs: the mean semantic ratio of the
// runs that have one, the median steps to target, every pattern seen, and
// the scenario's overall result. It has no semantic tool when every run
// whose trace lists the tools lists no semantic one.
func scenarioIndexRow(res *expectations.ScenarioResult) IndexRow {
	row := IndexRow{Scenario: res.Name}
	var ratios []float64
	var steps []int
	seen := map[string]bool{}
	listed, offered := 0, 0
	for _, run := range res.Runs {
		if run.Metrics == nil || run.Metrics.IndexEffectiveness == nil {
			continue
		}
		ie := run.Metrics.IndexEffectiveness
		if ie.SemanticToolOffered != nil {
			listed++
			if *ie.SemanticToolOffered {
				offered++
			}
		}
		if ie.SemanticRatio != nil {
			ratios = append(ratios, *ie.SemanticRatio)
		}
		if ie.StepsToTarget != nil {
			steps = append(steps, *ie.StepsToTarget)
		}
		for _, p := range ie.DetectedPatterns() {
			if !seen[p] {
				seen[p] = true
				row.Patterns = append(row.Patterns, p)
			}
		}
	}
	sort.Strings(row.Patterns)
	row.NoSemanticTool = listed > 0 && offered == 0
	if len(ratios) > 0 {
		m := mean(ratios)
		row.SemanticRatio = &m
	}
	if len(steps) > 0 {
		slices.Sort(steps)
		s := steps[(len(steps)-1)/2] // the lower median: a whole step
		row.StepsToTarget = &s
	}
	row.Result = scenarioStatus(res)
	return row
}

// scenarioRetrievalRow averages each metric over the scenario's runs that have a
// value for it.
func scenarioRetrievalRow(res *expectations.ScenarioResult) RetrievalRow {
	row := RetrievalRow{Name: res.Name}
	// The sum and count of each metric's values, in run order: the mean
	// is the same as of the list of them.
	type sum struct {
		sum float64
		n   int
	}
	if len(res.Runs) == 1 && res.Runs[0].Metrics != nil {
		// The mean of one value is the value (but for -0, which the sum
		// of the runs' values starts at 0 to make +0): the values are
		// the row's.
		m := res.Runs[0].Metrics
		row.Values = m.Values()
		for name, v := range row.Values {
			if v == 0 {
				row.Values[name] = 0
			}
		}
		if !m.Computable && m.NonComputableReason != nil {
			row.Reason = "non-computable: " + *m.NonComputableReason
		}
		return row
	}
	var sums map[string]sum
	for _, run := range res.Runs {
		if run.Metrics == nil {
			continue
		}
		values := run.Metrics.Values()
		if sums == nil {
			sums = make(map[string]sum, len(values))
		}
		for m, v := range values {
			s := sums[m]
			sums[m] = sum{s.sum + v, s.n + 1}
		}
		if !run.Metrics.Computable && run.Metrics.NonComputableReason != nil && row.Reason == "" {
			row.Reason = "non-computable: " + *run.Metrics.NonComputableReason
		}
	}
	row.Values = make(map[string]float64, len(sums))
	for m, s := range sums {
		row.Values[m] = s.sum / float64(s.n)
	}
	return row
}

// errorRow is the row of a scenario that could not be checked: named by
// the scenario, or by its file when it did not load.
func errorRow(e *expectations.ScenarioError) ExpectationRow {
	pos, msg := e.Problems()
	row := ExpectationRow{Scenario: cmp.Or(e.Name, e.File), Type: "input", Status: Error, Measured: "n/a", Threshold: "n/a"}
	row.Description = "a trace cannot be read"
	if e.Name == "" {
		row.Description = "the scenario file does not load"
	}
	for i := range pos {
		row.Evidence = append(row.Evidence, pos[i]+": "+msg[i])
	}
	row.Message = strings.Join(row.Evidence, "\n")
	if len(pos) > 0 {
		row.Pos = pos[0]
	}
	return row
}

func expectationRow(scenario string, r *expectations.Result) ExpectationRow {
	return ExpectationRow{
		Scenario:    scenario,
		Type:        r.Type,
		Description: r.Description,
		Status:      StatusOf(r),
		Measured:    r.Measured,
		Threshold:   r.Threshold,
		Evidence:    r.Evidence,
		Message:     r.Message,
		Pos:         r.Pos.String(),
	}
}

// StatusOf maps an expectation result to a report status: a flaky
// expectation that failed is Flaky, reported but not failing.
func StatusOf(r *expectations.Result) Status {
	switch {
	case r.Status == expectations.Fail && r.Flaky:
		return Flaky
	case r.Status == expectations.Fail:
		return Fail
	case r.Status == expectations.Skipped:
		return Skipped
	}
	return Pass
}

func mean(vs []float64) float64 {
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

// CheckFormats are the forms Check.Write writes: markdown, JSON, JUnit XML
// and GitHub Actions annotations (see WriteGitHubAnnotations).
var CheckFormats = []string{"md", "json", "junit", "github"}

// Write writes the report in one of CheckFormats.
func (c *Check) Write(w io.Writer, format string, opts CheckOptions) error {
	switch format {
	case "md":
		return c.WriteMarkdown(w, opts)
	case "json":
		return c.WriteJSON(w, opts)
	case "junit":
		return WriteJUnit(w, c.Expectations, JUnitOptions{})
	case "github":
		return WriteGitHubAnnotations(w, c.Expectations)
	}
	return fmt.Errorf("report format %q: want one of %s", format, strings.Join(CheckFormats, ", "))
}

// AppendGitHubStepSummary appends markdown to the job summary of a GitHub
// Actions step, the file that GITHUB_STEP_SUMMARY names; it does nothing
// when the variable is not set (outside GitHub Actions).
func AppendGitHubStepSummary(markdown []byte) error {
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	if _, err := f.Write(append(markdown, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	return f.Close()
}
