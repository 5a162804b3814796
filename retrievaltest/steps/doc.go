// Package steps is the Gherkin step library of retrievaltest: Register
// registers steps on a godog scenario context (Catalogue lists them), so
// that a feature file can state an expectation in words:
//
//	Feature: Index usage
//	  Scenario: The agent finds the expiry check through the index
//	    Given the trace "../testdata/examples/fix-token-expiry.claude.jsonl"
//	    And the ground truth from "../testdata/examples/fix-token-expiry.groundtruth.json"
//	    Then the agent reaches a relevant file within 1 step
//	    And recall@5 is at least 0.8
//	    And the agent is not fishing
//
// and a suite runs them under go test:
//
//	func TestFeatures(t *testing.T) {
//		suite := godog.TestSuite{
//			ScenarioInitializer: func(sc *godog.ScenarioContext) { steps.Register(sc) },
//			Options: &godog.Options{Format: "progress", Paths: []string{"."}, Strict: true,
//				NoColors: steps.NoColors(), TestingT: t},
//		}
//		if suite.Run() != 0 {
//			t.Fatal("the features failed")
//		}
//	}
//
// Paths in steps are relative to the feature file's folder. Every
// scenario keeps its own state in its context.Context; nothing is global.
// Run the suite with godog.Options{Strict: true}, so that a step no
// definition matches fails instead of passing as undefined (its error
// suggests the closest registered step), and with NoColors: NoColors(), so
// that CI logs and NO_COLOR get no colour codes.
//
// The steps live apart from package retrievaltest so that a go test gate
// that runs scenario files or uses the Assert helpers does not compile
// godog and its dependencies.
package steps
