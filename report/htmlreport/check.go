package htmlreport

import (
	"fmt"
	"strings"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/report"
)

// A verdict is an outcome as a badge shows it: a CSS class for its colour
// and the word that says the same without colour.
type verdict struct {
	Class, Label, Text string
}

var (
	verdictPass    = verdict{Class: "v-pass", Label: "PASS"}
	verdictFail    = verdict{Class: "v-fail", Label: "FAIL"}
	verdictFlaky   = verdict{Class: "v-flaky", Label: "FLAKY"}
	verdictSkipped = verdict{Class: "v-skipped", Label: "SKIPPED"}
	verdictNone    = verdict{Class: "v-none", Label: "NO EXPECTATIONS"}
	// verdictError is a scenario that could not be checked; it is coloured
	// as a failure and says why in words.
	verdictError = verdict{Class: "v-fail", Label: "ERROR"}
)

func verdictOf(s report.Status) verdict {
	switch s {
	case report.Fail:
		return verdictFail
	case report.Flaky:
		return verdictFlaky
	case report.Skipped:
		return verdictSkipped
	case report.Pass:
		return verdictPass
	}
	return verdictNone
}

// scenarioView is one scenario: its verdict first, then its expectations,
// then each of its runs.
type scenarioView struct {
	ID, Name, File, Description string
	Verdict                     verdict
	Expectations                []expectationView
	Traces                      []traceView
	// Open is a scenario shown unfolded: one that did not pass.
	Open bool
}

// failureView is a row of the failures panel: an expectation that failed,
// was flaky or could not be checked, and the scenario it belongs to.
type failureView struct {
	Scenario, Href string
	expectationView
}

type expectationView struct {
	Verdict                                verdict
	Type, Description, Measured, Threshold string
	Message, Pos                           string
	Evidence                               []string
	Runs                                   []runOutcomeView
}

type runOutcomeView struct {
	Trace, Measured, Message string
	Verdict                  verdict
}

// newScenarioView builds the section of one evaluated scenario.
func newScenarioView(i int, res *expectations.ScenarioResult) scenarioView {
	sv := scenarioView{ID: fmt.Sprintf("s%d", i+1), Name: clean(res.Name), File: clean(res.File)}
	if res.Scenario != nil {
		sv.Description = clean(res.Scenario.Description)
	}
	failed, flaky, skipped := 0, 0, 0
	for _, r := range res.Results {
		st := report.StatusOf(r)
		switch st {
		case report.Fail:
			failed++
		case report.Flaky:
			flaky++
		case report.Skipped:
			skipped++
		}
		ev := expectationView{
			Verdict: verdictOf(st), Type: clean(r.Type), Description: clean(r.Description),
			Measured: clean(r.Measured), Threshold: clean(r.Threshold), Message: clean(r.Message), Pos: clean(r.Pos.String()),
		}
		for _, e := range r.Evidence {
			ev.Evidence = append(ev.Evidence, clean(e))
		}
		if len(r.Runs) > 1 {
			for _, ro := range r.Runs {
				st := report.Pass
				switch ro.Status {
				case expectations.Fail:
					st = report.Fail
				case expectations.Skipped:
					st = report.Skipped
				}
				ev.Runs = append(ev.Runs, runOutcomeView{Trace: clean(ro.Trace), Measured: clean(ro.Measured), Message: clean(ro.Message), Verdict: verdictOf(st)})
			}
		}
		sv.Expectations = append(sv.Expectations, ev)
	}
	n := len(res.Results)
	switch {
	case n == 0:
		sv.Verdict = verdictNone
		sv.Verdict.Text = "The scenario has no expectation."
	case failed > 0:
		sv.Verdict = verdictFail
		sv.Verdict.Text = fmt.Sprintf("%d of %d expectations failed.", failed, n)
	case flaky > 0:
		sv.Verdict = verdictFlaky
		sv.Verdict.Text = fmt.Sprintf("%d flaky expectation(s) failed (reported, not failing); the others hold.", flaky)
	case skipped == n:
		sv.Verdict = verdictSkipped
		sv.Verdict.Text = "Every expectation needs a live run and was skipped."
	default:
		sv.Verdict = verdictPass
		sv.Verdict.Text = fmt.Sprintf("All %d expectations hold.", n-skipped)
		if skipped > 0 {
			sv.Verdict.Text += fmt.Sprintf(" %d skipped.", skipped)
		}
	}
	sv.Open = sv.Verdict.Class == verdictFail.Class || sv.Verdict.Class == verdictFlaky.Class
	for j, run := range res.Runs {
		tv := newTraceView(fmt.Sprintf("%s-r%d", sv.ID, j+1), run)
		tv.Level = 3
		sv.Traces = append(sv.Traces, tv)
	}
	return sv
}

