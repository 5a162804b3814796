package expectations

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentretrieval/agentretrieval/collect"
)

// shellCommand is the argument list that runs line in the system shell.
func shellCommand(line string) []string {
	if runtime.GOOS == "windows" {
		return []string{"cmd", "/C", line}
	}
	return []string{"sh", "-c", line}
}

// record runs the scenario's command under an OTLP receiver (see
// collect.RunCommand) and returns the trace files it wrote: one trace
// per file, each judged as a run of the task. The command runs in the
// scenario file's folder; its output goes to output.log in the recording
// folder, which is kept so that the traces can be read again.
func record(s *Scenario, opts EvalOptions) ([]string, error) {
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
	res, err := collect.RunCommand(ctx, collect.Options{Dir: dir}, collect.Command{
		Args: s.Run, Dir: filepath.Dir(s.File), Stdout: log, Stderr: log,
	})
	name := strings.Join(s.Run, " ")
	switch {
	case err != nil:
		return nil, fmt.Errorf("run %q: %w", name, err)
	case res.ExitCode != 0:
		return nil, fmt.Errorf("run %q: exited with status %d (its output is in %s)", name, res.ExitCode, logPath)
	case len(res.Files) == 0:
		return nil, fmt.Errorf("run %q: the command exported no span or log record to the receiver; %s; its output is in %s",
			name, collect.NothingExportedHint, logPath)
	}
	return res.Files, nil
}
