package runs_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentretrieval/agentretrieval/runs"
)

// Evaluate a run as three shards, as three machines of a batch engine
// would, each writing its partial summary; then merge them into the run
// summary, which is the one Evaluate gives for the whole run.
func ExampleEvaluateShard() {
	out, err := os.MkdirTemp("", "retrieval_events")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)

	opts := runs.Options{GroundTruthRoot: "../testdata/runs/gt", Out: out}
	for k := 1; k <= 3; k++ {
		s, err := runs.EvaluateShard(context.Background(), "../testdata/runs/mini", runs.Shard{K: k, N: 3}, opts)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d of %d trials\n", filepath.Base(s.Source), len(s.Trials), s.RunTrials)
	}

	summary, err := runs.MergeShardFiles(out, out)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range summary.Configs {
		fmt.Printf("%s: %d trials, recall@5 %.2f over %d tasks\n", c.Config, c.Trials, c.Metrics["recall@5"].Mean, c.Metrics["recall@5"].N)
	}
	// Output:
	// run_retrieval_summary.shard-1-of-3.json: 4 of 11 trials
	// run_retrieval_summary.shard-2-of-3.json: 4 of 11 trials
	// run_retrieval_summary.shard-3-of-3.json: 3 of 11 trials
	// baseline-local-direct: 5 trials, recall@5 0.75 over 4 tasks
	// mcp-remote-direct: 6 trials, recall@5 0.92 over 3 tasks
}

// MergeShards checks that the shard summaries make up one run before it
// computes anything: here the second of two shards is missing.
func ExampleMergeShards() {
	out, err := os.MkdirTemp("", "retrieval_events")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	first, err := runs.EvaluateShard(context.Background(), "../testdata/runs/mini", runs.Shard{K: 1, N: 2},
		runs.Options{GroundTruthRoot: "../testdata/runs/gt", Out: out})
	if err != nil {
		log.Fatal(err)
	}
	first.Source = "" // name the shard by its number alone

	_, err = runs.MergeShards([]*runs.ShardSummary{first})
	fmt.Println(err)
	fmt.Println(errors.Is(err, runs.ErrShards))
	// Output:
	// the shards do not make up one run: shard 2 of 2 missing (1 of 2 given)
	// true
}
