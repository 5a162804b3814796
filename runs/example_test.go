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
