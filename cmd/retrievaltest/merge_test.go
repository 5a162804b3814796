package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/synthrun"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
)

// runShards runs "run-dir -shard k/n" for every k, into the folder outs
// gives.
func runShards(t *testing.T, run, gt string, n int, outs func(k int) string) {
	t.Helper()
	for k := 1; k <= n; k++ {
		spec := runs.Shard{K: k, N: n}
		code, stdout, stderr := runCLI(t, nil, "run-dir", "-gt-root", gt, "-out", outs(k), "-shard", spec.String(), run)
		require.Equal(t, exitOK, code, stderr)
		assert.Empty(t, stdout, "a shard prints no table")
		assert.Contains(t, stderr, fmt.Sprintf("shard %d of %d (-shard %s)", k, n, spec))
		assert.FileExists(t, filepath.Join(outs(k), spec.FileName()))
		assert.NoFileExists(t, filepath.Join(outs(k), runs.SummaryFile))
	}
}

func TestMergedShardsAreReadByReportCompareAndBaselinesAsTheWholeRun(t *testing.T) {
	t.Parallel()
	whole, _ := runMini(t)
	tmp := t.TempDir()
	merged := filepath.Join(tmp, "merged") // every shard writes there, and the merge too
	runShards(t, miniRun, miniGT, 3, func(int) string { return merged })
	code, stdout, stderr := runCLI(t, nil, "merge", "-out", merged, merged)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "| Config ", "a table of the configurations on standard output")
	assert.Contains(t, stderr, "11 trial(s) in 2 configuration(s): 8 computable, 2 non-computable, 1 degraded, 0 failed")
	assert.FileExists(t, filepath.Join(merged, htmlreport.RunReportFile))

	want, err := os.ReadFile(filepath.Join(whole, runs.SummaryFile))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(merged, runs.SummaryFile))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "the merged summary is the unsharded one, byte for byte")
	assert.Contains(t, string(got), `"schema_version": "`+runs.SummarySchemaVersion+`"`)
	assert.Contains(t, string(got), `"trials_table": {`)
	assert.NotContains(t, string(got), `"tasks"`, "the entries are in the table")
	wantTable, err := os.ReadFile(filepath.Join(whole, runs.TrialsFile))
	require.NoError(t, err)
	gotTable, err := os.ReadFile(filepath.Join(merged, runs.TrialsFile))
	require.NoError(t, err)
	assert.Equal(t, wantTable, gotTable, "the merged table is the unsharded one, byte for byte")

	for _, args := range [][]string{
		{"report"},
		{"report", "-metrics", "mrr,recall@5"},
		{"compare"},
		{"compare", "-metrics", "recall@5"},
	} {
		codeW, outW, errW := runCLI(t, nil, append(args, whole)...)
		codeM, outM, errM := runCLI(t, nil, append(args, merged)...)
		assert.Equal(t, codeW, codeM, "%v", args)
		assert.Equal(t, outW, outM, "%v gives the same output on the merged run", args)
		assert.Equal(t, errW, errM, "%v", args)
	}

	base := filepath.Join(tmp, "baseline.json")
	code, _, stderr = runCLI(t, nil, "report", "-write-baseline", base, whole)
	require.Equal(t, exitOK, code, stderr)
	code, stdout, stderr = runCLI(t, nil, "report", "-baseline", base, merged)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "No figure regressed past the allowed change against the baseline.")
	assert.NotRegexp(t, `\) [▲▼]`, stdout, "no figure moved against the baseline of the unsharded run")
	mergedBase := filepath.Join(tmp, "baseline-merged.json")
	code, _, stderr = runCLI(t, nil, "report", "-write-baseline", mergedBase, merged)
	require.Equal(t, exitOK, code, stderr)
	b1, _ := os.ReadFile(base)
	b2, _ := os.ReadFile(mergedBase)
	assert.Equal(t, string(b1), string(b2), "the baselines written from both are equal")
}

func TestMergeFailsOnAMissingOrDuplicatedShard(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	shared := filepath.Join(tmp, "shared")
	runShards(t, miniRun, miniGT, 3, func(int) string { return shared })
	dup := filepath.Join(tmp, "dup")
	require.NoError(t, os.MkdirAll(dup, 0o755))
	name := runs.Shard{K: 2, N: 3}.FileName()
	data, err := os.ReadFile(filepath.Join(shared, name))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dup, name), data, 0o644))
	missing := filepath.Join(tmp, "missing")
	require.NoError(t, os.MkdirAll(missing, 0o755))
	for _, k := range []int{1, 3} {
		name := runs.Shard{K: k, N: 3}.FileName()
		data, err := os.ReadFile(filepath.Join(shared, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(missing, name), data, 0o644))
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a missing shard", []string{"-out", filepath.Join(tmp, "o1"), missing}, "retrievaltest merge: the shards do not make up one run: shard 2 of 3 missing (2 of 3 given)"},
		{"a duplicated shard", []string{"-out", filepath.Join(tmp, "o2"), shared, dup}, "shard 2 of 3 is given twice: shard 2 of 3 (" + filepath.Join(shared, name) + ") and shard 2 of 3 (" + filepath.Join(dup, name) + ")"},
		{"no -out", []string{shared}, "-out is required"},
		{"no shard", []string{"-out", filepath.Join(tmp, "o3")}, "no shard folder or file given"},
		{"a folder without shards", []string{"-out", filepath.Join(tmp, "o4"), tmp}, "holds no shard summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, append([]string{"merge"}, tc.args...)...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
	t.Cleanup(func() {
		// After the parallel subtests: shards that do not make up a run
		// leave no summary.
		assert.NoFileExists(t, filepath.Join(tmp, "o1", runs.SummaryFile))
		assert.NoFileExists(t, filepath.Join(tmp, "o2", runs.SummaryFile))
	})
}

// A run with a failed trial merges into a summary that lists it, and
// merge exits 2 as run-dir does.
func TestMergeOfARunWithAFailedTrialExitsTwo(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run, gt := filepath.Join(tmp, "run"), filepath.Join(tmp, "gt")
	_, err := synthrun.Write(run, gt, synthrun.Spec{Tasks: 4, Seed: 3, Failed: true})
	require.NoError(t, err)
	out := filepath.Join(tmp, "out")
	failedShard := 0
	for k := 1; k <= 2; k++ {
		code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", gt, "-out", out, "-shard", runs.Shard{K: k, N: 2}.String(), run)
		if code != exitOK {
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, "broken__zz0: trial failed")
			failedShard++
		}
	}
	assert.Equal(t, 1, failedShard, "the shard holding the failed trial exits 2")
	code, _, stderr := runCLI(t, nil, "merge", "-out", out, out)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "retrievaltest merge: baseline-grep/"+synthrun.Batch+"/broken__zz0: trial failed: result.json cannot be read")
	s, err := runs.ReadSummary(filepath.Join(out, runs.SummaryFile))
	require.NoError(t, err)
	assert.Len(t, s.FailedEntries(), 1)
}

