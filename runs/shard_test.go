package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/synthrun"
	"github.com/agentretrieval/agentretrieval/metrics"
)

func TestShardOfIsFNV1aOfThePathModuloN(t *testing.T) {
	t.Parallel()
	// FNV-1a 64 test vectors: "a" hashes to 0xaf63dc4c8601ec8c, "foobar"
	// to 0x85944171f73967e8 (the reference implementation's values).
	for _, tc := range []struct {
		rel  string
		n    int
		want int
	}{
		{"a", 7, 0xaf63dc4c8601ec8c%7 + 1},
		{"a", 4, 0xaf63dc4c8601ec8c%4 + 1},
		{"foobar", 7, 0x85944171f73967e8%7 + 1},
		{"baseline-grep/2026-03-01__09-00-00/task-0001__a00001", 7, 3},
		{"anything", 1, 1},
	} {
		assert.Equal(t, tc.want, ShardOf(tc.rel, tc.n), "%s of %d", tc.rel, tc.n)
		assert.True(t, Shard{K: tc.want, N: tc.n}.Contains(tc.rel))
	}
}

func TestParseShardReadsKOfNAndSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, spec string
		want       Shard
		err        string
	}{
		{"the first of four", "1/4", Shard{1, 4}, ""},
		{"the last of four, with spaces", " 4 / 4 ", Shard{4, 4}, ""},
		{"the only shard", "1/1", Shard{1, 1}, ""},
		{"a zero shard says shards count from 1", "0/4", Shard{}, "numbered from 1"},
		{"a shard past N", "5/4", Shard{}, "want a shard from 1 to 4"},
		{"a negative shard", "-1/4", Shard{}, "want a shard from 1 to 4"},
		{"no slash", "4", Shard{}, "want K/N"},
		{"a K that is not a number", "a/4", Shard{}, `K "a" is not a whole number`},
		{"an N that is not a number", "1/b", Shard{}, `N "b" is not a whole number`},
		{"zero shards", "1/0", Shard{}, "must be 1 to 100000"},
		{"too many shards", "1/100001", Shard{}, "must be 1 to 100000"},
		{"auto is not K/N", "auto", Shard{}, "want K/N"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseShard(tc.spec)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want, mustGet(ParseShard(got.String())), "String gives what ParseShard reads")
		})
	}
}

