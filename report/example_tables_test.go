package report_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentretrieval/agentretrieval/report"
)

// WriteExpectationsTable shows one row per expectation: what was measured
// against what, and the evidence of a failure.
func ExampleWriteExpectationsTable() {
	rows := []report.ExpectationRow{
		{
			Scenario: "fix-bug", Type: "index_usage", Status: report.Fail,
			Measured: "0.45", Threshold: "≥ 0.60",
			Evidence: []string{"fishing at steps 1–5"},
		},
		{Scenario: "fix-bug", Type: "retrieval", Status: report.Pass, Measured: "1.00", Threshold: "≥ 0.80"},
		{Scenario: "fix-bug", Type: "compiles", Status: report.Skipped, Measured: "n/a"},
	}
	if err := report.WriteExpectationsTable(os.Stdout, rows); err != nil {
		fmt.Println(err)
	}
	// Output:
	// | Scenario | Expectation | Measured | Threshold | Result | Evidence (step N = N-th tool call) |
	// |:--|:--|:--|:--|:--|:--|
	// | fix-bug | index_usage | 0.45 | ≥ 0.60 | **FAIL** | fishing at steps 1–5 |
	// | fix-bug | retrieval | 1.00 | ≥ 0.80 | pass |   |
	// | fix-bug | compiles | n/a |   | skipped |   |
}

// WriteRetrievalTable heads each column with the metric's label, and shows
// a figure that does not exist as n/a with the reason in a footnote; with a
// baseline, each figure carries its change.
func ExampleWriteRetrievalTable() {
	rows := []report.RetrievalRow{
		{Name: "fix-bug", Values: map[string]float64{"recall@5": 0.8, "mrr": 0.5}},
		{Name: "add-service", Reason: "the task has no ground-truth files"},
	}
	base := report.NewBaseline("scenario")
	base.Set("fix-bug", "recall@5", 0.6)
	base.Set("fix-bug", "mrr", 1)
	var b strings.Builder
	err := report.WriteRetrievalTable(&b, rows, report.RetrievalOptions{
		Metrics:       []string{"recall@5", "mrr"},
		Baseline:      base,
		MaxRegression: 0.05,
	})
	if err != nil {
		fmt.Println(err)
	}
	// Footnotes end in two spaces, a markdown line break, which an
	// example's output cannot show.
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		fmt.Println(strings.TrimRight(line, " "))
	}
	// Output:
	// | Scenario | Recall@5 (TREC) | MRR (TREC RR) |
	// |:--|:--|:--|
	// | add-service | n/a¹ | n/a¹ |
	// | fix-bug | 0.80 (+0.20) ▲ | 0.50 **(-0.50) ▼** |
	//
	// ¹ the task has no ground-truth files
	//
	// Changes against the baseline: ▲ better, ▼ worse; in bold, worse by more than allowed (0.05 of every figure), a regression.
}

// WriteJUnit gives CI systems one test case per expectation: a failure
// carries the measurement, a live-run check is skipped.
func ExampleWriteJUnit() {
	rows := []report.ExpectationRow{
		{
			Scenario: "fix-bug", Type: "index_usage", Status: report.Fail,
			Measured: "0.45", Threshold: "≥ 0.60",
			Message: "semantic ratio measured 0.45, required ≥ 0.60",
			Pos:     "scenarios/fix-bug.yaml:7:5",
		},
		{Scenario: "fix-bug", Type: "compiles", Status: report.Skipped, Message: "compiles needs a live run"},
	}
	if err := report.WriteJUnit(os.Stdout, rows, report.JUnitOptions{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <testsuites name="retrievaltest" tests="2" failures="1" errors="0" skipped="1">
	//   <testsuite name="fix-bug" tests="2" failures="1" errors="0" skipped="1">
	//     <testcase name="index_usage" classname="fix-bug" file="scenarios/fix-bug.yaml:7:5">
	//       <failure message="semantic ratio measured 0.45, required ≥ 0.60" type="index_usage">measured: 0.45&#xA;threshold: ≥ 0.60&#xA;</failure>
	//     </testcase>
	//     <testcase name="compiles" classname="fix-bug">
	//       <skipped message="compiles needs a live run"></skipped>
	//     </testcase>
	//   </testsuite>
	// </testsuites>
}
