package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/blobtest"
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

// Where the process cannot be replaced (Windows has no exec), the build
// with the drivers runs as a child: it reads the same standard input,
// writes to the same output, and its exit code is the command's. The
// child here is this test binary as the command (see TestMain).
func TestAHandOffThatCannotReplaceTheProcessRunsTheBuildAsAChild(t *testing.T) {
	// Not parallel: the environment is the child's.
	t.Setenv(delegatedEnv, "")
	t.Setenv("RETRIEVALTEST_TEST_ROLE", "main")
	t.Cleanup(func() { signal.Reset(os.Interrupt) })
	self, err := os.Executable()
	require.NoError(t, err)
	noExec := func(string, []string) error { return errors.ErrUnsupported }
	trace, err := os.ReadFile(filepath.Join("..", "..", "testdata", "traces", "claude", "unmatched-result.claude.jsonl"))
	require.NoError(t, err)

	var stdout, stderr bytes.Buffer
	code := handOff(self, []string{"events", "-"}, noExec, bytes.NewReader(trace), &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	assert.Contains(t, stdout.String(), `"trace_file": "-"`, "the child read the trace from the same standard input")
	assert.Equal(t, "1", os.Getenv(delegatedEnv), "the child is told it was handed the command")

	stdout.Reset()
	code = handOff(self, []string{"events", filepath.Join(t.TempDir(), "missing.jsonl")}, noExec, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitBadInput, code, "the child's exit code")
	assert.Contains(t, stderr.String(), "missing.jsonl")
	assert.Empty(t, stdout.String())

	stderr.Reset()
	notProgram := filepath.Join(t.TempDir(), cloudsName(runtime.GOOS))
	require.NoError(t, os.WriteFile(notProgram, []byte("not a program\n"), 0o644))
	code = handOff(notProgram, []string{"version"}, noExec, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitFailed, code)
	assert.True(t, strings.HasPrefix(stderr.String(), "retrievaltest: running "+notProgram+": "), stderr.String())

	// Where the process is replaced, nothing runs as a child.
	var replaced []string
	stdout.Reset()
	code = handOff(notProgram, []string{"version", "-x"}, func(bin string, args []string) error {
		replaced = append([]string{bin}, args...)
		return nil
	}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, []string{notProgram, "version", "-x"}, replaced)
	assert.Empty(t, stdout.String())
}

func TestTheCloudsBuildIsAnExeOnWindows(t *testing.T) {
	t.Parallel()
	assert.Equal(t, blobio.CloudsBinary+".exe", cloudsName("windows"))
	for _, goos := range []string{"linux", "darwin", "freebsd"} {
		assert.Equal(t, blobio.CloudsBinary, cloudsName(goos), goos)
	}
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
