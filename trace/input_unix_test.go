//go:build unix

package trace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/trace"
)

func mkfifo(t *testing.T, p string) string {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

func TestReadFileRefusesInputsThatAreNotRegularFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		path func(t *testing.T) string
		what string
	}{
		{"a named pipe with no writer", func(t *testing.T) string { return mkfifo(t, filepath.Join(t.TempDir(), "t.jsonl")) }, "named pipe"},
		{"an endless device", func(t *testing.T) string {
			if _, err := os.Stat("/dev/zero"); err != nil {
				t.Skip("no /dev/zero")
			}
			return "/dev/zero"
		}, "character device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.path(t)
			_, err := trace.ReadFileAll(p, trace.Options{})
			if !errors.Is(err, input.ErrNotRegular) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tt.what) {
				t.Fatalf("got %v, want an error naming %s as a %s", err, p, tt.what)
			}
		})
	}
}

func TestReadFileRefusesATraceLargerThanTheLimit(t *testing.T) {
	t.Parallel()
	const name = "testdata/codex/minimal.rollout.jsonl"
	if _, err := trace.ReadFile(name, trace.Options{}); err != nil {
		t.Fatalf("within the default limit: %v", err)
	}
	_, err := trace.ReadFile(name, trace.Options{MaxInputSize: 100})
	var tl *input.TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 100 || !strings.Contains(err.Error(), name) {
		t.Fatalf("got %v, want a too-large error naming %s", err, name)
	}
}

func TestReadFileSkipsANamedPipeInATraceFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/openhands/v1-conversation")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(dir, "events", "event-00005-00000006-0000-4000-8000-000000000006.json"))
	s, err := trace.ReadFile(dir, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range s.Warnings {
		found = found || strings.Contains(w.Source, "event-00005") && strings.Contains(w.Message, "named pipe")
	}
	if !found {
		t.Errorf("warnings %v do not name the skipped named pipe", s.Warnings)
	}
}

func TestReadFileBoundsATraceFolderInAll(t *testing.T) {
	t.Parallel()
	const dir = "testdata/openhands/v1-conversation"
	var total, largest int64
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			total += info.Size()
			largest = max(largest, info.Size())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trace.ReadFile(dir, trace.Options{MaxInputSize: total}); err != nil {
		t.Fatalf("a limit of the folder's size in all: %v", err)
	}
	// Every file fits in the limit, but not all of them together.
	limit := max(largest, total/2)
	_, err = trace.ReadFile(dir, trace.Options{MaxInputSize: limit})
	var tl *input.TooLargeError
	if !errors.As(err, &tl) || !tl.Folder || tl.Limit != limit || !strings.Contains(err.Error(), dir+": a folder whose files are, in all, larger than") {
		t.Fatalf("got %v, want a too-large error naming the folder %s", err, dir)
	}
}
