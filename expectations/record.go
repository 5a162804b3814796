package expectations

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// A Recorder records the runs of a scenario's run key: it runs cmd, which
// is not started yet, with the address of an OTLP receiver added to
// cmd.Env (nil means os.Environ()), writes what the command exports under
// dir as trace files, and returns the files it wrote. When ctx is done
// first, it stops the command. The command's own exit status is in
// cmd.ProcessState; the error is about the recording.
//
// collect.Record, the OTLP/HTTP receiver of package collect, is the one
// the retrievaltest command uses. It is not linked into this package: a
// receiver needs an HTTP server, which a go test gate over recorded traces
// would otherwise compile for nothing.
type Recorder func(ctx context.Context, dir string, cmd *exec.Cmd) (files []string, err error)

// ErrNoRecorder is the error of evaluating a scenario with a run key when
// EvalOptions.Recorder is nil.
var ErrNoRecorder = errors.New("recording a run needs a receiver: set EvalOptions.Recorder " +
	"(retrievaltest.Options.Recorder) to collect.Record, from github.com/agentretrieval/agentretrieval/collect")

// shellCommand is the argument list that runs line in the system shell.
func shellCommand(line string) []string {
	if runtime.GOOS == "windows" {
		return []string{"cmd", "/C", line}
	}
	return []string{"sh", "-c", line}
}

// record runs the scenario's command under opts.Recorder and returns the
// trace files it wrote: one trace per file, each judged as a run of the
// task. The command runs in the scenario file's folder; its output goes to
// output.log in the recording folder, which is kept so that the traces can
// be read again.
func record(s *Scenario, opts EvalOptions) ([]string, error) {
	name := strings.Join(s.Run, " ")
	if opts.Recorder == nil {
		return nil, fmt.Errorf("run %q: %w", name, ErrNoRecorder)
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	dir := opts.RecordDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "retrievaltest-run-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "output.log")
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(s.Run[0], s.Run[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = filepath.Dir(s.File), log, log
	files, err := opts.Recorder(ctx, dir, cmd)
	switch {
	case cmd.ProcessState != nil && !cmd.ProcessState.Success():
		return nil, fmt.Errorf("run %q: %s (its output is in %s)", name, exitStatus(cmd.ProcessState), logPath)
	case err != nil:
		return nil, fmt.Errorf("run %q: %w; its output is in %s", name, err, logPath)
	case len(files) == 0:
		return nil, fmt.Errorf("run %q: the command exported no trace; its output is in %s", name, logPath)
	}
	return files, nil
}

// exitStatus says how a command that failed ended.
func exitStatus(st *os.ProcessState) string {
	if code := st.ExitCode(); code >= 0 {
		return fmt.Sprintf("exited with status %d", code)
	}
	return "ended by " + st.String() // signal: terminated
}
