package runs

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
)

// writeRun writes the files of a run, given by their paths relative to
// the run folder; a path ending in "/" is a folder.
func writeRun(t *testing.T, run string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(run, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func TestNameTrialsNeverGivesTwoTrialsOfAConfigurationOneName(t *testing.T) {
	t.Parallel()
	trials := []*Trial{
		{Config: "a", Batch: "b1", Folder: "x__1", Task: "fix/auth", ID: "1"},
		{Config: "a", Batch: "b1", Folder: "x__2", Task: "fix_auth", ID: "2"},
		{Config: "a", Batch: "b1", Folder: "x__3", Task: "Fix_Auth", ID: "3"},
		{Config: "a", Batch: "b1", Folder: "x__4", Task: "fix_auth~2", ID: "4"},
		{Config: "a", Batch: "b1", Folder: "x__5", Task: "fix:auth", ID: "5"},
		{Config: "a", Batch: "", Folder: "x__6", Task: "fix\\auth", ID: "6"},
		{Config: "b", Batch: "b1", Folder: "x__1", Task: "fix/auth", ID: "1"},
	}
	nameTrials(trials)
	seen := map[string]string{}
	for _, tr := range trials {
		k := tr.Config + "/" + strings.ToLower(tr.Name)
		assert.NotContains(t, seen, k, "%s and %s share %s", seen[k], tr.Task, tr.Name)
		seen[k] = tr.Task
		assert.True(t, strings.HasPrefix(strings.ToLower(tr.Name), "fix_auth"), tr.Name)
	}
	assert.Equal(t, "fix_auth~2", trials[3].Name, "a name that is unique as it is keeps it")
	assert.Equal(t, "fix_auth", trials[6].Name, "another configuration's names do not matter")
	assert.NoError(t, checkNames(trials))
}

func TestFileStemMakesEveryTaskNameAFileName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, task, want string }{
		{"a dataset prefix", "terminal-bench/fix-auth", "terminal-bench_fix-auth"},
		{"a NUL byte", "a\x00b", "a_b"},
		{"an escape sequence", "a\x1b]0;x\x07b", "a_]0;x_b"},
		{"invalid UTF-8", "a\xffb", "a_b"},
		{"dot dot", "..", "_.."},
		{"empty", "", "_"},
	} {
		assert.Equal(t, tc.want, fileStem(tc.task), tc.name)
	}
	long := strings.Repeat("é", 200)
	got := shorten(fileStem(long))
	assert.LessOrEqual(t, len(got), maxStem)
	assert.True(t, strings.HasPrefix(long, got), "cut at a character boundary")
}

func TestEvaluateWritesDistinctArtifactsForTasksThatMapToOneFileName(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	writeRun(t, run, map[string]string{
		"cfg/b1/one__1/result.json": `{"task_name": "fix/auth"}`,
		"cfg/b1/one__1/agent/":      "",
		"cfg/b1/two__2/result.json": `{"task_name": "fix_auth"}`,
		"cfg/b1/two__2/agent/":      "",
	})
	s, err := Evaluate(context.Background(), run, Options{Jobs: 2})
	require.NoError(t, err)
	entries := s.Config("cfg").Entries
	require.Len(t, entries, 2)
	assert.NotEqual(t, entries[0].EventsFile, entries[1].EventsFile)
	assert.NotEqual(t, entries[0].MetricsFile, entries[1].MetricsFile)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(run, OutDir, filepath.FromSlash(e.EventsFile)))
		require.NoError(t, err)
		var doc struct {
			Provenance struct {
				TaskName string `json:"task_name"`
			} `json:"provenance"`
		}
		require.NoError(t, json.Unmarshal(data, &doc))
		assert.Equal(t, e.Task, doc.Provenance.TaskName, "%s holds its own trial's events", e.EventsFile)
	}
	assertNoTemporaryFiles(t, filepath.Join(run, OutDir))
}

func TestEvaluateWritesTaskNamesNoFileSystemTakesAsTheyAre(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	writeRun(t, run, map[string]string{
		"cfg/b1/nul__1/result.json":  `{"task_name": "a\u0000b"}`,
		"cfg/b1/nul__1/agent/":       "",
		"cfg/b1/long__2/result.json": `{"task_name": "` + strings.Repeat("x", 300) + `"}`,
		"cfg/b1/long__2/agent/":      "",
	})
	s, err := Evaluate(context.Background(), run, Options{})
	require.NoError(t, err)
	for _, e := range s.Config("cfg").Entries {
		assert.NotEqual(t, Failed, e.Status, e.Name)
		assert.FileExists(t, filepath.Join(run, OutDir, filepath.FromSlash(e.MetricsFile)))
	}
}

