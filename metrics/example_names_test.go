package metrics_test

import (
	"fmt"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// Define looks up a metric name as scenario files, baselines and reports
// spell it: any cutoff for an @k measure, and "read." for the ranked list
// of the files the agent read rather than surfaced.
func ExampleDefine() {
	for _, name := range []string{"recall@5", "read.ndcg@20", "steps_to_target", "recal@5"} {
		d, ok := metrics.Define(name)
		if !ok {
			fmt.Printf("%s: unknown\n", name)
			continue
		}
		fmt.Printf("%s: %s, in [0, 1]: %t\n", name, d.Label, d.Bounded)
	}
	// Output:
	// recall@5: Recall@5 (TREC), in [0, 1]: true
	// read.ndcg@20: nDCG@20 (TREC), read, in [0, 1]: true
	// steps_to_target: Steps to target, in [0, 1]: false
	// recal@5: unknown
}
