package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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

// The default build links no bucket driver, no cloud SDK and no gRPC: Go
// initializes every linked package before main, so each would cost every
// command's start. The allclouds build (retrievaltest-clouds) has them.
func TestTheLeanBuildLinksNoCloudSDK(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to list the dependencies with")
		}
	}
	list := func(tags ...string) []string {
		out, err := exec.Command(goTool, append(append([]string{"list"}, tags...), "-deps", ".")...).Output()
		require.NoError(t, err)
		return strings.Fields(string(out))
	}
	heavy := func(deps []string) []string {
		var found []string
		for _, d := range deps {
			for _, prefix := range []string{"gocloud.dev/", "github.com/aws/", "cloud.google.com/", "github.com/Azure/", "google.golang.org/grpc", "github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/clouds"} {
				if strings.HasPrefix(d, prefix) {
					found = append(found, d)
				}
			}
		}
		return found
	}
	assert.Empty(t, heavy(list()), "the default build")
	clouds := heavy(list("-tags", "allclouds"))
	for _, driver := range []string{"gocloud.dev/blob/s3blob", "gocloud.dev/blob/gcsblob", "gocloud.dev/blob/azureblob"} {
		assert.Contains(t, clouds, driver, "the allclouds build")
	}
}

// A build made with -tags nodb links no database driver and no goose, and
// one made with -tags nodb,noparquet (the release's retrievaltest) no
// Parquet library either; the default build, as go install makes it, has
// them all.
func TestTheNodbBuildLinksNoDatabaseDriver(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to list the dependencies with")
		}
	}
	list := func(tags ...string) []string {
		out, err := exec.Command(goTool, append(append([]string{"list"}, tags...), "-deps", ".")...).Output()
		require.NoError(t, err)
		return strings.Fields(string(out))
	}
	drivers := []string{"modernc.org/sqlite", "github.com/jackc/pgx/v5/stdlib", "github.com/pressly/goose/v3"}
	deps := list()
	for _, d := range drivers {
		assert.Contains(t, deps, d, "the default build")
	}
	assert.Contains(t, deps, "github.com/parquet-go/parquet-go", "the default build")
	deps = list("-tags", "nodb")
	require.Contains(t, deps, "github.com/agentretrieval/agentretrieval/history", "the listing is of the command")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "modernc.org/") || strings.HasPrefix(d, "github.com/jackc/") || strings.HasPrefix(d, "github.com/pressly/goose"),
			"the nodb build links %s", d)
	}
	assert.Contains(t, deps, "github.com/parquet-go/parquet-go", "nodb keeps the Parquet library")
	deps = list("-tags", "nodb,noparquet")
	require.Contains(t, deps, "github.com/agentretrieval/agentretrieval/runs", "the listing is of the command")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "github.com/parquet-go/") || strings.HasPrefix(d, "modernc.org/"),
			"the release's build links %s", d)
	}
}
