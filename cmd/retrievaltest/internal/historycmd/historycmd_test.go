package historycmd

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/history"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
)

// outsideCI clears the variables by which DetectRun recognizes a CI run,
// so that a test run in CI records as one outside it.
func outsideCI(t *testing.T) {
	for _, v := range []string{"GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE"} {
		t.Setenv(v, "")
	}
}

// flags parses args into check's history flags.
func flags(t *testing.T, args ...string) Flags {
	t.Helper()
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	f := AddFlags(fs)
	require.NoError(t, fs.Parse(args))
	return f
}

// evaluationFlags parses args into run-dir's history flags (merge's
// without -history-shard when shards is false).
func evaluationFlags(t *testing.T, shards bool, args ...string) EvaluationFlags {
	t.Helper()
	fs := flag.NewFlagSet("run-dir", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := AddEvaluationFlags(fs, shards)
	require.NoError(t, fs.Parse(args))
	return f
}

// listRuns lists the runs of db.
func listRuns(t *testing.T, db string) []history.RunSummary {
	t.Helper()
	st, err := history.OpenExisting(context.Background(), db)
	require.NoError(t, err)
	defer st.Close()
	list, err := st.Runs(context.Background(), history.Filter{})
	require.NoError(t, err)
	return list
}

// recordRuns writes one check run of branch main per outcome into db: its
// scenarios "good" and "other" each with one expectation of that outcome
// on the same traces, and recall@5 rising run by run.
func recordRuns(t *testing.T, db string, outcomes ...history.Status) {
	t.Helper()
	ctx := context.Background()
	st, err := history.Open(ctx, db)
	require.NoError(t, err)
	defer st.Close()
	for i, o := range outcomes {
		run := &history.Run{Key: fmt.Sprintf("seed-%d", i), Time: time.Date(2026, 11, 1+i, 12, 0, 0, 0, time.UTC),
			Branch: "main", Commit: fmt.Sprintf("%02dbeef%034d", i, i)}
		for _, name := range []string{"good", "other"} {
			run.Scenarios = append(run.Scenarios, history.Scenario{Name: name, Status: o, TraceDigest: "sha256:aa",
				Figures:      map[string]float64{"recall@5": 0.5 + float64(i)/10},
				Expectations: []history.Expectation{{Type: "retrieval", Status: o, SettingsDigest: "sha256:bb", RunsJudged: 1}}})
		}
		require.NoError(t, st.Record(ctx, run))
	}
}

// call runs a command of this package and returns its exit code, standard
// output and standard error.
func call(cmd func(context.Context, []string, io.Writer, io.Writer, string) int, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cmd(context.Background(), args, &stdout, &stderr, "USAGE TEXT")
	return code, stdout.String(), stderr.String()
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestWithoutHistoryNothingIsRecordedOrOpened(t *testing.T) {
	t.Chdir(t.TempDir())
	var stderr bytes.Buffer
	require.NoError(t, flags(t).Record(context.Background(), &report.Check{}, &stderr))
	h := evaluationFlags(t, true)
	assert.False(t, h.Given())
	require.NoError(t, h.Reachable(context.Background()))
	require.NoError(t, h.Record(context.Background(), "run-dir", runs.Summarize("r", nil), "", &stderr))
	assert.Empty(t, stderr.String())
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	assert.Empty(t, entries, "no database is created")
}

func TestCheckRecordsItsRunWithTheFlagsGiven(t *testing.T) {
	outsideCI(t)
	db := filepath.Join(t.TempDir(), "h.db")
	var stderr bytes.Buffer
	f := flags(t, "-history", db, "-run-id", "ci-1", "-commit", "0123456789abcdef01", "-branch", "rel", "-report-url", "https://r.example/1")
	require.NoError(t, f.Record(context.Background(), &report.Check{}, &stderr))
	assert.Equal(t, `retrievaltest check: run ci-1 (0 scenario(s), branch "rel", commit 0123456789ab) recorded in `+db+"\n", stderr.String())
	list := listRuns(t, db)
	require.Len(t, list, 1)
	assert.Equal(t, "ci-1", list[0].Key)
	assert.Equal(t, "rel", list[0].Branch)
	assert.Equal(t, "0123456789abcdef01", list[0].Commit)
	assert.Equal(t, "https://r.example/1", list[0].ReportURL)

	err := flags(t, "-history", t.TempDir()).Record(context.Background(), &report.Check{}, &stderr)
	assert.ErrorContains(t, err, "is a folder", "a database that cannot be opened")
}

// Without -run-id, -commit and -branch, a run outside CI has a local key
// and git's commit and branch; in CI, those of the CI run, which the flags
// override.
func TestARunTakesItsKeyCommitAndBranchFromCIThenGit(t *testing.T) {
	outsideCI(t)
	run := flags(t, "-history", "x.db").newRun()
	assert.True(t, strings.HasPrefix(run.Key, "local:"), run.Key)
	assert.Equal(t, gitOut(t, "rev-parse", "HEAD"), run.Commit)
	assert.Equal(t, gitOut(t, "branch", "--show-current"), run.Branch)
	assert.Empty(t, run.ReportURL)

	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_REPOSITORY", "o/r")
	t.Setenv("GITHUB_RUN_ID", "9")
	t.Setenv("GITHUB_SHA", "feedface")
	t.Setenv("GITHUB_HEAD_REF", "")
	t.Setenv("GITHUB_REF_NAME", "topic")
	run = flags(t).newRun()
	assert.Equal(t, "github:o/r/9/1", run.Key)
	assert.Equal(t, "feedface", run.Commit)
	assert.Equal(t, "topic", run.Branch)
	run = flags(t, "-run-id", "mine", "-commit", "abc", "-branch", "b", "-report-url", "u").newRun()
	assert.Equal(t, "mine", run.Key)
	assert.Equal(t, "abc", run.Commit)
	assert.Equal(t, "b", run.Branch)
	assert.Equal(t, "u", run.ReportURL)
}

// gitOut is what git prints, first line, or "" where git fails.
func gitOut(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

func TestGitGivesTheFirstLineOrNothing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	head := git("rev-parse", "HEAD")
	if head == "" {
		t.Skip("not in a git repository")
	}
	assert.Regexp(t, `^[0-9a-f]{40}$`, head)
	assert.Equal(t, head, git("log", "-2", "--format=%H"), "the first of two lines")
	assert.Empty(t, git("no-such-command"))
	t.Chdir(t.TempDir())
	assert.Empty(t, git("rev-parse", "HEAD"), "outside a repository")
}

func TestABaselineIsAFileOrTheLatestRunOfARef(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	recordRuns(t, db, history.Pass, history.Fail)
	assert.True(t, IsRef(db+"@main"))
	assert.False(t, IsRef(filepath.Join(dir, "baseline.json")))

	var stderr bytes.Buffer
	b, err := ReadBaseline(context.Background(), db+"@main", &stderr)
	require.NoError(t, err)
	assert.InDelta(t, 0.6, b.Entries["good"]["recall@5"], 1e-9, "the latest run's figures")
	assert.Equal(t, "retrievaltest check: baseline: run seed-1 of main\n", stderr.String())

	_, err = ReadBaseline(context.Background(), db+"@nowhere", &stderr)
	assert.ErrorContains(t, err, "nowhere")

	missing := filepath.Join(dir, "baseline.json")
	_, err = ReadBaseline(context.Background(), missing, &stderr)
	assert.ErrorContains(t, err, missing)

	require.NoError(t, report.WriteBaseline(missing, &report.Baseline{Entries: map[string]map[string]float64{"s": {"recall@5": 0.25}}}))
	b, err = ReadBaseline(context.Background(), missing, &stderr)
	require.NoError(t, err)
	assert.Equal(t, 0.25, b.Entries["s"]["recall@5"])
}

func TestHistoryAndTrendTakeOneDatabaseAmongTheirFlags(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "h.db")
	recordRuns(t, db, history.Pass)
	for _, cmd := range []struct {
		name string
		run  func(context.Context, []string, io.Writer, io.Writer, string) int
	}{{"history", History}, {"trend", Trend}} {
		code, _, stderr := call(cmd.run)
		assert.Equal(t, cli.ExitBadInput, code)
		assert.Contains(t, stderr, "USAGE TEXT")
		assert.Contains(t, stderr, "retrievaltest "+cmd.name+": no history database given")

		code, out, stderr := call(cmd.run, "-n", "1", db)
		assert.Equal(t, cli.ExitOK, code, stderr)
		assert.Contains(t, out, "|")
		code, out2, stderr := call(cmd.run, db, "-n", "1")
		assert.Equal(t, cli.ExitOK, code, "flags after the database: %s", stderr)
		assert.Equal(t, out, out2)

		code, _, stderr = call(cmd.run, db, "extra")
		assert.Equal(t, cli.ExitBadInput, code)
		assert.Contains(t, stderr, `unexpected argument "extra": expected one database`)
		code, _, _ = call(cmd.run, "-bogus", db)
		assert.Equal(t, cli.ExitBadInput, code)
		code, _, _ = call(cmd.run, db, "-bogus")
		assert.Equal(t, cli.ExitBadInput, code)

		code, _, stderr = call(cmd.run, filepath.Join(t.TempDir(), "none.db"))
		assert.Equal(t, cli.ExitBadInput, code, "a database that does not exist is not created")
		assert.Contains(t, stderr, "none.db")
	}
}

func TestHistoryListsRunsOrFlakyExpectations(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "h.db")
	recordRuns(t, db, history.Pass, history.Fail, history.Pass)

	code, out, stderr := call(History, db)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Equal(t, 3, strings.Count(out, "| seed-"), out)
	assert.Less(t, strings.Index(out, "seed-2"), strings.Index(out, "seed-0"), "the latest first")

	code, out, _ = call(History, "-n", "0", db)
	require.Equal(t, cli.ExitOK, code)
	assert.Equal(t, 3, strings.Count(out, "| seed-"), "-n 0 lists all")
	code, out, _ = call(History, "-n", "2", db)
	require.Equal(t, cli.ExitOK, code)
	assert.Equal(t, 2, strings.Count(out, "| seed-"))
	code, _, stderr = call(History, "-n", "-1", db)
	assert.Equal(t, cli.ExitBadInput, code)
	assert.Contains(t, stderr, "-n -1: expected 0 or more")

	code, out, _ = call(History, "-since", "2026-11-02", db)
	require.Equal(t, cli.ExitOK, code)
	assert.Equal(t, 2, strings.Count(out, "| seed-"), out)
	code, _, stderr = call(History, "-since", "yesterday-ish", db)
	assert.Equal(t, cli.ExitBadInput, code)
	assert.Contains(t, stderr, "-since ")

	code, out, _ = call(History, "-branch", "other", db)
	require.Equal(t, cli.ExitOK, code)
	assert.Equal(t, "No run recorded matches.\n", out)

	code, out, stderr = call(History, "-flaky", db)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "**2 flaky expectation(s)**")
	assert.NotContains(t, out, "| seed-")

	assert.Equal(t, cli.ExitBadInput, History(context.Background(), []string{db}, failingWriter{}, io.Discard, ""))
	assert.Equal(t, cli.ExitBadInput, History(context.Background(), []string{"-flaky", db}, failingWriter{}, io.Discard, ""))
}

