package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The command links neither godog nor the testing package: godog's
// start-up runs a child process (go env GOTOOLDIR) in every program that
// links it, which would be every start of every command. The go test and
// Gherkin glue lives in package retrievaltest; the command runs scenarios
// through internal/scenariorun.
func TestTheCommandLinksNoTestFramework(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to list the dependencies with")
		}
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/agentretrieval/agentretrieval/internal/scenariorun", "the listing is of the command")
	for _, banned := range []string{"testing", "github.com/cucumber/godog", "github.com/agentretrieval/agentretrieval/retrievaltest"} {
		require.False(t, slices.Contains(deps, banned), "the command links %s", banned)
	}
}
