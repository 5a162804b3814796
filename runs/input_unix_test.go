//go:build unix

package runs_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentretrieval/agentretrieval/runs"
)

func TestWalkReportsANamedPipeAsResultJSON(t *testing.T) {
	t.Parallel()
	trial := filepath.Join(t.TempDir(), "baseline", "fix-auth__abc")
	if err := os.MkdirAll(filepath.Join(trial, "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(trial, "result.json"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	trials, err := runs.Walk(filepath.Dir(filepath.Dir(trial)))
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 1 {
		t.Fatalf("got %d trials, want the one with an agent folder", len(trials))
	}
	// A result.json that cannot be read makes the trial a failed one,
	// never read (a pipe may never end).
	if f := trials[0].Failure; !strings.Contains(f, "result.json cannot be read: is a named pipe (FIFO)") {
		t.Errorf("failure %q does not say result.json is a named pipe", f)
	}
}

func TestReadSummaryRefusesANamedPipe(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "run_retrieval_summary.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := runs.ReadSummary(p); err == nil || !strings.Contains(err.Error(), p+": is a named pipe") {
		t.Fatalf("got %v, want an error naming %s as a named pipe", err, p)
	}
}
