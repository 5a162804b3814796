package retrievaltest_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cucumber/godog"

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

func ExampleRegisterSteps() {
	const feature = `Feature: Index usage
  Scenario: The agent finds the order service through the index
    Given the trace "../testdata/examples/add-coupon-support.aura.toolcalls.json"
    And the ground truth files:
      | src/Orders/OrderService.cs |
    Then the semantic tool ratio is at least 60%
    And the agent reaches a relevant file within 1 step
    And the agent is not fishing
`
	var out bytes.Buffer
	suite := godog.TestSuite{
		Name:                "retrieval",
		ScenarioInitializer: func(sc *godog.ScenarioContext) { retrievaltest.RegisterSteps(sc) },
		Options: &godog.Options{
			Format:   "progress",
			NoColors: true,
			Strict:   true,
			Output:   &out,
			// Usually Paths: []string{"features"}; this example keeps its
			// feature in memory, as if it were a file in this folder.
			FeatureContents: []godog.Feature{{Name: "index-usage.feature", Contents: []byte(feature)}},
		},
	}
	status := suite.Run()
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "passed") || strings.Contains(line, "failed") {
			fmt.Println(line)
		}
	}
	fmt.Println("exit status", status)
	// Output:
	// 1 scenarios (1 passed)
	// 5 steps (5 passed)
	// exit status 0
}
