// Package retrievaltest provides utilities for testing an agent's retrieval:
// it runs scenario files under go test and asserts on measured runs;
// package retrievaltest/steps says the same in Gherkin.
//
// # Scenario files as tests
//
// A scenario file (its format is documented in package expectations) names
// the traces of one task, its ground truth and the expectations its
// retrieval must meet. Run turns a set of them into subtests, so that a
// change that makes the agent fall back to grepping fails the build:
//
//	// scenarios/scenarios_test.go
//	package scenarios_test
//
//	func TestScenarios(t *testing.T) { retrievaltest.Run(t, "*.yaml") }
//
// Each scenario is a subtest named by its name, and each expectation a
// subtest of that named by its type (index_usage, index_usage#2, …):
//
//	go test ./scenarios/ -run 'TestScenarios/fix-bug/index_usage' -v
//
// A failure shows what was measured against what, and where the
// expectation is written:
//
//	--- FAIL: TestScenarios/fix-bug/index_usage (0.00s)
//	    scenarios_test.go:14: fix-bug.yaml:7:5: index_usage: semantic ratio measured 0.33, required ≥ 0.60 (1 semantic of 3 semantic + file-level calls)
//	            measured:  semantic ratio 0.33
//	            threshold: semantic ratio ≥ 0.60
//	            evidence:  step 1: mcp__sourcegraph__sg_keyword_search pkg/auth/token.go
//
// Expectations that need a live run are skipped with the reason; a flaky
// expectation that fails is logged and does not fail the test; a file
// that does not load fails the test with every error of every file, each
// at its file:line:col. RunWith takes Options, among them a registry with
// your own expectation types (expectations.RegisterFunc).
//
// Check and CheckWith do the same without package testing and return the
// results, for a runner of your own.
//
// For a runner of many scenarios (the check command is one), FindScenarios
// finds the scenario files under folders, LoadAll loads them and reports
// every problem of every file, and EvaluateAll evaluates them in parallel
// (Options.Jobs) with results in the scenarios' order, whatever order they
// finish in:
//
//	files, err := retrievaltest.FindScenarios("scenarios")
//	scenarios, loadErrs := retrievaltest.LoadAll(files, retrievaltest.Options{})
//	results, evalErrs := retrievaltest.EvaluateAll(ctx, scenarios, retrievaltest.Options{Jobs: 8})
//
// CheckFiles does all three and never stops at a bad file: it returns the
// results of every scenario it could evaluate and an
// expectations.ScenarioError for each file that did not load or whose
// trace could not be read, which report.NewCheck turns into rows of their
// own:
//
//	results, bad := retrievaltest.CheckFiles(ctx, files, nil, retrievaltest.Options{Jobs: 8})
//	c := report.NewCheck(results, bad...)
//
// # Assertions
//
// The Assert functions check one run (expectations.Measure) and report on
// any TestingT: *testing.T, testify's mocks, or godog.T(ctx) inside a
// godog step. They return whether the assertion held, like testify's
// assert package:
//
//	run, err := expectations.Measure("fix-bug.claude.jsonl", expectations.MeasureOptions{Truth: truth})
//	require.NoError(t, err)
//	retrievaltest.AssertSemanticRatio(t, run, 0.6)
//	retrievaltest.AssertStepsToTarget(t, run, 3)
//	retrievaltest.AssertMetric(t, run, "recall@5", 0.8)
//	retrievaltest.AssertNoPattern(t, run, "fishing")
//
// AssertScenario does the same for every expectation of an evaluated
// scenario.
//
// # Gherkin
//
// The Gherkin steps that say the same in a feature file are in package
// retrievaltest/steps (steps.Register), so that a gate that does not use
// them does not compile godog.
package retrievaltest
