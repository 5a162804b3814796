package runs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/benchcpu"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// The miniature run (see testdata/runs/README.md): two configurations of
// five tasks, a task run twice in one of them, a trial without its
// transcript, one without any trace, and a task without ground truth.
const (
	miniRun = "../testdata/runs/mini"
	miniGT  = "../testdata/runs/gt"
	baseCfg = "baseline-local-direct"
	mcpCfg  = "mcp-remote-direct"
)

// evalMini evaluates the miniature run into a fresh folder and returns the
// folder and the summary.
func evalMini(t *testing.T, opts Options) (string, *Summary) {
	t.Helper()
	opts.Out = t.TempDir()
	opts.GroundTruthRoot = miniGT
	s, err := Evaluate(context.Background(), miniRun, opts)
	require.NoError(t, err)
	back, err := ReadSummary(filepath.Join(opts.Out, SummaryFile))
	require.NoError(t, err)
	assert.Equal(t, s.ConfigNames(), back.ConfigNames(), "the summary returned is the one written")
	return opts.Out, s
}

func TestEvaluateMarksDegradedAndNonComputableTasks(t *testing.T) {
	t.Parallel()
	out, s := evalMini(t, Options{})
	require.Equal(t, []string{baseCfg, mcpCfg}, s.ConfigNames())
	assert.Equal(t, "mini", s.RunID)

	base, mcp := s.Config(baseCfg), s.Config(mcpCfg)
	assert.Equal(t, TaskGroup{Count: 4, Names: []string{"add-cache", "fix-auth", "parse-config", "rename-flag"}}, base.Computable)
	assert.Equal(t, TaskGroup{Count: 1, Names: []string{"docs-only"}}, base.NonComputable, "docs-only has no task folder under the ground-truth root")
	assert.Equal(t, TaskGroup{Count: 0, Names: []string{}}, base.Degraded)
	assert.Equal(t, TaskGroup{Count: 1, Names: []string{"rename-flag"}}, mcp.Degraded, "that trial has no trace at all")
	assert.Equal(t, TaskGroup{Count: 1, Names: []string{"docs-only"}}, mcp.NonComputable)
	assert.Equal(t, 6, mcp.Trials)
	assert.Equal(t, 5, mcp.Tasks)

	entries := map[string]TaskEntry{}
	for _, c := range s.Configs {
		for _, e := range c.Entries {
			entries[c.Config+"/"+e.Name] = e
		}
	}
	source := func(key string) string {
		e := entries[key]
		if e.TraceSource == nil {
			return "null"
		}
		return *e.TraceSource
	}
	tests := []struct {
		name, key, source, reason string
		reward                    *float64
	}{
		{"both traces are merged", baseCfg + "/fix-auth", events.SourceMerged, "", ptr(1.0)},
		{"a trial without its transcript uses the trajectory", baseCfg + "/parse-config", events.SourceTrajectory, "", ptr(1.0)},
		{"a trial without its trajectory uses the transcript", mcpCfg + "/docs-only", events.SourceTranscript, `no task folder for "docs-only"`, ptr(1.0)},
		{"a trial without traces is degraded with a reason", mcpCfg + "/rename-flag", "null", "no usable trace: no agent/trajectory.json, no agent/claude-code.txt", ptr(0.0)},
		{"two trials of a task keep their ids", mcpCfg + "/fix-auth__s1t2u3", events.SourceMerged, "", ptr(0.0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, ok := entries[tt.key]
			require.True(t, ok, "no entry %s", tt.key)
			assert.Equal(t, tt.source, source(tt.key))
			assert.Contains(t, e.Reason, tt.reason)
			assert.Equal(t, tt.reward, e.Reward)
			for _, f := range []string{e.EventsFile, e.MetricsFile} {
				assert.FileExists(t, filepath.Join(out, filepath.FromSlash(f)))
			}
		})
	}

	// The per-task artifact is the metrics result, with its provenance.
	data, err := os.ReadFile(filepath.Join(out, mcpCfg, "fix-auth__p7q8r9"+MetricsSuffix))
	require.NoError(t, err)
	var m metrics.Result
	require.NoError(t, json.Unmarshal(data, &m))
	assert.True(t, m.Computable)
	assert.Equal(t, "mini", m.Provenance.RunID)
	assert.Equal(t, "2026-01-15__10-00-00", m.Provenance.BatchTimestamp)
	assert.Equal(t, mcpCfg, m.Provenance.ConfigName)
	assert.True(t, m.Coverage.HasTrajectory)
	assert.True(t, m.Coverage.HasTranscript)

	// Task first: fix-auth's two mcp trials (recall@5 1 and 0.5) count as
	// one task of 0.75, beside add-cache 1 and parse-config 1.
	assert.Equal(t, 3, mcp.Metrics["recall@5"].N)
	assert.InDelta(t, (0.75+1+1)/3, mcp.Metrics["recall@5"].Mean, 1e-12)
}

