//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fifoIn makes a named pipe called name in a temporary folder: reading it
// with no writer blocks for ever, so a command that opens it hangs.
func fifoIn(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

func TestCommandsRefuseANamedPipeAsAnyInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		args func(p string) []string
	}{
		{"a trace", "t.jsonl", func(p string) []string { return []string{"events", p} }},
		{"a ground-truth file", "gt.json", func(p string) []string { return []string{"events", "-gt", p, exampleTrace} }},
		{"a diff", "gold.patch", func(p string) []string { return []string{"metrics", "-gt", p, exampleTrace} }},
		{"a taxonomy", "tax.yaml", func(p string) []string { return []string{"events", "-taxonomy", p, exampleTrace} }},
		{"a symbol file", "tags", func(p string) []string { return []string{"metrics", "-symbols", p, exampleTrace} }},
		{"a scenario", "s.yaml", func(p string) []string { return []string{"check", p} }},
		{"a qrels file", "q.qrels", func(p string) []string { return []string{"trec", p, "../../testdata/trec/cases.run"} }},
		{"a run file", "r.run", func(p string) []string { return []string{"trec", "../../testdata/trec/cases.qrels", p} }},
		{"a baseline", "base.json", func(p string) []string {
			return []string{"check", "-baseline", p, "../../testdata/gate/retrieval.yaml"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := fifoIn(t, tt.file)
			code, _, stderr := runCLI(t, nil, tt.args(p)...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, p+": is a named pipe (FIFO), not a regular file")
		})
	}
}

func TestCommandsRefuseADeviceAsATrace(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, args := range [][]string{{"events", "/dev/zero"}, {"trec", "/dev/zero", "../../testdata/trec/cases.run"}, {"check", "/dev/zero"}} {
		code, _, stderr := runCLI(t, nil, args...)
		assert.Equal(t, exitBadInput, code, args)
		assert.Contains(t, stderr, "/dev/zero: is a character device", args)
	}
}
