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
