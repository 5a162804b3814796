package steps_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentretrieval/agentretrieval/retrievaltest/steps"
)

func ExampleRegister() {
	const feature = `Feature: Index usage
  Scenario: The agent finds the order service through the index
    Given the trace "../../testdata/examples/add-coupon-support.aura.toolcalls.json"
    And the ground truth files:
      | src/Orders/OrderService.cs |
    Then the semantic tool ratio is at least 60%
    And the agent reaches a relevant file within 1 step
    And the agent is not fishing
`
	var out bytes.Buffer
	suite := godog.TestSuite{
		Name:                "retrieval",
		ScenarioInitializer: func(sc *godog.ScenarioContext) { steps.Register(sc) },
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

// Catalogue lists the Gherkin steps Register defines, each a
// regular expression and what it checks.
func ExampleCatalogue() {
	for _, step := range steps.Catalogue() {
		pattern, meaning, _ := strings.Cut(step, "\t")
		if strings.Contains(pattern, "semantic") {
			fmt.Printf("%s\n    %s\n", pattern, meaning)
		}
	}
	// Output:
	// ^the semantic tool ratio is at least ([0-9]+(?:\.[0-9]+)?%?)$
	//     semantic / (semantic + file-level) tool calls is at least the threshold, a fraction or a percentage
}
