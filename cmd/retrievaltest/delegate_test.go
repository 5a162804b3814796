package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/blobtest"
	"github.com/agentretrieval/agentretrieval/runs"
)

// leanBinary builds the command as go install and the release's
// retrievaltest do (no bucket drivers) into a new folder, with the extra
// go build flags.
func leanBinary(t *testing.T, flags ...string) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to build the command with")
		}
	}
	bin := filepath.Join(t.TempDir(), "retrievaltest"+exeSuffix())
	out, err := exec.Command(goTool, append(append([]string{"build", "-o", bin}, flags...), ".")...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// placeClouds puts this test binary beside lean as retrievaltest-clouds:
// it links the drivers, and with RETRIEVALTEST_TEST_ROLE=main it is the
// command (see TestMain).
func placeClouds(t *testing.T, lean string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	dst := filepath.Join(filepath.Dir(lean), blobio.CloudsBinary+exeSuffix())
	if os.Link(self, dst) == nil {
		return
	}
	in, err := os.Open(self)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

// runBinary runs bin with args and returns its exit code and output.
func runBinary(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "RETRIEVALTEST_TEST_ROLE=main")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	require.NoError(t, err)
	return 0, stdout.String(), stderr.String()
}

// The lean build reads no bucket itself: a command that names one runs in
// retrievaltest-clouds, beside it, with the same arguments, output and
// exit code; a command that names none runs in the lean build.
func TestTheLeanBuildHandsBucketCommandsToTheCloudsBuild(t *testing.T) {
	lean := leanBinary(t)
	srv := blobtest.Start(t, "traces", nil) // sets the AWS environment: not parallel
	trace, err := os.ReadFile(filepath.Join("..", "..", "testdata", "traces", "claude", "unmatched-result.claude.jsonl"))
	require.NoError(t, err)
	srv.Put(t, "s/session.jsonl", trace)

	code, out, stderr := runBinary(t, lean, "events", srv.URL("s/session.jsonl"))
	assert.Equal(t, exitBadInput, code, "without retrievaltest-clouds the lean build cannot read the bucket")
	assert.Empty(t, out)
	assert.Contains(t, stderr, "s3://traces/s/session.jsonl: this build of retrievaltest has no bucket drivers")

	placeClouds(t, lean)
	code, out, stderr = runBinary(t, lean, "events", srv.URL("s/session.jsonl"))
	require.Equal(t, exitOK, code, stderr)
	wantCode, want, wantErr := runCLI(t, nil, "events", srv.URL("s/session.jsonl"))
	require.Equal(t, exitOK, wantCode, wantErr)
	assert.Equal(t, want, out, "the same document as the build with the drivers writes")
	assert.Contains(t, out, `"trace_file": "s3://traces/s/session.jsonl"`)

	code, _, stderr = runBinary(t, lean, "events", srv.URL("s/missing.jsonl"))
	wantCode, _, wantErr = runCLI(t, nil, "events", srv.URL("s/missing.jsonl"))
	assert.NotEqual(t, exitOK, wantCode)
	assert.Equal(t, wantCode, code, "the exit code is the clouds build's")
	assert.Equal(t, wantErr, stderr)

	// A command without a bucket runs in the lean build: beside this copy,
	// retrievaltest-clouds is no program at all.
	dir := t.TempDir()
	alone := filepath.Join(dir, filepath.Base(lean))
	require.NoError(t, os.Link(lean, alone))
	require.NoError(t, os.WriteFile(filepath.Join(dir, blobio.CloudsBinary+exeSuffix()), []byte("not a program\n"), 0o755))
	code, out, stderr = runBinary(t, alone, "version")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `^retrievaltest .* go1\.\d+`, out)
	local := filepath.Join("..", "..", "testdata", "traces", "claude", "unmatched-result.claude.jsonl")
	code, out, stderr = runBinary(t, alone, "events", local)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `"trace_file": "`+local+`"`)
	code, _, stderr = runBinary(t, alone, "events", srv.URL("s/session.jsonl"))
	assert.Equal(t, exitFailed, code, "a bucket goes to retrievaltest-clouds, whatever it is")
	assert.Contains(t, stderr, "retrievaltest: running "+filepath.Join(dir, blobio.CloudsBinary+exeSuffix()))

	// A lean build under the name of the clouds build hands nothing on
	// twice: it says what it lacks instead of starting itself again.
	dir = t.TempDir()
	alone = filepath.Join(dir, filepath.Base(lean))
	require.NoError(t, os.Link(lean, alone))
	require.NoError(t, os.Link(lean, filepath.Join(dir, blobio.CloudsBinary+exeSuffix())))
	code, _, stderr = runBinary(t, alone, "events", srv.URL("s/session.jsonl"))
	assert.Equal(t, exitBadInput, code, stderr)
	assert.Contains(t, stderr, "this build of retrievaltest has no bucket drivers")
}