func TestTrendChecksItsFiguresAndWritesWhereItIsTold(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	recordRuns(t, db, history.Pass, history.Fail, history.Pass)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "-n 0: expected 1 or more"},
		{[]string{"-figure", ","}, "-figure: expected one metric name or more"},
		{[]string{"-figure", "recall@5,recal@5"}, `-figure: `},
		{[]string{"-o", filepath.Join(dir, "no", "such", "t.md")}, "t.md"},
		{[]string{"-html", filepath.Join(dir, "no", "such", "t.html")}, "t.html"},
		{[]string{"-branch", "other"}, `no run of branch "other"`},
	} {
		code, out, stderr := call(Trend, append(tc.args, db)...)
		assert.Equal(t, cli.ExitBadInput, code, "%v", tc.args)
		assert.True(t, strings.HasPrefix(stderr, "retrievaltest trend: "), stderr)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		if tc.args[0] != "-html" {
			assert.Empty(t, out, "%v", tc.args)
		}
	}
	assert.Equal(t, cli.ExitBadInput, Trend(context.Background(), []string{db}, failingWriter{}, io.Discard, ""))

	code, out, stderr := call(Trend, "-n", "1", "-figure", "recall@5,reward", db)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "1 run(s)")
	assert.Contains(t, out, "| recall@5 |")

	code, out, stderr = call(Trend, "-figure", "recall@5", db)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "3 run(s)")
	assert.Contains(t, out, "**2 flaky expectation(s)**", "the branch's flaky expectations follow the table")

	code, out, stderr = call(Trend, "-figure", "recall@5", "-scenario", "good", db)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "**1 flaky expectation(s)**", "those of the scenario alone")
	assert.Contains(t, out, "| good |")
	assert.NotContains(t, out, "| other |")

	md, page := filepath.Join(dir, "t.md"), filepath.Join(dir, "t.html")
	code, out, stderr = call(Trend, "-figure", "recall@5", "-o", md, "-html", page, db)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Empty(t, out, "the table goes to -o")
	written, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Contains(t, string(written), "| recall@5 |")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<!DOCTYPE html>")
	assert.Contains(t, string(html), "Retrieval trend of main")
}

