//go:build unix

package groundtruth_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

func mkfifo(t *testing.T, p string) string {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

func TestLoadersRefuseANamedPipe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string // the FIFO's name
		load func(p string) error
	}{
		{"a ground-truth file", "truth.json", func(p string) error { _, err := groundtruth.Load(p); return err }},
		{"a YAML ground-truth file", "truth.yaml", func(p string) error { _, err := groundtruth.LoadFile(p); return err }},
		{"a diff", "gold.patch", func(p string) error { _, err := groundtruth.Load(p); return err }},
		{"SWE-bench instances", "instances.jsonl", func(p string) error { _, err := groundtruth.LoadSWEBench(p, ""); return err }},
		{"a dataset file", "rows.jsonl", func(p string) error { _, err := groundtruth.LoadDataset(p); return err }},
		{"a text list", "files.txt", func(p string) error { _, err := groundtruth.Load(p); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mkfifo(t, filepath.Join(t.TempDir(), tt.file))
			err := tt.load(p)
			if !errors.Is(err, input.ErrNotRegular) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "named pipe") {
				t.Fatalf("got %v, want an error naming %s as a named pipe", err, p)
			}
		})
	}
}

func TestLoadTaskDirRefusesANamedPipeInTheFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := mkfifo(t, filepath.Join(dir, "tests", "ground_truth.json"))
	_, err := groundtruth.LoadTaskDir(dir)
	if !errors.Is(err, input.ErrNotRegular) || !strings.Contains(err.Error(), p) {
		t.Fatalf("got %v, want an error naming %s", err, p)
	}
}

func TestLoadRefusesADevice(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := groundtruth.Load("/dev/zero")
	if !errors.Is(err, input.ErrNotRegular) || !strings.Contains(err.Error(), "character device") {
		t.Fatalf("got %v, want a not-a-regular-file error", err)
	}
}

// Not parallel: the limit is package-wide, and parallel tests run only
// after this one has restored it.
func TestSetMaxInputSizeBoundsEveryLoader(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n"
	files := []string{
		write("truth.json", `{"files": ["a.go", "b.go", "c.go", "d.go", "e.go", "f.go"]}`),
		write("gold.patch", diff),
		write("one.jsonl", `{"instance_id": "x", "patch": "`+strings.ReplaceAll(diff, "\n", `\n`)+`"}`+"\n"),
	}
	for _, p := range files {
		if _, err := groundtruth.Load(p); err != nil {
			t.Fatalf("%s within the default limits: %v", p, err)
		}
	}
	groundtruth.SetMaxInputSize(16)
	defer groundtruth.SetMaxInputSize(0)
	for _, p := range files {
		_, err := groundtruth.Load(p)
		var tl *input.TooLargeError
		if !errors.As(err, &tl) || tl.Path != p || tl.Limit != 16 {
			t.Errorf("%s: got %v, want a too-large error", p, err)
		}
	}
}