func TestEvaluateListsATrialItCannotEvaluateAndGoesOn(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	writeRun(t, run, map[string]string{
		"cfg/b1/bad__1/result.json/": "", // a folder where the file should be
		"cfg/b1/bad__1/agent/":       "",
		"cfg/b1/good__2/result.json": `{"task_name": "good", "verifier_result": {"reward": 1}}`,
		"cfg/b1/good__2/agent/":      "",
	})
	var warned []string
	s, err := Evaluate(context.Background(), run, Options{Warn: func(tr *Trial, w string) { warned = append(warned, w) }})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTrialFailed)
	assert.Contains(t, err.Error(), "cfg/b1/bad__1")
	require.NotNil(t, s, "the summary of the other trials is returned")
	c := s.Config("cfg")
	require.NotNil(t, c.Failed)
	assert.Equal(t, TaskGroup{Count: 1, Names: []string{"bad"}}, *c.Failed)
	assert.Equal(t, 1, c.Degraded.Count, "the good trial (no trace) is evaluated")
	require.Len(t, s.FailedEntries(), 1)
	assert.Contains(t, s.FailedEntries()[0].Reason, "result.json cannot be read")

	back, err := ReadSummary(filepath.Join(run, OutDir, SummaryFile))
	require.NoError(t, err, "the summary is written")
	assert.Len(t, back.FailedEntries(), 1)
	assert.NoFileExists(t, filepath.Join(run, OutDir, "cfg", "bad"+EventsSuffix))
	assertNoTemporaryFiles(t, filepath.Join(run, OutDir))
}

// assertNoTemporaryFiles checks that no temporary file of an atomic
// write is left anywhere under dir.
func assertNoTemporaryFiles(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			assert.NotContains(t, d.Name(), ".tmp-", p)
		}
		return err
	}))
}

func TestEvaluateFailsATrialWhoseArtifactIsALinkAndWritesNothingThrough(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := filepath.Join(root, "run")
	writeRun(t, run, map[string]string{
		"cfg/b1/t__1/result.json": `{"task_name": "t"}`,
		"cfg/b1/t__1/agent/":      "",
		"cfg/b1/u__2/result.json": `{"task_name": "u"}`,
		"cfg/b1/u__2/agent/":      "",
		OutDir + "/cfg/":          "",
	})
	victim := filepath.Join(root, "victim.json")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o644))
	require.NoError(t, os.Symlink(victim, filepath.Join(run, OutDir, "cfg", "t"+EventsSuffix)))
	s, err := Evaluate(context.Background(), run, Options{})
	require.ErrorIs(t, err, ErrTrialFailed)
	assert.Contains(t, err.Error(), "symbolic link")
	data, _ := os.ReadFile(victim)
	assert.Equal(t, "keep", string(data))
	assert.Len(t, s.FailedEntries(), 1)
}

func TestEvaluateKeepsTheOutputInsideTheRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := filepath.Join(root, "run")
	writeRun(t, run, map[string]string{
		"cfg/b1/t__1/result.json": `{"task_name": "t"}`,
		"cfg/b1/t__1/agent/":      "",
	})
	elsewhere := filepath.Join(root, "elsewhere")
	writeRun(t, elsewhere, map[string]string{"cfg/t" + EventsSuffix: "keep"})
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(run, OutDir)))

	_, err := Evaluate(context.Background(), run, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "leads out of the run folder")
	data, _ := os.ReadFile(filepath.Join(elsewhere, "cfg", "t"+EventsSuffix))
	assert.Equal(t, "keep", string(data), "nothing written through the link")

	// Named as it is, the folder outside the run is a choice, and allowed.
	_, err = Evaluate(context.Background(), run, Options{Out: elsewhere})
	require.NoError(t, err)
}

func TestEvaluateRefusesAnOutputFolderLinkedIntoAConfiguration(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := filepath.Join(root, "run")
	writeRun(t, run, map[string]string{
		"cfg/b1/t__1/result.json": `{"task_name": "t"}`,
		"cfg/b1/t__1/agent/":      "",
	})
	link := filepath.Join(root, "out")
	require.NoError(t, os.Symlink(filepath.Join(run, "cfg", "b1"), link))
	_, err := Evaluate(context.Background(), run, Options{Out: link})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "inside the run's folder cfg")
}

func TestEvaluateFailsAConfigurationWhoseArtifactFolderLeadsOut(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := filepath.Join(root, "run")
	writeRun(t, run, map[string]string{
		"cfg/b1/t__1/result.json":   `{"task_name": "t"}`,
		"cfg/b1/t__1/agent/":        "",
		"other/b1/u__1/result.json": `{"task_name": "u"}`,
		"other/b1/u__1/agent/":      "",
		OutDir + "/":                "",
	})
	elsewhere := filepath.Join(root, "elsewhere")
	require.NoError(t, os.MkdirAll(elsewhere, 0o755))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(run, OutDir, "cfg")))
	s, err := Evaluate(context.Background(), run, Options{})
	require.ErrorIs(t, err, ErrTrialFailed)
	assert.Contains(t, err.Error(), "leads out of the output folder")
	ents, _ := os.ReadDir(elsewhere)
	assert.Empty(t, ents, "nothing written through the link")
	assert.Equal(t, 1, s.Config("other").Degraded.Count, "the other configuration is evaluated")
}