func mustGet[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestShardFromEnvReadsTheBatchEnginesVariables(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		env    map[string]string
		shards int
		want   Shard
		from   string
		err    string
	}{
		{"RETRIEVALTEST_SHARD gives K/N", map[string]string{"RETRIEVALTEST_SHARD": "2/3"}, 0, Shard{2, 3}, "RETRIEVALTEST_SHARD=2/3", ""},
		{"RETRIEVALTEST_SHARD agrees with -shards", map[string]string{"RETRIEVALTEST_SHARD": "2/3"}, 3, Shard{2, 3}, "RETRIEVALTEST_SHARD=2/3", ""},
		{"RETRIEVALTEST_SHARD wins over the engines' variables", map[string]string{"RETRIEVALTEST_SHARD": "1/2", "JOB_COMPLETION_INDEX": "5", "SLURM_ARRAY_TASK_ID": "3"}, 0, Shard{1, 2}, "RETRIEVALTEST_SHARD=1/2", ""},
		{"a bad RETRIEVALTEST_SHARD", map[string]string{"RETRIEVALTEST_SHARD": "3/2"}, 0, Shard{}, "", "RETRIEVALTEST_SHARD=3/2: shard 3/2: want a shard from 1 to 2"},
		{"RETRIEVALTEST_SHARD against -shards", map[string]string{"RETRIEVALTEST_SHARD": "1/2"}, 4, Shard{}, "", "RETRIEVALTEST_SHARD=1/2 gives 2 shards, but 4 were asked for"},
		{"a Kubernetes index counts from 0", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 8, Shard{1, 8}, "JOB_COMPLETION_INDEX=0", ""},
		{"the last Kubernetes index", map[string]string{"JOB_COMPLETION_INDEX": "7"}, 8, Shard{8, 8}, "JOB_COMPLETION_INDEX=7", ""},
		{"a Kubernetes index needs -shards", map[string]string{"JOB_COMPLETION_INDEX": "3"}, 0, Shard{}, "", "give it (the Indexed Job's completions) with -shards N"},
		{"a Kubernetes index past -shards", map[string]string{"JOB_COMPLETION_INDEX": "8"}, 8, Shard{}, "", "want a shard from 1 to 8"},
		{"a Kubernetes index that is not a number", map[string]string{"JOB_COMPLETION_INDEX": "x"}, 8, Shard{}, "", "JOB_COMPLETION_INDEX=x: want a whole number from 0"},
		{"a Slurm array from 0", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"}, 0, Shard{1, 4}, "SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=4", ""},
		{"a Slurm array from 1", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, 4, Shard{4, 4}, "SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4", ""},
		{"a Slurm array without its minimum counts from 0", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3"}, 0, Shard{3, 3}, "SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=3", ""},
		{"a Slurm array with gaps", map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"}, 0, Shard{}, "", "run the array as a range with step 1 (--array=1-3)"},
		{"a Slurm task without the count", map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, 0, Shard{}, "", `SLURM_ARRAY_TASK_COUNT="" is not a number of tasks`},
		{"no variable at all", map[string]string{}, 0, Shard{}, "", "looked for RETRIEVALTEST_SHARD (K/N), JOB_COMPLETION_INDEX (a Kubernetes Indexed Job, with -shards N) and SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, from, err := ShardFromEnv(func(k string) string { return tc.env[k] }, tc.shards)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.from, from)
		})
	}
}

// evalShards evaluates every shard of n into the folder outs(k) gives,
// and returns the shard summary files.
func evalShards(t *testing.T, run string, n int, opts Options, outs func(k int) string) []string {
	t.Helper()
	var files []string
	for k := 1; k <= n; k++ {
		o := opts
		o.Out = outs(k)
		s, err := EvaluateShard(context.Background(), run, Shard{K: k, N: n}, o)
		if err != nil {
			require.ErrorIs(t, err, ErrTrialFailed, "only failed trials may end a shard in error")
		}
		require.NotNil(t, s)
		assert.Equal(t, k, s.Shard)
		assert.NoFileExists(t, filepath.Join(o.Out, SummaryFile), "a shard does not write the run summary")
		files = append(files, s.Source)
		back, err := ReadShardSummary(s.Source)
		require.NoError(t, err)
		assert.Equal(t, s.Trials, back.Trials, "the shard summary returned is the one written")
	}
	return files
}

// A run of 307 trials over three configurations (failed, degraded and
// non-computable trials, tasks run three times, malformed result.json
// files among them), evaluated whole and as four shards, gives the same
// summary and the same artifacts once the shards are merged: the summary
// has no timing field, so the two are equal byte for byte.
func TestShardedEvaluationMergesIntoTheUnshardedSummary(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run, gt := filepath.Join(tmp, "run"), filepath.Join(tmp, "gt")
	n, err := synthrun.Write(run, gt, synthrun.Spec{Tasks: 34, Repeats: 3, Seed: 20, Failed: true})
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, 300)
	opts := Options{GroundTruthRoot: gt, Jobs: 2, Metrics: metrics.Options{Ks: []int{1, 5}}}

	whole := filepath.Join(tmp, "whole")
	o := opts
	o.Out = whole
	s, err := Evaluate(context.Background(), run, o)
	require.ErrorIs(t, err, ErrTrialFailed)
	trials, comp, non, deg := s.Totals()
	require.Equal(t, n, trials)
	require.Len(t, s.Configs, 3)
	require.Len(t, s.FailedEntries(), 1)
	assert.Positive(t, comp)
	assert.Positive(t, non, "tasks without ground truth")
	assert.Positive(t, deg, "trials without a trace")

	// Shards 1 and 2 write into one folder, 3 and 4 into their own.
	shared := filepath.Join(tmp, "shards", "shared")
	files := evalShards(t, run, 4, opts, func(k int) string {
		if k <= 2 {
			return shared
		}
		return filepath.Join(tmp, "shards", "s"+string(rune('0'+k)))
	})
	var perShard []int
	for _, f := range files {
		perShard = append(perShard, len(mustGet(ReadShardSummary(f)).Trials))
	}
	assert.Equal(t, n, perShard[0]+perShard[1]+perShard[2]+perShard[3])
	for _, c := range perShard {
		assert.InDelta(t, n/4, c, float64(n/8), "the hash spreads the trials evenly: %v", perShard)
	}

	// Merged elsewhere, the summary names each artifact where its shard
	// wrote it, and the merge writes nothing but the summary.
	merged := filepath.Join(tmp, "merged")
	m, err := MergeShardFiles(merged, shared, filepath.Join(tmp, "shards", "s3"), filepath.Join(tmp, "shards", "s4"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{SummaryFile, TrialsFile}, slices.Collect(maps.Keys(readTree(t, merged))), "no artifact is copied")
	want := readTree(t, whole)
	require.Len(t, m.Configs, len(s.Configs))
	named := 0
	for i, c := range m.Configs {
		assert.Equal(t, s.Configs[i].Metrics, c.Metrics, "the statistics are the whole run's")
		for j, e := range c.Entries {
			we := s.Configs[i].Entries[j]
			for _, f := range [][2]string{{we.EventsFile, e.EventsFile}, {we.MetricsFile, e.MetricsFile}} {
				if f[0] == "" {
					assert.Empty(t, f[1])
					continue
				}
				assert.True(t, strings.HasPrefix(f[1], "../shards/"), f[1])
				assert.Equal(t, want[f[0]], mustRead(t, filepath.Join(merged, filepath.FromSlash(f[1]))), "%s names the artifact of %s", f[1], f[0])
				named++
			}
			e.EventsFile, e.MetricsFile = we.EventsFile, we.MetricsFile
			assert.Equal(t, we, e)
		}
	}
	assert.Equal(t, len(want)-2, named, "every artifact is named")

	// Merged into the folder two shards share, their artifacts are named
	// as an unsharded run names them.
	m2, err := MergeShardFiles(shared, shared, files[2], files[3])
	require.NoError(t, err)
	for _, c := range m2.Configs {
		for _, e := range c.Entries {
			if e.EventsFile != "" && !strings.HasPrefix(e.EventsFile, "../") {
				assert.FileExists(t, filepath.Join(shared, filepath.FromSlash(e.EventsFile)))
			}
		}
	}
}

// More shards than trials leave some empty; each still writes its summary,
// and the merge gives the unsharded summary.
func TestEmptyShardsStillMerge(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	_, whole := evalMini(t, Options{})
	out := filepath.Join(tmp, "out")
	files := evalShards(t, miniRun, 16, Options{GroundTruthRoot: miniGT}, func(int) string { return out })
	empty := 0
	for _, f := range files {
		if len(mustGet(ReadShardSummary(f)).Trials) == 0 {
			empty++
		}
	}
	assert.Positive(t, empty, "11 trials cannot fill 16 shards")
	m, err := MergeShardFiles(out, out)
	require.NoError(t, err)
	assert.Equal(t, whole, m)
}

// A merge that is given anything but every shard of one run, once, fails
// and names the shard.
func TestMergeRefusesShardsThatDoNotMakeUpOneRun(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run, gt := filepath.Join(tmp, "run"), filepath.Join(tmp, "gt")
	_, err := synthrun.Write(run, gt, synthrun.Spec{Tasks: 12, Seed: 1})
	require.NoError(t, err)
	opts := Options{GroundTruthRoot: gt}
	four := evalShards(t, run, 4, opts, func(k int) string { return filepath.Join(tmp, "four", string(rune('0'+k))) })
	two := evalShards(t, run, 2, opts, func(int) string { return filepath.Join(tmp, "two") })
	otherK := opts
	otherK.Metrics.Ks = []int{3}
	settings := evalShards(t, run, 4, otherK, func(int) string { return filepath.Join(tmp, "k3") })

	// Another run of the same name: the same trials and one more.
	run2 := filepath.Join(tmp, "elsewhere", "run")
	_, err = synthrun.Write(run2, gt, synthrun.Spec{Tasks: 12, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(run2, "mcp-index", synthrun.Batch, "extra__x1", "agent"), 0o755))
	other := evalShards(t, run2, 4, opts, func(int) string { return filepath.Join(tmp, "other") })

	// A shard 2 copied into another folder, one edited to drop a trial,
	// one holding a trial of another shard, and one renamed.
	dup := filepath.Join(tmp, "dup", filepath.Base(four[1]))
	copyInto(t, four[1], dup)
	edit := func(name string, change func(*ShardSummary)) string {
		s := mustGet(ReadShardSummary(four[2]))
		change(s)
		p := filepath.Join(tmp, name, filepath.Base(four[2]))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		// Sealed again, as a careful forger would: the checks past the
		// digest must hold on their own.
		require.NoError(t, writeShardSummary(p, s))
		return p
	}
	// Edits of the text of shard 3 as schema 1.2 wrote it (its trials
	// in the document), left unsealed.
	inline := filepath.Join(tmp, "inline", filepath.Base(four[2]))
	writeInlineShard(t, inline, mustGet(ReadShardSummary(four[2])))
	rawEdit := func(name string, change func(string) string) string {
		data, err := os.ReadFile(inline)
		require.NoError(t, err)
		p := filepath.Join(tmp, name, filepath.Base(four[2]))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		edited := change(string(data))
		require.NotEqual(t, string(data), edited)
		require.NoError(t, os.WriteFile(p, []byte(edited), 0o644))
		return p
	}
	mrr := regexp.MustCompile(`("mrr": )[0-9.e-]+`)
	require.Regexp(t, mrr, mustRead(t, inline))
	figure := rawEdit("figure", func(s string) string { return mrr.ReplaceAllString(s, "${1}0.999") })
	unsealed := rawEdit("unsealed", func(s string) string {
		return regexp.MustCompile(`,\s*"digest": "[^"]*"`).ReplaceAllString(s, "")
	})
	// Shard 3 of schema 2.0 with its trials file changed: a byte of it
	// flipped, cut short, missing, or the file of another shard.
	trialsEdit := func(name string, change func(trials string)) string {
		p := filepath.Join(tmp, name, filepath.Base(four[2]))
		copyInto(t, four[2], p)
		trials := filepath.Join(filepath.Dir(p), Shard{3, 4}.TrialsFileName())
		copyInto(t, filepath.Join(filepath.Dir(four[2]), Shard{3, 4}.TrialsFileName()), trials)
		change(trials)
		return p
	}
	flipped := trialsEdit("flipped", func(trials string) {
		data := []byte(mustRead(t, trials))
		data[len(data)-3] ^= 0x40 // the last figure of the last trial
		require.NoError(t, os.WriteFile(trials, data, 0o644))
	})
	short := trialsEdit("short", func(trials string) {
		data := mustRead(t, trials)
		require.NoError(t, os.WriteFile(trials, []byte(data[:len(data)-5]), 0o644))
	})
	noTrials := trialsEdit("no-trials", func(trials string) { require.NoError(t, os.Remove(trials)) })
	otherTrials := trialsEdit("other-trials", func(trials string) {
		copyInto(t, filepath.Join(filepath.Dir(four[0]), Shard{1, 4}.TrialsFileName()), trials)
	})
	notTrials := trialsEdit("not-trials", func(trials string) { require.NoError(t, os.WriteFile(trials, []byte("{}"), 0o644)) })

	// The same run evaluated against ground truth changed for one task.
	gt2 := filepath.Join(tmp, "gt2")
	require.NoError(t, os.CopyFS(gt2, os.DirFS(gt)))
	require.NoError(t, os.WriteFile(filepath.Join(gt2, "task-0000", "tests", "ground_truth.json"), []byte(`["pkg9/changed.go"]`), 0o644))
	otherGT := opts
	otherGT.GroundTruthRoot = gt2
	changedGT := evalShards(t, run, 4, otherGT, func(int) string { return filepath.Join(tmp, "gt2-shards") })
	require.NotEmpty(t, mustGet(ReadShardSummary(four[2])).Trials)
	cut := edit("cut", func(s *ShardSummary) { s.Trials = s.Trials[1:] })
	moved := edit("moved", func(s *ShardSummary) { s.Trials = append(s.Trials, mustGet(ReadShardSummary(four[0])).Trials[0]) })
	twice := edit("twice", func(s *ShardSummary) { s.Trials = append(s.Trials, s.Trials[0]) })
	notArray := rawEdit("notarray", func(s string) string {
		return strings.Replace(s, `"trials": [`, `"trials": {"x": [`, 1)
	})
	trailing := rawEdit("trailing", func(s string) string { return s + "{}\n" })
	escape := edit("escape", func(s *ShardSummary) { s.Trials[0].EventsFile = "../../etc/x" + EventsSuffix })
	config := edit("config", func(s *ShardSummary) { s.Trials[0].Config = "elsewhere" })
	renamed := filepath.Join(tmp, "renamed", "run_retrieval_summary.shard-1-of-4.json")
	copyInto(t, four[2], renamed)

	for _, tc := range []struct {
		name  string
		files []string
		err   string
	}{
		{"a missing shard", []string{four[0], four[1], four[3]}, "shard 3 of 4 missing (3 of 4 given)"},
		{"two missing shards", []string{four[1], four[3]}, "shard 1, 3 of 4 missing"},
		{"a duplicated shard", []string{four[0], four[1], four[2], four[3], dup}, "shard 2 of 4 is given twice: shard 2 of 4 (" + four[1] + ") and shard 2 of 4 (" + dup + ")"},
		{"shards of two partitions", []string{four[0], four[1], four[2], four[3], two[0]}, "differ in the number of shards"},
		{"shards of another run", []string{four[0], four[1], four[2], other[3]}, "differ in trial list"},
		{"shards evaluated with other settings", []string{four[0], four[1], four[2], settings[3]}, "differ in evaluation settings"},
		{"a shard with a figure edited", []string{four[0], four[1], figure, four[3]}, "shard summary " + figure + ": not as run-dir wrote it: its content does not match its digest"},
		{"a shard whose trials file has a byte changed", []string{four[0], four[1], flipped, four[3]}, "not as run-dir wrote it: its content does not match the SHA-256 its shard summary records"},
		{"a shard whose trials file is cut short", []string{four[0], four[1], short, four[3]}, "is cut short"},
		{"a shard without its trials file", []string{four[0], four[1], noTrials, four[3]}, "needs the file of its trials beside it"},
		{"a shard with the trials file of another", []string{four[0], four[1], otherTrials, four[3]}, "which belongs to shard 1"},
		{"a shard whose trials file is not one", []string{four[0], four[1], notTrials, four[3]}, `it does not start with "retrievaltest shard trials 1"`},
		{"a shard without a digest", []string{four[0], four[1], unsealed, four[3]}, "shard summary " + unsealed + ": not as run-dir wrote it: it has no digest"},
		{"a shard evaluated against other ground truth", []string{four[0], four[1], four[2], changedGT[3]}, "differ in ground truth"},
		{"a shard cut short", []string{four[0], four[1], cut, four[3]}, "the shards hold"},
		{"a shard holding another's trial", []string{four[0], four[1], moved, four[3]}, "which belongs to shard 1"},
		{"a shard holding a trial twice", []string{four[0], four[1], twice, four[3]}, "is twice in shard 3 of 4 (" + twice + ")"},
		{"a shard whose trials are not an array", []string{four[0], four[1], notArray, four[3]}, `"trials": want an array`},
		{"a shard with data after its object", []string{four[0], four[1], trailing, four[3]}, "data after the JSON object"},
		{"an artifact path leading out", []string{four[0], four[1], escape, four[3]}, `artifact "../../etc/x.retrieval_events.json"`},
		{"a trial outside its configuration", []string{four[0], four[1], config, four[3]}, "is not a trial folder of configuration \"elsewhere\""},
		{"a file named for another shard", []string{renamed}, "named for shard 1 of 4 but holds shard 3 of 4"},
		{"a folder without shards", []string{tmp}, "holds no shard summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "merged")
			_, err := MergeShardFiles(out, tc.files...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			assert.NoFileExists(t, filepath.Join(out, SummaryFile), "no summary from shards that do not make a run")
		})
	}

}

// The digest does not depend on the order of a shard summary's members
// nor on its layout: a file rewritten with its keys sorted, or with its
// trials first and compact, still merges, and its figures are checked.
func TestAShardSummaryRewrittenInAnotherOrderStillMerges(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	files := evalShards(t, miniRun, 2, Options{GroundTruthRoot: miniGT}, func(int) string { return out })
	want, err := MergeShardFiles(filepath.Join(tmp, "want"), out)
	require.NoError(t, err)
	// The first shard as schema 1.2 wrote it, with its trials inside.
	writeInlineShard(t, files[0], mustGet(ReadShardSummary(files[0])))
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	var members map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &members))
	sorted, err := json.MarshalIndent(members, "", "\t") // keys sorted: "digest" first, "trials" last
	require.NoError(t, err)
	var first bytes.Buffer
	first.WriteString(`{"trials":` + string(members["trials"]))
	for k, v := range members {
		if k != "trials" {
			first.WriteString(`,"` + k + `":` + string(v))
		}
	}
	first.WriteString("}")
	for name, content := range map[string][]byte{"sorted": sorted, "trials-first": first.Bytes()} {
		dir := filepath.Join(tmp, name)
		copyInto(t, files[1], filepath.Join(dir, filepath.Base(files[1])))
		copyInto(t, filepath.Join(out, Shard{2, 2}.TrialsFileName()), filepath.Join(dir, Shard{2, 2}.TrialsFileName()))
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(files[0])), content, 0o644))
		got, err := MergeShardFiles(dir, dir)
		require.NoError(t, err, name)
		assert.Equal(t, want.Configs[0].Metrics, got.Configs[0].Metrics, name)
		edited := bytes.Replace(content, []byte(`"mrr":`), []byte(`"mrr":0.5,"x":`), 1)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(files[0])), edited, 0o644))
		_, err = MergeShardFiles(dir, dir)
		require.ErrorIs(t, err, ErrShardEdited, name)
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(data)
}

