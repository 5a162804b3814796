package report_test

import (
	"fmt"
	"os"

	"github.com/agentretrieval/agentretrieval/report"
)

func ExampleWriteIndexTable() {
	ratio := func(r float64) *float64 { return &r }
	steps := func(n int) *int { return &n }
	rows := []report.IndexRow{
		{Scenario: "fix-bug", SemanticRatio: ratio(0.45), StepsToTarget: steps(6), Patterns: []string{"fishing"}, Result: report.Fail},
		{Scenario: "add-service", SemanticRatio: ratio(0.72), StepsToTarget: steps(2), Patterns: []string{"direct"}, Result: report.Pass},
	}
	if err := report.WriteIndexTable(os.Stdout, rows, report.IndexOptions{Target: 0.6}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// | Scenario | Semantic ratio | Steps to target | Patterns | Scenario result |
	// |:--|:--|:--|:--|:--|
	// | add-service | 72.0% | 2 | direct | pass |
	// | fix-bug | 45.0% | 6 | fishing | **FAIL** |
	//
	// **Aggregate:** 58.5% semantic tool usage (target: 60%)
}

func ExampleRegressions() {
	base := report.NewBaseline("scenario")
	base.Set("fix-bug", "recall@5", 0.80)
	base.Set("fix-bug", "steps_to_target", 3)
	cur := report.NewBaseline("scenario")
	cur.Set("fix-bug", "recall@5", 0.70) // higher is better: 0.10 worse
	cur.Set("fix-bug", "steps_to_target", 2)
	for _, r := range report.Regressions(*base, *cur, 0.05) {
		fmt.Println(r)
	}
	// Output:
	// fix-bug recall@5: 0.80 → 0.70 (-0.10, allowed 0.05; higher is better)
}

// ParseTolerances reads -max-regression: tolerances by figure kind and by
// name, starting from DefaultTolerances.
func ExampleParseTolerances() {
	tol, err := report.ParseTolerances("ratio=0.02,recall@5=0.1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tol.For("recall@5"), tol.For("mrr"), tol.For("steps_to_target"))
	_, err = report.ParseTolerances("1")
	fmt.Println(err)
	// Output:
	// 0.1 0.02 2
	// 1: one number is the change allowed of every figure, and 1 of a ratio allows any change: give it by kind, such as steps=1,ratio=0.05
}

// WriteGitHubAnnotations makes each failure a workflow command that GitHub
// shows on the scenario line that states the expectation.
func ExampleWriteGitHubAnnotations() {
	rows := []report.ExpectationRow{
		{Scenario: "fix-bug", Type: "retrieval", Status: report.Fail, Pos: "scenarios/fix-bug.yaml:7:5",
			Message: "recall@5 measured 0.00, required ≥ 1.00"},
		{Scenario: "fix-bug", Type: "index_usage", Status: report.Pass, Pos: "scenarios/fix-bug.yaml:10:5"},
	}
	if err := report.WriteGitHubAnnotations(os.Stdout, rows); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ::error file=scenarios/fix-bug.yaml,line=7,col=5,title=fix-bug%3A retrieval::recall@5 measured 0.00, required ≥ 1.00
}
