package report_test

import (
	"fmt"
	"log"

	"github.com/agentretrieval/agentretrieval/report"
)

// Summarize gathers the task runs of each configuration; Compare matches
// the tasks computable in both and tests the paired differences. Here the
// index raises recall@5 on four of five matched tasks and ties on the
// fifth: W+ = 1 + 2 + 3.5 + 3.5 = 10, all four ranks positive, so the exact
// p is 2/2⁴ = 0.125, too few tasks for significance.
func ExampleCompare() {
	entry := func(task string, recall float64) report.TaskEntry {
		return report.TaskEntry{Name: task, Task: task, Status: report.Computable, Values: map[string]float64{"recall@5": recall}}
	}
	summary := report.Summarize("run-1", map[string][]report.TaskEntry{
		"grep-only": {entry("t1", 0.2), entry("t2", 0.4), entry("t3", 0.5), entry("t4", 0.6), entry("t5", 0.5)},
		"with-index": {entry("t1", 0.6), entry("t2", 0.7), entry("t3", 0.9), entry("t4", 0.8), entry("t5", 0.5),
			{Name: "t6", Task: "t6", Status: report.Degraded, Reason: "no usable tool calls"}},
	})
	c, err := report.Compare(summary, "grep-only", "with-index", []string{"recall@5"})
	if err != nil {
		log.Fatal(err) // fewer than MinMatched matched tasks, among others
	}
	fmt.Println("matched:", c.Matched, "only in with-index:", c.OnlyCandidate)
	for _, m := range c.Metrics {
		fmt.Printf("%s: %.2f → %.2f, mean difference %+.2f, Wilcoxon p %.3f (n %d), sign test p %.3f\n",
			m.Metric, m.BaselineMean, m.CandidateMean, m.Diff.Mean, m.Wilcoxon.P, m.Wilcoxon.N, m.Sign.P)
	}
	// Output:
	// matched: [t1 t2 t3 t4 t5] only in with-index: [t6]
	// recall@5: 0.44 → 0.70, mean difference +0.26, Wilcoxon p 0.125 (n 4), sign test p 0.125
}
