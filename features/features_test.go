package features_test

import (
	"path/filepath"
	"testing"

	"github.com/cucumber/godog"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/retrievaltest/steps"
)

// TestFeatures runs the Gherkin specs of this folder with the retrieval
// steps, one subtest per scenario. It does not call t.Parallel: it is the
// package's only test, and godog's formatter writes to one shared output.
func TestFeatures(t *testing.T) {
	// godog passes a folder without feature files; a spec suite that
	// tests nothing must not.
	files, err := filepath.Glob("*.feature")
	require.NoError(t, err)
	require.NotEmpty(t, files, "no .feature files in features/")

	suite := godog.TestSuite{
		Name:                "retrieval",
		ScenarioInitializer: func(sc *godog.ScenarioContext) { steps.Register(sc) },
		Options: &godog.Options{
			Format:   "progress",
			NoColors: steps.NoColors(),
			Paths:    []string{"."},
			Strict:   true,
			TestingT: t,
		},
	}
	require.Zero(t, suite.Run(), "the feature specs failed")
}