func TestWalkFollowsLinkedConfigurationsAndBatchesAndSkipsLoops(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := filepath.Join(root, "run")
	store := filepath.Join(root, "store")
	writeRun(t, store, map[string]string{
		"cfg-a/b1/t__1/result.json": `{"task_name": "t"}`,
		"batch/u__2/result.json":    `{"task_name": "u"}`,
	})
	writeRun(t, run, map[string]string{"cfg-b/": ""})
	require.NoError(t, os.Symlink(filepath.Join(store, "cfg-a"), filepath.Join(run, "cfg-a")))
	require.NoError(t, os.Symlink(filepath.Join(store, "batch"), filepath.Join(run, "cfg-b", "b2")))
	require.NoError(t, os.Symlink(run, filepath.Join(run, "cfg-b", "loop")))
	require.NoError(t, os.Symlink(filepath.Join(root, "missing"), filepath.Join(run, "dangling")))

	var warnings []string
	trials, err := WalkWarn(run, func(w string) { warnings = append(warnings, w) })
	require.NoError(t, err)
	var rels []string
	for _, tr := range trials {
		rels = append(rels, tr.Rel)
	}
	assert.Equal(t, []string{"cfg-a/b1/t__1", "cfg-b/b2/u__2"}, rels)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "cfg-b/loop is a symbolic link to")
	assert.Contains(t, warnings[0], "(a loop): skipped")
}

func TestParseResultReadsOnlyFiniteRewards(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, data string
		reward     *float64
	}{
		{"a number", `{"verifier_result": {"reward": 0.5}}`, ptr(0.5)},
		{"a numeric string", `{"verifier_result": {"reward": " 1 "}}`, ptr(1.0)},
		{"NaN as a string", `{"verifier_result": {"reward": "NaN"}}`, nil},
		{"infinity as a string", `{"verifier_result": {"rewards": {"reward": "+Inf"}}}`, nil},
		{"a number out of range", `{"verifier_result": {"reward": 1e400}}`, nil},
	} {
		_, got, err := ParseResult([]byte(tc.data))
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.reward, got, tc.name)
	}
}

func TestEvaluateWritesNeitherArtifactOfATrialWhoseMetricsArtifactCannotBeWritten(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	writeRun(t, run, map[string]string{
		"cfg/b1/t__1/result.json":               `{"task_name": "t"}`,
		"cfg/b1/t__1/agent/":                    "",
		"cfg/b1/u__2/result.json":               `{"task_name": "u"}`,
		"cfg/b1/u__2/agent/":                    "",
		OutDir + "/cfg/t" + MetricsSuffix + "/": "",
	})
	s, err := Evaluate(context.Background(), run, Options{})
	require.ErrorIs(t, err, ErrTrialFailed)
	assert.Contains(t, err.Error(), filepath.Join(run, OutDir, "cfg", "t"+MetricsSuffix)+" is a folder", "the error names the file")
	require.Len(t, s.FailedEntries(), 1)
	assert.Equal(t, "t", s.FailedEntries()[0].Name)
	out := filepath.Join(run, OutDir, "cfg")
	assert.NoFileExists(t, filepath.Join(out, "t"+EventsSuffix), "the trial's events artifact is not put in place either")
	assert.FileExists(t, filepath.Join(out, "u"+EventsSuffix))
	assert.FileExists(t, filepath.Join(out, "u"+MetricsSuffix))
	ents, err := os.ReadDir(out)
	require.NoError(t, err)
	for _, e := range ents {
		assert.NotContains(t, e.Name(), ".tmp-", "a temporary file was left behind")
	}
}

func TestFailCommittedFailsTheTrialWhoseArtifactTheCommitNames(t *testing.T) {
	t.Parallel()
	trials := []*Trial{
		{Config: "cfg", Name: "a", Task: "a", Folder: "a__1"},
		{Config: "cfg", Name: "b", Task: "b", Folder: "b__1"},
		{Config: "other", Name: "a", Task: "a", Folder: "a__2"},
	}
	out := "out"
	err := errors.Join(
		&atomicfile.FileError{Path: filepath.Join(out, "cfg", "b"+MetricsSuffix), Err: fs.ErrPermission},
		&atomicfile.FileError{Path: filepath.Join(out, "other", "a"+EventsSuffix), Err: fs.ErrNotExist},
		&atomicfile.FileError{Path: filepath.Join(out, "cfg", "b"+EventsSuffix), Err: fs.ErrExist},
		&atomicfile.FileError{Path: filepath.Join(out, "elsewhere", "a"+EventsSuffix), Err: fs.ErrExist},
	)
	failed := failCommitted(trials, out, err)
	assert.Len(t, failed, 2, "the trials the errors name, each once; none for a file of no trial")
	assert.Equal(t, filepath.Join(out, "cfg", "b"+MetricsSuffix)+": permission denied", failed[1], "the first error naming a trial is its reason")
	assert.Contains(t, failed[2], filepath.Join(out, "other", "a"+EventsSuffix))

	one := failCommitted(trials[:1], out, &atomicfile.FileError{Path: filepath.Join(out, "cfg", "a"+EventsSuffix), Err: fs.ErrPermission})
	assert.Equal(t, map[int]string{0: filepath.Join(out, "cfg", "a"+EventsSuffix) + ": permission denied"}, one, "a single error, not joined, fails its trial too")
}