func TestEvaluateOutputDoesNotDependOnParallelism(t *testing.T) {
	t.Parallel()
	one, _ := evalMini(t, Options{Jobs: 1})
	many, _ := evalMini(t, Options{Jobs: 8})
	assert.Equal(t, readTree(t, one), readTree(t, many))
}

// readTree maps every file under dir to its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

// copyTree copies a folder, leaving out the output of an earlier
// evaluation (a user who ran the README's example has one in the fixture).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	for rel, content := range readTree(t, from) {
		if strings.HasPrefix(rel, OutDir+"/") {
			continue
		}
		p := filepath.Join(to, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func TestEvaluateWritesBesideTheRunAndTouchesNoRunFile(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run-7")
	copyTree(t, miniRun, run)
	before := readTree(t, run)

	for range 2 { // a second run overwrites its own artifacts only
		_, err := Evaluate(context.Background(), run, Options{GroundTruthRoot: miniGT})
		require.NoError(t, err)
	}
	after := readTree(t, run)
	for rel, content := range before {
		assert.Equal(t, content, after[rel], "run file %s changed", rel)
	}
	for rel := range after {
		if _, ok := before[rel]; !ok {
			assert.True(t, strings.HasPrefix(rel, OutDir+"/"), "%s written outside %s/", rel, OutDir)
		}
	}
	assert.Contains(t, after, OutDir+"/"+SummaryFile)
	assert.Contains(t, after, OutDir+"/"+baseCfg+"/fix-auth"+EventsSuffix)
	assert.Contains(t, after, OutDir+"/"+mcpCfg+"/fix-auth__p7q8r9"+MetricsSuffix)
	for rel := range after {
		assert.NotContains(t, filepath.Base(rel), ".tmp-", "a temporary file was left behind")
	}
}

func TestEvaluateRefusesBadInput(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	file := filepath.Join(empty, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct {
		name, dir, out, want string
	}{
		{"a missing run folder", filepath.Join(empty, "nope"), "", "no such file"},
		{"a file is not a run folder", file, "", "is not a folder"},
		{"a folder without trials", empty, filepath.Join(t.TempDir(), "out"), "no trial folders"},
		{"the run folder itself as output", miniRun, miniRun, "is the run folder"},
		{"an output inside a configuration", miniRun, filepath.Join(miniRun, baseCfg, "out"), "inside the run's folder"},
		{"a configuration as output", miniRun, filepath.Join(miniRun, baseCfg), "holds trials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Evaluate(context.Background(), tt.dir, Options{Out: tt.out})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestEvaluateStopsWhenCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	_, err := Evaluate(ctx, miniRun, Options{Out: out})
	require.ErrorIs(t, err, context.Canceled)
	assert.NoFileExists(t, filepath.Join(out, SummaryFile))
}

func TestEvaluateWithoutGroundTruthScoresNothing(t *testing.T) {
	t.Parallel()
	s, err := Evaluate(context.Background(), miniRun, Options{Out: t.TempDir()})
	require.NoError(t, err)
	for _, c := range s.Configs {
		assert.Zero(t, c.Computable.Count, c.Config)
		assert.Empty(t, c.Metrics["recall@5"], "nothing is scored without ground truth")
	}
}

func TestEvaluateNamesATrialWhoseTracesDisagree(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	trial := filepath.Join(run, "baseline", "2026-02-01__09-00-00", "fix-auth__zz9")
	require.NoError(t, os.MkdirAll(filepath.Join(trial, "agent"), 0o755))
	src := filepath.Join(miniRun, baseCfg, "2026-01-15__10-00-00")
	copyFile(t, filepath.Join(src, "fix-auth__a1b2c3", "agent", "trajectory.json"), filepath.Join(trial, "agent", "trajectory.json"))
	// add-cache's transcript starts with Glob where fix-auth's trajectory
	// has Grep: they are not the same run.
	copyFile(t, filepath.Join(src, "add-cache__d4e5f6", "agent", "claude-code.txt"), filepath.Join(trial, "agent", "claude-code.txt"))
	copyFile(t, filepath.Join(src, "fix-auth__a1b2c3", "result.json"), filepath.Join(trial, "result.json"))

	var warnings []string
	s, err := Evaluate(context.Background(), run, Options{GroundTruthRoot: miniGT, Warn: func(t *Trial, w string) {
		warnings = append(warnings, t.Rel+": "+w)
	}})
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "baseline/2026-02-01__09-00-00/fix-auth__zz9", "the warning names the trial")
	assert.Contains(t, warnings[0], `step 1 is "Grep" in the trajectory and "Glob" in the transcript`)
	e := s.Config("baseline").Entries[0]
	require.NotNil(t, e.TraceSource)
	assert.Equal(t, events.SourceTrajectory, *e.TraceSource, "the trajectory alone is used")
	assert.NotEmpty(t, e.Warnings)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}

// sessionsFormat is a MultiFormat for tests: each line "TASK TOOL PATH"
// is one call of the session of that task, sessions in order of first
// appearance. A real format of that kind is an evaluation harness's output
// with one task run a line.
type sessionsFormat struct{}

func (sessionsFormat) Name() string { return "test-sessions" }

func (sessionsFormat) Detect(prefix []byte) bool { return bytes.HasPrefix(prefix, []byte("#sessions")) }

func (f sessionsFormat) Read(r io.Reader, opts trace.Options) (*trace.Session, error) {
	all, err := f.ReadAll(r, opts)
	if err != nil {
		return nil, err
	}
	if len(all) != 1 {
		return nil, fmt.Errorf("%s: %d sessions", opts.Source, len(all))
	}
	return all[0], nil
}

func (sessionsFormat) ReadAll(r io.Reader, opts trace.Options) ([]*trace.Session, error) {
	var all []*trace.Session
	byTask := map[string]*trace.Session{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			continue // the header
		}
		s := byTask[f[0]]
		if s == nil {
			s = &trace.Session{Task: f[0], ID: "id-" + f[0]}
			byTask[f[0]] = s
			all = append(all, s)
		}
		args, _ := json.Marshal(map[string]string{"file_path": f[2]})
		s.Calls = append(s.Calls, trace.ToolCall{Index: len(s.Calls), Name: f[1], Arguments: args, Result: "1\tx", HasResult: true})
	}
	return all, sc.Err()
}

func TestEvaluatePicksTheTrialsSessionFromATraceOfSeveral(t *testing.T) {
	t.Parallel()
	run, gt := t.TempDir(), t.TempDir()
	lines := "#sessions\nother Read pkg/other.go\nfix-auth Read pkg/auth/token.go\nother Read pkg/more.go\n"
	trial := filepath.Join(run, "cfg", "b", "fix-auth__1")
	require.NoError(t, os.MkdirAll(filepath.Join(trial, "agent"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(trial, TrajectoryFile), []byte(lines), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(trial, "result.json"), []byte(`{"task_name": "fix-auth"}`), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(gt, "fix-auth", "tests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gt, "fix-auth", "tests", "ground_truth.json"), []byte(`["pkg/auth/token.go"]`), 0o644))

	reg := trace.DefaultRegistry()
	reg.Register(sessionsFormat{})
	eval := func(sessionID string) TaskEntry {
		s, err := Evaluate(context.Background(), run, Options{GroundTruthRoot: gt, Out: t.TempDir(), Trace: trace.Options{Registry: reg, SessionID: sessionID}})
		require.NoError(t, err)
		return s.Config("cfg").Entries[0]
	}
	e := eval("")
	assert.Equal(t, Computable, e.Status, e.Reason)
	assert.Equal(t, 1.0, e.Values["recall@1"], "the fix-auth session, not the first one")
	assert.Equal(t, 1.0, e.Values["total_calls"])

	e = eval("other")
	assert.Equal(t, 0.0, e.Values["recall@1"], "-trace-id picks the other session")
	assert.Equal(t, 2.0, e.Values["total_calls"])

	e = eval("nope")
	assert.Equal(t, Degraded, e.Status)
	assert.Contains(t, e.Warnings[0], `no session "nope" among its 2 sessions`)

	// A session id does not set aside a trace of one session.
	one := filepath.Join(run, "cfg", "b", "add-cache__2")
	require.NoError(t, os.MkdirAll(filepath.Join(one, "agent"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(one, TrajectoryFile), []byte("#sessions\nadd-cache Read pkg/cache.go\n"), 0o644))
	s, err := Evaluate(context.Background(), run, Options{GroundTruthRoot: gt, Out: t.TempDir(), Trace: trace.Options{Registry: reg, SessionID: "other"}})
	require.NoError(t, err)
	for _, e := range s.Config("cfg").Entries {
		assert.NotEqual(t, Degraded, e.Status, e.Name)
	}
}

// writeGeneratedRun writes a run of n tasks, each with a trajectory and a
// transcript of four calls and a ground-truth task folder.
func writeGeneratedRun(tb testing.TB, root string, n int) (run, gt string) {
	tb.Helper()
	run, gt = filepath.Join(root, "run"), filepath.Join(root, "gt")
	for i := range n {
		task := fmt.Sprintf("task-%03d", i)
		dir := filepath.Join(run, "mcp-remote", "2026-03-01__00-00-00", task+"__r"+fmt.Sprint(i))
		must(tb, os.MkdirAll(filepath.Join(dir, "agent"), 0o755))
		must(tb, os.MkdirAll(filepath.Join(gt, task, "tests"), 0o755))
		target := fmt.Sprintf("pkg/m%d/file%d.go", i%17, i)
		must(tb, os.WriteFile(filepath.Join(gt, task, "tests", "ground_truth.json"), []byte(`["`+target+`", "pkg/shared/util.go"]`), 0o644))
		must(tb, os.WriteFile(filepath.Join(dir, "result.json"), fmt.Appendf(nil, `{"task_name": %q, "verifier_result": {"rewards": {"reward": %d}}}`, task, i%2), 0o644))
		calls := []struct{ id, name, args, result string }{
			{"c1", "mcp__sourcegraph__keyword_search", `{"query": "func Handle"}`, fmt.Sprintf(`[{"file": %q, "line": 3}]`, target)},
			{"c2", "Read", fmt.Sprintf(`{"file_path": "/workspace/%s"}`, target), "     1\tpackage m\n     2\tfunc Handle() {}\n"},
			{"c3", "Grep", `{"pattern": "util", "path": "/workspace"}`, "/workspace/pkg/shared/util.go\n/workspace/pkg/other.go"},
			{"c4", "Edit", fmt.Sprintf(`{"file_path": "/workspace/%s", "old_string": "a", "new_string": "b"}`, target), "ok"},
		}
		var traj, trans strings.Builder
		traj.WriteString(`{"schema_version": "ATIF-v1.5", "session_id": "s", "agent": {"name": "claude-code", "version": "2", "model_name": "m"}, "steps": [`)
		trans.WriteString(`{"type":"system","subtype":"init","cwd":"/workspace","session_id":"s","tools":["Read","Grep","Edit"],"model":"m"}` + "\n")
		for k, c := range calls {
			if k > 0 {
				traj.WriteString(",")
			}
			fmt.Fprintf(&traj, `{"step_id": %d, "timestamp": "2026-03-01T00:00:%02dZ", "source": "agent", "tool_calls": [{"tool_call_id": %q, "function_name": %q, "arguments": %s}], "observation": {"results": [{"source_call_id": %q, "content": %q}]}, "metrics": {"prompt_tokens": %d, "completion_tokens": 10}}`,
				k+1, k, c.id, c.name, c.args, c.id, c.result, 100*(k+1))
			fmt.Fprintf(&trans, `{"type":"assistant","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}],"usage":{"input_tokens":10,"output_tokens":5}},"parent_tool_use_id":null}`+"\n", k, c.id, c.name, c.args)
			fmt.Fprintf(&trans, `{"type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%q}]},"parent_tool_use_id":null}`+"\n", c.id, c.result)
		}
		traj.WriteString("]}\n")
		must(tb, os.WriteFile(filepath.Join(dir, "agent", "trajectory.json"), []byte(traj.String()), 0o644))
		must(tb, os.WriteFile(filepath.Join(dir, "agent", "claude-code.txt"), []byte(trans.String()), 0o644))
	}
	return run, gt
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func TestGeneratedRunIsMergedAndScored(t *testing.T) {
	t.Parallel()
	run, gt := writeGeneratedRun(t, t.TempDir(), 5)
	var warnings []string
	s, err := Evaluate(context.Background(), run, Options{GroundTruthRoot: gt, Warn: func(_ *Trial, w string) { warnings = append(warnings, w) }})
	require.NoError(t, err)
	assert.Empty(t, warnings)
	c := s.Config("mcp-remote")
	require.NotNil(t, c)
	assert.Equal(t, 5, c.Computable.Count)
	for _, e := range c.Entries {
		require.NotNil(t, e.TraceSource)
		assert.Equal(t, events.SourceMerged, *e.TraceSource, e.Name)
	}
	assert.Equal(t, 1.0, c.Metrics["recall@5"].Mean, "the target and util.go are both surfaced")
}

// BenchmarkEvaluate evaluates a generated run of 500 tasks (each a merged
// trajectory and transcript of four calls with a ground-truth folder) and
// reports the throughput.
func BenchmarkEvaluate(b *testing.B) {
	const tasks = 500
	runDir, gt := writeGeneratedRun(b, b.TempDir(), tasks)
	out := b.TempDir()
	iterations := 0
	cpu := benchcpu.Now()
	start := time.Now()
	for b.Loop() {
		if _, err := Evaluate(context.Background(), runDir, Options{GroundTruthRoot: gt, Out: out}); err != nil {
			b.Fatal(err)
		}
		iterations++
	}
	b.ReportMetric(float64(tasks*iterations)/time.Since(start).Seconds(), "tasks/s")
	// CPU time says more than wall time on a shared machine.
	if user, sys, ok := cpu.Since(); ok {
		b.ReportMetric(float64(user.Milliseconds())/float64(iterations), "user-ms/op")
		b.ReportMetric(float64(sys.Milliseconds())/float64(iterations), "sys-ms/op")
	}
}
