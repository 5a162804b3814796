package report_test

import (
	"log"
	"os"

	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
)

// WriteComparison renders a runs.Compare result as markdown.
func ExampleWriteComparison() {
	entry := func(task string, recall float64) runs.TaskEntry {
		return runs.TaskEntry{Name: task, Task: task, Status: runs.Computable, Values: map[string]float64{"recall@5": recall}}
	}
	summary := runs.Summarize("run-1", map[string][]runs.TaskEntry{
		"grep-only":  {entry("t1", 0.2), entry("t2", 0.4), entry("t3", 0.5)},
		"with-index": {entry("t1", 0.6), entry("t2", 0.7), entry("t3", 0.9)},
	})
	c, err := runs.Compare(summary, "grep-only", "with-index", []string{"recall@5"})
	if err != nil {
		log.Fatal(err)
	}
	if err := report.WriteComparison(os.Stdout, c); err != nil {
		log.Fatal(err)
	}
	// Output:
	// ## Matched comparison: with-index vs grep-only
	//
	// Matched tasks (computable in both): 3: t1, t2, t3.
	//
	// ### Paired differences (with-index − grep-only)
	//
	// | Metric | n | grep-only mean | with-index mean | Mean difference | 95% CI (bootstrap) | Wilcoxon p | Sign test p (+/−/0) |
	// |:--|:--|:--|:--|:--|:--|:--|:--|
	// | Recall@5 (TREC) | 3 | 0.37 | 0.73 | +0.37 ▲ | [+0.30, +0.40] | 0.250 | 0.250 (3/0/0) |
	//
	// ▲ the candidate is better on average, ▼ worse (by each metric's direction). Wilcoxon p is exact (zero differences dropped, tied ranks averaged) unless marked ≈.
	//
	// ### Association with reward (Spearman ρ)
	//
	// | Metric | grep-only ρ (n, p) | with-index ρ (n, p) |
	// |:--|:--|:--|
	// | Recall@5 (TREC) | n/a | n/a |
	//
	// p is exact below 10 tasks (over all n! pairings of figure and reward) and from Student's t with n − 2 degrees of freedom from 10 on (marked ≈); n/a: fewer than two tasks with both the figure and a reward, or one of them constant.
	//
	// Association only, not causation: these figures describe how retrieval and reward moved together on the tasks of this run; they do not show that a change in retrieval caused a change in reward, and a difference between configurations may come from anything else that differs between them.
}
