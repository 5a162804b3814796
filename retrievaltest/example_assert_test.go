package retrievaltest_test

import (
	"fmt"
	"log"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/retrievaltest"
)

// printT stands in for *testing.T: it prints what a test would report.
type printT struct{}

func (printT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// The Assert functions check one measured run, in any test, and report
// through TestingT what was measured against what.
func ExampleAssertSemanticRatio() {
	truth, err := groundtruth.Load("../testdata/examples/fix-token-expiry.groundtruth.json")
	if err != nil {
		log.Fatal(err)
	}
	run, err := expectations.Measure("../testdata/examples/fix-token-expiry.claude.jsonl", expectations.MeasureOptions{Truth: truth})
	if err != nil {
		log.Fatal(err)
	}
	var t printT // in a test: t *testing.T
	held := retrievaltest.AssertStepsToTarget(t, run, 3) &&
		retrievaltest.AssertMetric(t, run, "recall@5", 0.8) &&
		retrievaltest.AssertNoPattern(t, run, "fishing") &&
		retrievaltest.AssertNeverCalls(t, run, "WebFetch")
	fmt.Println("steps, recall, fishing, WebFetch held:", held)
	// One index search, then a Read and a Grep: 1 semantic call of 3 fails
	// a ratio of 0.6.
	retrievaltest.AssertSemanticRatio(t, run, 0.6)
	// Output:
	// steps, recall, fishing, WebFetch held: true
	// index_usage: semantic ratio measured 0.33, required ≥ 0.60 (1 semantic of 3 semantic + file-level calls)
	//     measured:  semantic ratio = 0.33
	//     threshold: ≥ 0.60
}