// A configuration's trend shows no expectation: the runs run-dir and
// merge record have none.
func TestTheTrendOfAConfigurationHasNoFlakyExpectations(t *testing.T) {
	outsideCI(t)
	db := filepath.Join(t.TempDir(), "h.db")
	recordRuns(t, db, history.Pass, history.Fail)
	reward := 0.5
	s := runs.Summarize("eval-1", map[string][]runs.TaskEntry{"cfg": {{Name: "t1", Task: "t1", Status: runs.Computable, Reward: &reward,
		Values: map[string]float64{"recall@5": 0.75}}}})
	h := evaluationFlags(t, false, "-history", db, "-branch", "main")
	require.NoError(t, h.Record(context.Background(), "merge", s, "", io.Discard))

	code, out, stderr := call(Trend, "-config", "cfg", "-figure", "recall@5", db)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "| recall@5 · cfg |")
	assert.NotContains(t, out, "flaky")
}

func TestEvaluationFlagsRefuseToRecordPartOfARun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		args              []string
		sharded, planning bool
		want              string
	}{
		{"a whole run", []string{"-history", "h.db"}, false, false, ""},
		{"no history", nil, true, true, ""},
		{"a shard recorded as a run of its own", []string{"-history", "h.db", "-history-shard"}, true, false, ""},
		{"a shard", []string{"-history", "h.db"}, true, false, "-history with -shard: a shard holds part"},
		{"a plan", []string{"-history", "h.db"}, false, true, "-history: writing a plan evaluates no trial"},
		{"-history-shard without -shard", []string{"-history", "h.db", "-history-shard"}, false, false, "-history-shard records a shard"},
		{"-history-shard without -history", []string{"-history-shard"}, true, false, "-history-shard records a shard"},
	} {
		err := evaluationFlags(t, true, tc.args...).Check(tc.sharded, tc.planning)
		if tc.want == "" {
			assert.NoError(t, err, tc.name)
		} else {
			assert.ErrorContains(t, err, tc.want, tc.name)
		}
	}
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	AddEvaluationFlags(fs, false)
	assert.Error(t, fs.Parse([]string{"-history-shard"}), "merge has no -history-shard")
	assert.NoError(t, evaluationFlags(t, false, "-history", "h.db").Check(false, false))
}