// The release's retrievaltest is built with -tags nodb: a command that
// opens a history database runs in retrievaltest-clouds, beside it, which
// has the drivers; without it, the command says what to install.
func TestTheNodbBuildHandsHistoryCommandsToTheCloudsBuild(t *testing.T) {
	t.Parallel()
	lean := leanBinary(t, "-tags", "nodb")
	db := filepath.Join(t.TempDir(), "h.db")
	wantCode, want, wantErr := runCLI(t, nil, "check", "-history", db, "-run-id", "r1", "-branch", "main", "-commit", "c0ffee", checkMixed)
	require.Equal(t, exitFailed, wantCode, wantErr)

	code, out, stderr := runBinary(t, lean, "history", db)
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "this build of retrievaltest has no database drivers")

	placeClouds(t, lean)
	wantCode, want, wantErr = runCLI(t, nil, "history", db)
	require.Equal(t, exitOK, wantCode, wantErr)
	code, out, stderr = runBinary(t, lean, "history", db)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, want, out, "the listing of the build with the drivers")
	assert.Contains(t, out, "| r1 |")

	code, _, stderr = runBinary(t, lean, "check", "-baseline", db+"@main", checkMixed)
	assert.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, stderr, "baseline: run r1 of main", "-baseline DB@REF is read by the build with the drivers")
	code, out, stderr = runBinary(t, lean, "version")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `^retrievaltest .* go1\.\d+`, out)
}

func TestTheReleaseBuildHandsRunTablesToTheCloudsBuild(t *testing.T) {
	t.Parallel()
	lean := leanBinary(t, "-tags", "nodb,noparquet")
	want := t.TempDir()
	wantCode, wantTable, wantErr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", want, miniRun)
	require.Equal(t, exitOK, wantCode, wantErr)

	refused := t.TempDir()
	code, _, stderr := runBinary(t, lean, "run-dir", "-gt-root", miniGT, "-out", refused, miniRun)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "retrievaltest run-dir: this build of retrievaltest has no Parquet library")
	entries, err := os.ReadDir(refused)
	require.NoError(t, err)
	assert.Empty(t, entries, "refused before the run is evaluated")
	code, _, stderr = runBinary(t, lean, "report", filepath.Join(want, runs.SummaryFile))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "no Parquet library", "a summary's entries are in its table")
	code, _, stderr = runBinary(t, lean, "run-dir", "-h")
	assert.Equal(t, exitOK, code, "help needs no table: %s", stderr)
	// A shard writes no table: the lean build runs it itself.
	shard := t.TempDir()
	code, _, stderr = runBinary(t, lean, "run-dir", "-gt-root", miniGT, "-shard", "1/2", "-out", shard, miniRun)
	require.Equal(t, exitOK, code, stderr)
	assert.FileExists(t, filepath.Join(shard, runs.Shard{K: 1, N: 2}.TrialsFileName()))

	placeClouds(t, lean)
	got := t.TempDir()
	code, table, stderr := runBinary(t, lean, "run-dir", "-gt-root", miniGT, "-out", got, miniRun)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, wantTable, table, "the table of the build with the Parquet library")
	for _, name := range []string{runs.SummaryFile, runs.TrialsFile} {
		w, err := os.ReadFile(filepath.Join(want, name))
		require.NoError(t, err)
		g, err := os.ReadFile(filepath.Join(got, name))
		require.NoError(t, err)
		assert.Equal(t, w, g, name)
	}
	_, wantReport, _ := runCLI(t, nil, "report", filepath.Join(want, runs.SummaryFile))
	code, report, stderr := runBinary(t, lean, "report", filepath.Join(got, runs.SummaryFile))
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, wantReport, report)
	code, out, stderr := runBinary(t, lean, "events", "-h")
	assert.Equal(t, exitOK, code, stderr)
	assert.NotEmpty(t, out+stderr, "a command that writes no table runs in the lean build itself")
}
