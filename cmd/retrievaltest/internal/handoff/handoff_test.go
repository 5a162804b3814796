package handoff

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
)

// With HANDOFF_TEST_CHILD set, this test binary is the build handed the
// command: it copies its standard input to its standard output, writes
// its arguments to standard error and exits with the code the variable
// holds.
func TestMain(m *testing.M) {
	if code := os.Getenv("HANDOFF_TEST_CHILD"); code != "" {
		io.Copy(os.Stdout, os.Stdin)
		os.Stderr.WriteString(strings.Join(os.Args[1:], " "))
		n, _ := strconv.Atoi(code)
		os.Exit(n)
	}
	os.Exit(m.Run())
}

// Where the process cannot be replaced (Windows has no exec), the build
// runs as a child: it reads the same standard input, writes to the same
// output, and its exit code is the command's.
func TestABuildThatCannotReplaceTheProcessRunsAsAChild(t *testing.T) {
	// Not parallel: the environment is the child's.
	t.Cleanup(func() { signal.Reset(os.Interrupt) })
	self, err := os.Executable()
	require.NoError(t, err)
	noExec := func(string, []string) error { return errors.ErrUnsupported }
	for _, code := range []int{0, 1, 2, 7} {
		t.Setenv("HANDOFF_TEST_CHILD", strconv.Itoa(code))
		var stdout, stderr bytes.Buffer
		got := Run(self, []string{"events", "-"}, noExec, strings.NewReader("a trace\n"), &stdout, &stderr)
		assert.Equal(t, code, got, "the child's exit code")
		assert.Equal(t, "a trace\n", stdout.String(), "the child read the same standard input")
		assert.Equal(t, "events -", stderr.String(), "with the same arguments")
	}

	var stdout, stderr bytes.Buffer
	notProgram := filepath.Join(t.TempDir(), Name("retrievaltest-clouds", runtime.GOOS))
	require.NoError(t, os.WriteFile(notProgram, []byte("not a program\n"), 0o644))
	assert.Equal(t, cli.ExitFailed, Run(notProgram, []string{"version"}, noExec, strings.NewReader(""), &stdout, &stderr))
	assert.True(t, strings.HasPrefix(stderr.String(), "retrievaltest: running "+notProgram+": "), stderr.String())
	assert.Empty(t, stdout.String())
}

// Where the process is replaced, nothing runs as a child.
func TestABuildThatReplacesTheProcessRunsNoChild(t *testing.T) {
	t.Setenv("HANDOFF_TEST_CHILD", "3")
	self, err := os.Executable()
	require.NoError(t, err)
	var replaced []string
	var stdout bytes.Buffer
	code := Run(self, []string{"version", "-x"}, func(bin string, args []string) error {
		replaced = append([]string{bin}, args...)
		return nil
	}, strings.NewReader("input"), &stdout, &stdout)
	assert.Equal(t, cli.ExitOK, code)
	assert.Equal(t, []string{self, "version", "-x"}, replaced)
	assert.Empty(t, stdout.String())
}

// Exec is the system's: on Unix it fails only where the file cannot be
// run, and elsewhere it never replaces the process.
func TestExecFailsOnAFileThatIsNoProgram(t *testing.T) {
	t.Parallel()
	notProgram := filepath.Join(t.TempDir(), "p")
	require.NoError(t, os.WriteFile(notProgram, []byte("not a program\n"), 0o644))
	assert.Error(t, Exec(notProgram, nil))
}

func TestAProgramIsAnExeOnWindows(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "retrievaltest-clouds.exe", Name("retrievaltest-clouds", "windows"))
	for _, goos := range []string{"linux", "darwin", "freebsd"} {
		assert.Equal(t, "retrievaltest-clouds", Name("retrievaltest-clouds", goos), goos)
	}
}
