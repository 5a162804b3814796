//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// Not parallel: -max-input-size sets process-wide limits for the run of
// the command; parallel tests start only after this one has ended.
func TestMaxInputSizeBoundsEveryInput(t *testing.T) {
	big := strings.Repeat("# a comment line that pads the file\n", 4)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	qrels := write("big.qrels", big+"q 0 d 1\n")
	tests := []struct {
		name  string
		stdin string
		args  []string
		path  string
	}{
		{"a trace", "", []string{"events", "-max-input-size", "1KiB", exampleTrace}, exampleTrace},
		{"a trace on standard input", strings.Repeat("x", 2048), []string{"events", "-max-input-size", "1KiB", "-"}, "-"},
		{"a ground-truth file", "", []string{"events", "-max-input-size", "100B", "-gt", exampleGT, auraTrace}, exampleGT},
		{"a qrels file, with the flag among trec_eval's", "", []string{"trec", qrels, "-max-input-size", "64", "../../testdata/trec/cases.run"}, qrels},
		{"a qrels file on standard input", big, []string{"trec", "-max-input-size", "64", "-", "../../testdata/trec/cases.run"}, "<stdin>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, strings.NewReader(tt.stdin), tt.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tt.path+": larger than the input size limit of")
			assert.Contains(t, stderr, "raise it with -max-input-size")
		})
	}
	// The limits are restored once the command has run.
	code, _, stderr := runCLI(t, nil, "events", "-gt", exampleGT, exampleTrace)
	assert.Equal(t, exitOK, code, stderr)
}

func TestMaxInputSizeRejectsABadSize(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"lots", "0", "12 parsecs"} {
		code, _, stderr := runCLI(t, nil, "events", "-max-input-size", bad, exampleTrace)
		assert.Equal(t, exitBadInput, code, bad)
		assert.Contains(t, stderr, "invalid value", bad)
	}
	code, _, stderr := runCLI(t, nil, "events", "-max-input-size", "2GiB", exampleTrace)
	assert.Equal(t, exitOK, code, stderr)
}