func TestAnEvaluatedRunIsRecordedUnderItsOwnIdOutsideCI(t *testing.T) {
	outsideCI(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	ctx := context.Background()
	assert.ErrorContains(t, evaluationFlags(t, true, "-history", dir).Reachable(ctx), "is a folder")
	h := evaluationFlags(t, true, "-history", db, "-branch", "main", "-commit", "c0ffee")
	require.True(t, h.Given())
	require.NoError(t, h.Reachable(ctx))
	require.FileExists(t, db, "a database that can be opened is created before the evaluation")

	s := runs.Summarize("eval-1", map[string][]runs.TaskEntry{
		"a": {{Name: "t1", Task: "t1", Status: runs.Computable, Values: map[string]float64{"recall@5": 1}}},
		"b": {{Name: "t1", Task: "t1", Status: runs.Computable}, {Name: "t2", Task: "t2", Status: runs.NonComputable}},
	})
	var stderr bytes.Buffer
	require.NoError(t, h.Record(ctx, "run-dir", s, "", &stderr))
	require.NoError(t, h.Record(ctx, "run-dir", s, "/shard-1-of-2", &stderr))
	assert.Equal(t, `retrievaltest run-dir: run run:eval-1 (2 configuration(s), 3 trial(s), branch "main", commit c0ffee) recorded in `+db+"\n"+
		`retrievaltest run-dir: run run:eval-1/shard-1-of-2 (2 configuration(s), 3 trial(s), branch "main", commit c0ffee) recorded in `+db+"\n", stderr.String())

	named := evaluationFlags(t, false, "-history", db, "-run-id", "local:mine", "-branch", "main")
	require.NoError(t, named.Record(ctx, "merge", s, "", io.Discard))
	keys := map[string]history.RunSummary{}
	for _, r := range listRuns(t, db) {
		keys[r.Key] = r
	}
	require.Len(t, keys, 3)
	assert.Equal(t, 2, keys["run:eval-1"].Configs)
	assert.Equal(t, 3, keys["run:eval-1"].Trials)
	assert.Contains(t, keys, "local:mine", "-run-id is kept as given, even when it looks like a local key")

	assert.ErrorContains(t, evaluationFlags(t, false, "-history", dir).Record(ctx, "merge", s, "", io.Discard), "is a folder")

	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_REPOSITORY", "o/r")
	t.Setenv("GITHUB_RUN_ID", "9")
	require.NoError(t, evaluationFlags(t, false, "-history", db).Record(ctx, "merge", s, "", io.Discard))
	keys = map[string]history.RunSummary{}
	for _, r := range listRuns(t, db) {
		keys[r.Key] = r
	}
	assert.Contains(t, keys, "github:o/r/9/1", "a CI run keeps the CI's key")
}

func TestACommandLineNamesADatabaseByItsCommandOrFlags(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "h.db")
	recordRuns(t, db, history.Pass)
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"version"}, false},
		{[]string{"history"}, true},
		{[]string{"trend", "-h"}, true},
		{[]string{"check", "-history", "h.db", "s.yaml"}, true},
		{[]string{"run-dir", "--history", "postgres://h/db", "run"}, true},
		{[]string{"merge", "-history=h.db", "-out", "o", "s"}, true},
		{[]string{"check", "-history=", "s.yaml"}, false},
		{[]string{"check", "-history"}, false},
		{[]string{"run-dir", "-history-shard", "-shard", "1/2", "run"}, false},
		{[]string{"check", "-baseline", "base.json", "s.yaml"}, false},
		{[]string{"check", "-baseline", db + "@main", "s.yaml"}, true},
		{[]string{"check", "--baseline=" + db + "@main", "s.yaml"}, true},
		{[]string{"check", "-baseline=" + db, "s.yaml"}, false},
		{[]string{"check", "-baseline", "postgres://h/db@main", "s.yaml"}, true},
		{[]string{"check", "s.yaml", "-history", "h.db"}, true},
		{[]string{"events", "--", "-history", "h.db"}, false},
		{[]string{"events", "history"}, false},
	} {
		assert.Equal(t, tc.want, NamesDatabase(tc.args), "%q", tc.args)
	}
}
