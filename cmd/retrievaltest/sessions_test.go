package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// linesFormat is a MultiFormat and DirFormat for tests: each line
// "SESSION TASK TOOL PATH" is one call ("-" for no task); a folder holds
// it as calls.txt. Sessions come in order of first appearance.
type linesFormat struct{}

func (linesFormat) Name() string { return "test-lines" }

func (linesFormat) Detect(prefix []byte) bool { return bytes.HasPrefix(prefix, []byte("#lines")) }

func (f linesFormat) Read(r io.Reader, opts trace.Options) (*trace.Session, error) {
	all, err := f.ReadAll(r, opts)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

func (linesFormat) ReadAll(r io.Reader, opts trace.Options) ([]*trace.Session, error) {
	var all []*trace.Session
	byID := map[string]*trace.Session{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue // the header
		}
		s := byID[f[0]]
		if s == nil {
			s = &trace.Session{ID: f[0], CWD: "/workspace"}
			if f[1] != "-" {
				s.Task = f[1]
			}
			byID[f[0]] = s
			all = append(all, s)
		}
		args, _ := json.Marshal(map[string]string{"file_path": f[3]})
		s.Calls = append(s.Calls, trace.ToolCall{Index: len(s.Calls), Name: f[2], Arguments: args, Result: "1\tx", HasResult: true})
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no session", opts.Source)
	}
	return all, sc.Err()
}

func (linesFormat) DetectDir(fsys fs.FS) bool {
	_, err := fs.Stat(fsys, "calls.txt")
	return err == nil
}

func (f linesFormat) ReadDir(fsys fs.FS, opts trace.Options) (*trace.Session, error) {
	data, err := fs.ReadFile(fsys, "calls.txt")
	if err != nil {
		return nil, err
	}
	return f.Read(bytes.NewReader(data), opts)
}

// linesReader is the events command's trace reader with the test format
// registered, for the flags given.
func linesReader(t *testing.T, args ...string) *cli.TraceReader {
	t.Helper()
	fset := flag.NewFlagSet("test", flag.ContinueOnError)
	tf := cli.AddTraceFlags(fset)
	require.NoError(t, fset.Parse(args))
	r, err := tf.Reader("events", io.Discard)
	require.NoError(t, err)
	reg := trace.DefaultRegistry()
	reg.Register(linesFormat{})
	r.Trace.Registry = reg
	return r
}

func TestATraceOfSeveralSessionsGivesOneDocumentEach(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "eval.lines")
	require.NoError(t, os.WriteFile(file, []byte("#lines\ns1 - Read pkg/a.go\ns2 django-1 Read pkg/b.go\ns1 - Grep pkg/c.go\n"), 0o644))
	gt := filepath.Join(dir, "gt.txt")
	require.NoError(t, os.WriteFile(gt, []byte("pkg/a.go\n"), 0o644))
	folder := filepath.Join(dir, "conversation")
	require.NoError(t, os.MkdirAll(folder, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "calls.txt"), []byte("#lines\ns9 - Read /workspace/pkg/a.go\n"), 0o644))

	tests := []struct {
		name  string
		flags []string
		input string
		tasks []string
		calls []int
	}{
		{"every session, named by its task or the file and its id", nil, file, []string{"eval/s1", "django-1"}, []int{2, 1}},
		{"-trace-id picks a session by id", []string{"-trace-id", "s1"}, file, []string{"eval"}, []int{2}},
		{"-trace-id picks a session by task", []string{"-trace-id", "django-1"}, file, []string{"django-1"}, []int{1}},
		{"-task names every session", []string{"-task", "T"}, file, []string{"T", "T"}, []int{2, 1}},
		{"a folder is a trace", nil, folder, []string{"conversation"}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runs, err := linesReader(t, append(tt.flags, "-gt", gt)...).Load(context.Background(), tt.input, nil, io.Discard)
			require.NoError(t, err)
			var tasks []string
			var calls []int
			for _, r := range runs {
				tasks = append(tasks, r.Document().Provenance.TaskName)
				calls = append(calls, len(r.Document().Events))
				assert.Equal(t, map[string]int{"pkg/a.go": 1}, r.Grades, "the grades of every session's document")
			}
			assert.Equal(t, tt.tasks, tasks)
			assert.Equal(t, tt.calls, calls)
		})
	}

	_, err := linesReader(t, "-trace-id", "s7").Load(context.Background(), file, nil, io.Discard)
	var mse *trace.MultiSessionError
	require.ErrorAs(t, err, &mse)
	assert.Equal(t, []string{"s1", "django-1"}, mse.IDs)

	// One query per session in the TREC export.
	r := linesReader(t, "-gt", gt)
	runs, err := r.Load(context.Background(), file, nil, io.Discard)
	require.NoError(t, err)
	var export metrics.TRECExport
	for _, run := range runs {
		res := metrics.Compute(run.Document(), metrics.Options{Grades: run.Grades})
		require.NoError(t, export.Add(res.Provenance.TaskName, res, file))
	}
	assert.Equal(t, "eval/s1 Q0 pkg/a.go 1 2 agentretrieval\neval/s1 Q0 pkg/c.go 2 1 agentretrieval\ndjango-1 Q0 pkg/b.go 1 1 agentretrieval\n", export.Run.String())
}

func TestTraceIDPicksTheSessionOfAClaudeTrace(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "events", "-trace-id", "7d4c2a10-5b1e-4f0e-9a77-3c2f1e8b9d01", exampleTrace)
	require.Equal(t, exitOK, code, stderr)
	assert.Len(t, decodeDocs(t, out), 1)

	code, out, stderr = runCLI(t, nil, "metrics", "-trace-id", "other", exampleTrace)
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, `fix-token-expiry.claude.jsonl: no session "other" among its 1 sessions (7d4c2a10-5b1e-4f0e-9a77-3c2f1e8b9d01)`)
}