func TestRunDirShardFlagErrors(t *testing.T) {
	// Not parallel: the environment is cleared of the batch engines'
	// variables.
	for _, v := range []string{runs.EnvShard, runs.EnvJobIndex, runs.EnvSlurmTask, runs.EnvSlurmCount, runs.EnvSlurmMin} {
		t.Setenv(v, "")
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a shard 0", []string{"-shard", "0/3"}, "-shard: shard 0/3: shards are numbered from 1 (1/3 to 3/3)"},
		{"a shard past N", []string{"-shard", "4/3"}, "-shard: shard 4/3: want a shard from 1 to 3"},
		{"not K/N", []string{"-shard", "three"}, `-shard: shard "three": want K/N`},
		{"-shards without -shard auto", []string{"-shards", "3"}, "-shards 3 goes with -shard auto"},
		{"-shards with K/N", []string{"-shard", "1/3", "-shards", "3"}, "-shards 3 goes with -shard auto; -shard 1/3 names the number of shards already"},
		{"auto without an engine", []string{"-shard", "auto"}, "-shard auto: no shard in the environment: looked for RETRIEVALTEST_SHARD (K/N), JOB_COMPLETION_INDEX (a Kubernetes Indexed Job, with -shards N) and SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (a Slurm job array)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"run-dir", "-gt-root", miniGT, "-out", t.TempDir()}, tc.args...), miniRun)
			code, _, stderr := runCLI(t, nil, args...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

func TestRunDirShardAutoReadsEachEngine(t *testing.T) {
	// Not parallel: each case sets the environment.
	for _, tc := range []struct {
		name  string
		env   map[string]string
		flags []string
		want  runs.Shard
	}{
		{"a CI matrix", map[string]string{runs.EnvShard: "2/3"}, nil, runs.Shard{K: 2, N: 3}},
		{"a Kubernetes Indexed Job", map[string]string{runs.EnvJobIndex: "2"}, []string{"-shards", "3"}, runs.Shard{K: 3, N: 3}},
		{"a Slurm array from 1", map[string]string{runs.EnvSlurmTask: "1", runs.EnvSlurmCount: "2", runs.EnvSlurmMin: "1"}, nil, runs.Shard{K: 1, N: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{runs.EnvShard, runs.EnvJobIndex, runs.EnvSlurmTask, runs.EnvSlurmCount, runs.EnvSlurmMin} {
				t.Setenv(v, tc.env[v])
			}
			out := t.TempDir()
			args := append(append([]string{"run-dir", "-gt-root", miniGT, "-out", out, "-shard", "auto"}, tc.flags...), miniRun)
			code, _, stderr := runCLI(t, nil, args...)
			require.Equal(t, exitOK, code, stderr)
			assert.FileExists(t, filepath.Join(out, tc.want.FileName()))
			assert.Contains(t, stderr, fmt.Sprintf("shard %d of %d (", tc.want.K, tc.want.N))
		})
	}
}

// Shards written into folders of their own, merged into another: the
// summary names each artifact in its shard's folder, nothing is copied,
// and report.html draws the coverage curves from them.
func TestAMergeElsewhereNamesTheArtifactsWhereTheShardsWroteThem(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	runShards(t, miniRun, miniGT, 2, func(k int) string { return filepath.Join(tmp, "shard", string(rune('0'+k))) })
	merged := filepath.Join(tmp, "merged")
	code, _, stderr := runCLI(t, nil, "merge", "-out", merged, filepath.Join(tmp, "shard", "1"), filepath.Join(tmp, "shard", "2"))
	require.Equal(t, exitOK, code, stderr)
	ents, err := os.ReadDir(merged)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{runs.SummaryFile, runs.TrialsFile, htmlreport.RunReportFile}, names, "no artifact is copied")
	s, err := runs.ReadSummary(filepath.Join(merged, runs.SummaryFile))
	require.NoError(t, err)
	for _, c := range s.Configs {
		for _, e := range c.Entries {
			if e.EventsFile != "" {
				assert.Regexp(t, `^\.\./shard/[12]/`, e.EventsFile)
				assert.FileExists(t, filepath.Join(merged, filepath.FromSlash(e.EventsFile)))
			}
		}
	}
	page, err := os.ReadFile(filepath.Join(merged, htmlreport.RunReportFile))
	require.NoError(t, err)
	assert.NotContains(t, string(page), "left out of the coverage curves")
	assert.NotContains(t, string(page), "No coverage curves")
}