// writeInlineShard writes s to path as schema 1.2 wrote a shard summary:
// its trials in the document, sealed with its digest.
func writeInlineShard(t *testing.T, path string, s *ShardSummary) {
	t.Helper()
	sealed := *s
	sealed.SchemaVersion, sealed.TrialsFile, sealed.Digest = "1.2", nil, ""
	data, err := json.Marshal(&sealed)
	require.NoError(t, err)
	sealed.Digest, err = shardDigest(data)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, writeArtifact(path, func(w io.Writer) error { return writeJSON(w, &sealed) }))
}

func copyInto(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
	require.NoError(t, os.WriteFile(to, data, 0o644))
}

// Shards given no output folder all write into the run's own
// retrieval_events, which the walk leaves out; merging that folder into
// itself gives the summary of an unsharded evaluation of the run.
func TestShardsWritingIntoTheRunsOutputFolderMergeInPlace(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run := filepath.Join(tmp, "mini")
	copyTree(t, miniRun, run)
	for k := 1; k <= 3; k++ {
		s, err := EvaluateShard(context.Background(), run, Shard{K: k, N: 3}, Options{GroundTruthRoot: miniGT})
		require.NoError(t, err)
		assert.Equal(t, 11, s.RunTrials, "the output folder of the shards before is not taken for a configuration")
	}
	out := filepath.Join(run, OutDir)
	merged, err := MergeShardFiles(out, out)
	require.NoError(t, err)
	_, whole := evalMini(t, Options{})
	assert.Equal(t, whole, merged)
}

