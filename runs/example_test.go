package runs_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/agentretrieval/agentretrieval/runs"
)

// Evaluate a miniature benchmark run of two configurations, with the
// ground truth of each task in a folder of task folders.
func ExampleEvaluate() {
	out, err := os.MkdirTemp("", "retrieval_events")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)

	summary, err := runs.Evaluate(context.Background(), "../testdata/runs/mini", runs.Options{
		GroundTruthRoot: "../testdata/runs/gt",
		Out:             out,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range summary.Configs {
		recall := c.Metrics["recall@5"]
		fmt.Printf("%s: %d trials of %d tasks; recall@5 %.2f over %d tasks; not scored: %v, degraded: %v\n",
			c.Config, c.Trials, c.Tasks, recall.Mean, recall.N, c.NonComputable.Names, c.Degraded.Names)
	}
	// Output:
	// baseline-local-direct: 5 trials of 5 tasks; recall@5 0.75 over 4 tasks; not scored: [docs-only], degraded: []
	// mcp-remote-direct: 6 trials of 5 tasks; recall@5 0.92 over 3 tasks; not scored: [docs-only], degraded: [rename-flag]
}

// Walk lists the trials of a run, with their task, reward and artifact
// name (the mcp configuration's, here: a task run twice keeps both).
func ExampleWalk() {
	trials, err := runs.Walk("../testdata/runs/mini")
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range trials[5:] {
		reward := "none"
		if t.Reward != nil {
			reward = fmt.Sprint(*t.Reward)
		}
		fmt.Printf("%s: task %s, reward %s, artifacts %s\n", t.Rel, t.Task, reward, t.Name)
	}
	// Output:
	// mcp-remote-direct/2026-01-15__10-00-00/add-cache__v4w5x6: task add-cache, reward 1, artifacts add-cache
	// mcp-remote-direct/2026-01-15__10-00-00/docs-only__e4f5g6: task docs-only, reward 1, artifacts docs-only
	// mcp-remote-direct/2026-01-15__10-00-00/fix-auth__p7q8r9: task fix-auth, reward 1, artifacts fix-auth__p7q8r9
	// mcp-remote-direct/2026-01-15__10-00-00/fix-auth__s1t2u3: task fix-auth, reward 0, artifacts fix-auth__s1t2u3
	// mcp-remote-direct/2026-01-15__10-00-00/parse-config__y7z8a9: task parse-config, reward 1, artifacts parse-config
	// mcp-remote-direct/2026-01-15__10-00-00/rename-flag__b1c2d3: task rename-flag, reward 0, artifacts rename-flag
}

// Compare two configurations of an evaluated run on the tasks computable
// in both.
func ExampleCompare() {
	out, err := os.MkdirTemp("", "retrieval_events")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	if _, err := runs.Evaluate(context.Background(), "../testdata/runs/mini", runs.Options{GroundTruthRoot: "../testdata/runs/gt", Out: out}); err != nil {
		log.Fatal(err)
	}

	summary, err := runs.ReadSummaries(out) // or several summaries, pooled
	if err != nil {
		log.Fatal(err)
	}
	base, cand, err := runs.PickConfigs(summary.ConfigNames(), "", "")
	if err != nil {
		log.Fatal(err)
	}
	c, err := runs.Compare(summary, base, cand, []string{"recall@5", "mrr"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s vs %s on %v\n", cand, base, c.Matched)
	for _, m := range c.Metrics {
		fmt.Printf("%s: %.2f → %.2f over %d tasks\n", m.Metric, m.BaselineMean, m.CandidateMean, m.N)
	}
	for _, u := range c.Unmatched() {
		fmt.Println("not compared:", u)
	}
	// Output:
	// mcp-remote-direct vs baseline-local-direct on [add-cache fix-auth parse-config]
	// recall@5: 0.67 → 0.92 over 3 tasks
	// mrr: 1.00 → 0.92 over 3 tasks
	// not compared: docs-only: non_computable in baseline-local-direct (no task folder for "docs-only" under ../testdata/runs/gt); non_computable in mcp-remote-direct (no task folder for "docs-only" under ../testdata/runs/gt)
	// not compared: rename-flag: degraded in mcp-remote-direct: no usable trace: no agent/trajectory.json, no agent/claude-code.txt
}

// Summarize gathers the task runs of each configuration (here written by
// hand rather than by Evaluate); Compare matches
// the tasks computable in both and tests the paired differences. Here the
// index raises recall@5 on four of five matched tasks and ties on the
// fifth: W+ = 1 + 2 + 3.5 + 3.5 = 10, all four ranks positive, so the exact
// p is 2/2⁴ = 0.125, too few tasks for significance.
func ExampleCompare_fromEntries() {
	entry := func(task string, recall float64) runs.TaskEntry {
		return runs.TaskEntry{Name: task, Task: task, Status: runs.Computable, Values: map[string]float64{"recall@5": recall}}
	}
	summary := runs.Summarize("run-1", map[string][]runs.TaskEntry{
		"grep-only": {entry("t1", 0.2), entry("t2", 0.4), entry("t3", 0.5), entry("t4", 0.6), entry("t5", 0.5)},
		"with-index": {entry("t1", 0.6), entry("t2", 0.7), entry("t3", 0.9), entry("t4", 0.8), entry("t5", 0.5),
			{Name: "t6", Task: "t6", Status: runs.Degraded, Reason: "no usable tool calls"}},
	})
	c, err := runs.Compare(summary, "grep-only", "with-index", []string{"recall@5"})
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