// newErrorView is the section of a scenario that could not be checked:
// one entry per problem, at its file:line:col.
func newErrorView(i int, e *expectations.ScenarioError) scenarioView {
	sv := scenarioView{ID: fmt.Sprintf("s%d", i+1), Name: clean(e.Name), File: clean(e.File), Verdict: verdictError, Open: true}
	if sv.Name == "" {
		sv.Name = sv.File
	}
	sv.Verdict.Text = "The scenario could not be checked (bad input)."
	pos, msg := e.Problems()
	for j := range pos {
		sv.Expectations = append(sv.Expectations, expectationView{Verdict: verdictError, Type: "input", Message: clean(msg[j]), Pos: clean(pos[j])})
	}
	return sv
}

// failuresOf lists, scenario by scenario, the expectations that did not
// hold: failed, flaky, or a problem of a scenario that could not be checked.
func failuresOf(scenarios []scenarioView) []failureView {
	var out []failureView
	for _, s := range scenarios {
		for _, e := range s.Expectations {
			switch e.Verdict.Label {
			case verdictFail.Label, verdictFlaky.Label, verdictError.Label:
				out = append(out, failureView{Scenario: s.Name, Href: s.ID, expectationView: e})
			}
		}
	}
	return out
}

// checkVerdict is the verdict of a whole check: failed when a scenario
// failed or could not be checked, flaky when none did but a flaky
// expectation failed.
func checkVerdict(scenarios []scenarioView) verdict {
	failed, flaky := 0, 0
	for _, s := range scenarios {
		switch s.Verdict.Class {
		case verdictFail.Class:
			failed++
		case verdictFlaky.Class:
			flaky++
		}
	}
	if failed > 0 {
		v := verdictFail
		v.Text = fmt.Sprintf("%d of %d scenarios failed.", failed, len(scenarios))
		if flaky > 0 {
			v.Text += fmt.Sprintf(" %d flaky.", flaky)
		}
		return v
	}
	if flaky > 0 {
		v := verdictFlaky
		v.Text = fmt.Sprintf("No scenario failed, but %d of %d had a flaky expectation fail (reported, not failing the check).", flaky, len(scenarios))
		return v
	}
	v := verdictPass
	v.Text = fmt.Sprintf("All %d scenarios passed.", len(scenarios))
	return v
}

// summaryView is the table of every scenario's figures, as the markdown
// report's index-effectiveness and retrieval tables give them: its result,
// semantic ratio, steps to target, patterns and the retrieval metrics.
type summaryView struct {
	Metrics   []string
	Rows      []summaryRow
	Aggregate string
}

type summaryRow struct {
	Href, Scenario         string
	Verdict                verdict
	Ratio, Steps, Patterns string
	Values                 []summaryCell
}

// A summaryCell is a figure, or "n/a" with the reason as its tooltip.
type summaryCell struct{ Text, Title string }

// newSummary builds the summary of the scenarios evaluated; views are
// their sections, in the same order.
func newSummary(results []*expectations.ScenarioResult, views []scenarioView) *summaryView {
	if len(results) == 0 {
		return nil
	}
	c := report.NewCheck(results)
	sv := &summaryView{}
	for _, m := range report.DefaultRetrievalMetrics {
		sv.Metrics = append(sv.Metrics, report.Label(m))
	}
	var sum float64
	var n int
	for i, ir := range c.Index {
		row := summaryRow{Href: views[i].ID, Scenario: views[i].Name, Verdict: views[i].Verdict, Ratio: "n/a", Steps: "not reached"}
		switch {
		case ir.SemanticRatio != nil && ir.NoSemanticTool:
			row.Ratio = "no semantic tool offered"
		case ir.SemanticRatio != nil:
			row.Ratio = report.FormatValue("semantic_ratio", *ir.SemanticRatio)
			sum += *ir.SemanticRatio
			n++
		}
		if ir.StepsToTarget != nil {
			row.Steps = fmt.Sprint(*ir.StepsToTarget)
		}
		row.Patterns = clean(strings.Join(ir.Patterns, ", "))
		if row.Patterns == "" {
			row.Patterns = "none"
		}
		if ir.NoSemanticTool && len(ir.Patterns) > 0 {
			row.Patterns += " (information: no semantic tool offered)"
		}
		rr := c.Retrieval[i]
		for _, m := range report.DefaultRetrievalMetrics {
			if v, ok := rr.Values[m]; ok {
				row.Values = append(row.Values, summaryCell{Text: report.FormatValue(m, v)})
				continue
			}
			reason := rr.Reasons[m]
			if reason == "" {
				reason = rr.Reason
			}
			row.Values = append(row.Values, summaryCell{Text: "n/a", Title: clean(reason)})
		}
		sv.Rows = append(sv.Rows, row)
	}
	sv.Aggregate = "no scenario has a semantic ratio"
	if n > 0 {
		sv.Aggregate = fmt.Sprintf("mean semantic ratio %s over %d scenario(s)", report.FormatValue("semantic_ratio", sum/float64(n)), n)
	}
	return sv
}