func TestResolveShardTellsTheFlagsApart(t *testing.T) {
	t.Parallel()
	env := map[string]string{EnvJobIndex: "1"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name   string
		spec   string
		shards int
		want   Shard
		ok     bool
		from   string
		err    string
	}{
		{"no flag is the whole run", "", 0, Shard{}, false, "", ""},
		{"K/N is that shard", "3/5", 0, Shard{3, 5}, true, "-shard 3/5", ""},
		{"auto reads the environment", "auto", 4, Shard{2, 4}, true, "JOB_COMPLETION_INDEX=1", ""},
		{"-shards alone is refused", "", 4, Shard{}, false, "", "-shards 4 goes with -shard auto"},
		{"-shards beside K/N is refused", "1/4", 4, Shard{}, false, "", "-shard 1/4 names the number of shards already"},
		{"a negative -shards is refused", "auto", -1, Shard{}, false, "", "-shards -1: the number of shards must be 1 to 100000"},
		{"a bad K/N names the flag", "9/4", 0, Shard{}, false, "", "-shard: shard 9/4: want a shard from 1 to 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, from, ok, err := ResolveShard(tc.spec, tc.shards, getenv)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.from, from)
		})
	}
}

func TestAShardNeedsEveryFileButOtherShardsTraces(t *testing.T) {
	t.Parallel()
	trials, err := Walk(miniRun)
	require.NoError(t, err)
	s := Shard{K: 1, N: 2}
	mine, theirs := 0, 0
	for _, tr := range trials {
		in := s.Contains(tr.Rel)
		if in {
			mine++
		} else {
			theirs++
		}
		assert.True(t, s.Needs(tr.Rel+"/result.json"), "every result.json")
		assert.Equal(t, in, s.Needs(tr.Rel+"/"+TrajectoryFile), tr.Rel)
		assert.Equal(t, in, s.Needs(tr.Rel+"/"+TranscriptFile), tr.Rel)
	}
	require.Positive(t, mine)
	require.Positive(t, theirs)
	assert.True(t, s.Needs(baseCfg+"/2026-01-15__10-00-00/result.json"), "a batch's result.json")
	assert.True(t, s.Needs("agent/notes.txt"), "a file at the run's root")
}

// A shard evaluated on a copy of the run that holds only what Needs
// chooses (and the agent/ folders) writes what it writes on the whole run.
func TestAShardReadsOnlyTheFilesItNeeds(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	part := filepath.Join(tmp, "mini")
	s := Shard{K: 2, N: 3}
	require.NoError(t, filepath.WalkDir(miniRun, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(miniRun, p)
		dst := filepath.Join(part, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		if !s.Needs(filepath.ToSlash(rel)) {
			return nil
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		return os.WriteFile(dst, data, 0o644)
	}))
	wholeOut, partOut := filepath.Join(tmp, "whole"), filepath.Join(tmp, "part")
	_, err := EvaluateShard(context.Background(), miniRun, s, Options{GroundTruthRoot: miniGT, Out: wholeOut})
	require.NoError(t, err)
	_, err = EvaluateShard(context.Background(), part, s, Options{GroundTruthRoot: miniGT, Out: partOut})
	require.NoError(t, err)
	require.NoError(t, filepath.WalkDir(wholeOut, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(wholeOut, p)
		want, err := os.ReadFile(p)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(partOut, rel))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), rel)
		return nil
	}))
}
