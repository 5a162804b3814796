package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

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
}

// CheckOptions control the rendering of a Check.
type CheckOptions struct {
	// Metrics are the retrieval table's columns; nil means
	// DefaultRetrievalMetrics.
	Metrics []string
	// Target is the aggregate semantic-ratio target; 0 means
	// DefaultSemanticTarget.
	Target float64
	// Baseline, when set, adds each figure's change and a section of the
	// regressions worse than MaxRegression.
	Baseline      *Baseline
	MaxRegression float64
}

// NewCheck builds the rows of a check report from scenario results, in
// their order. A scenario's index row has the mean semantic ratio of its
// runs, their lower-median steps to target, every pattern seen and the
// outcome of its index_usage expectations; its retrieval row the mean of
// each metric over the runs that have it.
func NewCheck(results []*expectations.ScenarioResult) *Check {
	c := &Check{Results: results, Figures: NewBaseline("scenario")}
	for _, res := range results {
		c.Index = append(c.Index, scenarioIndexRow(res))
		row := scenarioRetrievalRow(res)
		c.Retrieval = append(c.Retrieval, row)
		for m, v := range row.Values {
			c.Figures.Set(res.Name, m, v)
		}
		for _, r := range res.Results {
			c.Expectations = append(c.Expectations, expectationRow(res.Name, r))
		}
	}
	return c
}

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
	return Regressions(*opts.Baseline, *c.Figures, opts.MaxRegression)
}

// WriteMarkdown writes the report: how many scenarios passed, the
// index-effectiveness table, the retrieval table, every expectation, and
// with a baseline the regressions.
func (c *Check) WriteMarkdown(w io.Writer, opts CheckOptions) error {
	if opts.Target == 0 {
		opts.Target = DefaultSemanticTarget
	}
	var b bytes.Buffer
	passed := len(c.Results) - len(c.Failed())
	fmt.Fprintf(&b, "# Retrieval check\n\n%d of %d scenarios passed.\n\n## Index effectiveness\n\n", passed, len(c.Results))
	if err := WriteIndexTable(&b, c.Index, IndexOptions{Target: opts.Target, Baseline: opts.Baseline, MaxRegression: opts.MaxRegression}); err != nil {
		return err
	}
	b.WriteString("\n## Retrieval\n\n")
	if err := WriteRetrievalTable(&b, c.Retrieval, RetrievalOptions{Metrics: opts.Metrics, Baseline: opts.Baseline, MaxRegression: opts.MaxRegression}); err != nil {
		return err
	}
	b.WriteString("\n## Expectations\n\n")
	if err := WriteExpectationsTable(&b, c.Expectations); err != nil {
		return err
	}
	if opts.Baseline != nil {
		b.WriteString("\n## Regressions\n\n")
		if err := WriteRegressions(&b, c.Regressions(opts), opts.MaxRegression); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// checkJSON is the JSON form of a check report.
type checkJSON struct {
	Passed      bool                           `json:"passed"`
	Scenarios   []*expectations.ScenarioResult `json:"scenarios"`
	Figures     map[string]map[string]float64  `json:"figures"`
	Regressions []Regression                   `json:"regressions"`
}

// WriteJSON writes the report as one JSON document: whether everything
// passed (no failed scenario, no regression), every scenario result, the
// figures and the regressions against opts.Baseline.
func (c *Check) WriteJSON(w io.Writer, opts CheckOptions) error {
	regs := c.Regressions(opts)
	if regs == nil {
		regs = []Regression{}
	}
	doc := checkJSON{
		Passed:      len(c.Failed()) == 0 && len(regs) == 0,
		Scenarios:   c.Results,
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
	row := RetrievalRow{Name: res.Name, Values: map[string]float64{}}
	sums := map[string][]float64{}
	for _, run := range res.Runs {
		if run.Metrics == nil {
			continue
		}
		for m, v := range run.Metrics.Values() {
			sums[m] = append(sums[m], v)
		}
		if !run.Metrics.Computable && run.Metrics.NonComputableReason != nil && row.Reason == "" {
			row.Reason = "non-computable: " + *run.Metrics.NonComputableReason
		}
	}
	for m, vs := range sums {
		row.Values[m] = mean(vs)
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

// CheckFormats are the forms Check.Write writes: markdown, JSON, JUnit XML.
var CheckFormats = []string{"md", "json", "junit"}

// Write writes the report in one of CheckFormats.
func (c *Check) Write(w io.Writer, format string, opts CheckOptions) error {
	switch format {
	case "md":
		return c.WriteMarkdown(w, opts)
	case "json":
		return c.WriteJSON(w, opts)
	case "junit":
		return WriteJUnit(w, c.Expectations, JUnitOptions{})
	}
	return fmt.Errorf("report format %q: want one of md, json, junit", format)
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
