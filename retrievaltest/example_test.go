package retrievaltest_test

import (
	"fmt"
	"testing"

	"github.com/agentretrieval/agentretrieval/retrievaltest"
)

func ExampleRun() {
	// In scenarios/scenarios_test.go: one subtest per scenario file of the
	// folder and one per expectation.
	_ = func(t *testing.T) {
		retrievaltest.Run(t, "*.yaml")
	}
}

func ExampleCheck() {
	results, err := retrievaltest.Check("../scenarios/add-coupon-support.yaml", "../testdata/gate/index-usage.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range results {
		fmt.Printf("%s failed: %t\n", s.Name, s.Failed())
		for _, r := range s.Results {
			fmt.Printf("  %s: %s\n", r.Type, r.Status)
			if r.Failed() {
				fmt.Printf("    measured %s, required %s\n", r.Measured, r.Threshold)
			}
		}
	}
	// Output:
	// add-coupon-support failed: false
	//   index_usage: pass
	//   index_usage: pass
	//   patterns: pass
	//   tools: pass
	// gate-index-usage failed: true
	//   index_usage: fail
	//     measured semantic ratio = 0.00, required ≥ 0.60
}
