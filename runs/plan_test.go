package runs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/synthrun"
)

var jsonUnmarshal = json.Unmarshal

// planRun writes a generated run with a failed trial and its ground
// truth under tmp.
func planRun(t *testing.T, tmp string) (run, gt string) {
	t.Helper()
	run, gt = filepath.Join(tmp, "run"), filepath.Join(tmp, "gt")
	_, err := synthrun.Write(run, gt, synthrun.Spec{Tasks: 14, Repeats: 2, Seed: 7, Failed: true})
	require.NoError(t, err)
	return run, gt
}

// evalPlanShards evaluates every shard of the plan into out.
func evalPlanShards(t *testing.T, run, plan, out string, n int, opts Options) {
	t.Helper()
	for k := 1; k <= n; k++ {
		part, err := ReadPlanFile(plan, Shard{K: k, N: n})
		require.NoError(t, err)
		o := opts
		o.Out, o.Plan = out, part
		s, err := EvaluateShard(context.Background(), run, Shard{K: k, N: n}, o)
		if err != nil {
			require.ErrorIs(t, err, ErrTrialFailed, "only failed trials may end a shard in error")
		}
		require.NotNil(t, s)
		assert.Len(t, s.Trials, len(part.Trials))
	}
}

// Shards that read their trials from a plan write the shard summaries a
// walk of the run gives, byte for byte, and merge into the summary of the
// whole run.
func TestShardsOfAPlanWriteTheShardSummariesOfAWalk(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run, gt := planRun(t, tmp)
	opts := Options{GroundTruthRoot: gt, Jobs: 2}
	plan := filepath.Join(tmp, "plan.jsonl")
	h, err := WritePlan(context.Background(), run, plan, 3, opts)
	require.NoError(t, err)
	trials, err := Walk(run)
	require.NoError(t, err)
	assert.Equal(t, len(trials), h.RunTrials)

	walked := filepath.Join(tmp, "walked")
	evalShards(t, run, 3, opts, func(int) string { return walked })
	planned := filepath.Join(tmp, "planned")
	evalPlanShards(t, run, plan, planned, 3, opts)
	want, got := readTree(t, walked), readTree(t, planned)
	for k := 1; k <= 3; k++ {
		name := Shard{K: k, N: 3}.FileName()
		require.Contains(t, got, name)
		assert.Equal(t, want[name], got[name], "shard %d", k)
	}
	assert.Equal(t, want, got, "the same artifacts")

	whole := filepath.Join(tmp, "whole")
	o := opts
	o.Out = whole
	_, err = Evaluate(context.Background(), run, o)
	require.ErrorIs(t, err, ErrTrialFailed)
	_, err = MergeShardFiles(planned, planned)
	require.NoError(t, err)
	assert.Equal(t, readTree(t, whole)[SummaryFile], readTree(t, planned)[SummaryFile])
}

// A shard reads the plan's header and its own part, nothing else: the
// other parts may be anything.
func TestAShardReadsOnlyItsPartOfThePlan(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run, gt := planRun(t, tmp)
	plan := filepath.Join(tmp, "plan.jsonl")
	h, err := WritePlan(context.Background(), run, plan, 4, Options{GroundTruthRoot: gt})
	require.NoError(t, err)
	var spans [][2]int64
	opener := RangeOpener(func(off, n int64) (io.ReadCloser, error) {
		spans = append(spans, [2]int64{off, n})
		return FileRange(plan)(off, n)
	})
	part, err := ReadPlanPart(opener, plan, Shard{K: 3, N: 4})
	require.NoError(t, err)
	require.Len(t, spans, 2, "the header, then the part")
	assert.Equal(t, h.Parts[2].Length, spans[1][1])
	assert.Equal(t, h.Parts[2].Trials, len(part.Trials))
	for _, pt := range part.Trials {
		assert.Equal(t, 3, ShardOf(pt.Path, 4))
	}
}

// A plan that is edited, cut into another number of shards, or used on
// another run or with other ground truth is refused, naming the plan and
// what does not match.
func TestAPlanThatDoesNotMatchIsRefused(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run, gt := planRun(t, tmp)
	plan := filepath.Join(tmp, "plan.jsonl")
	_, err := WritePlan(context.Background(), run, plan, 2, Options{GroundTruthRoot: gt})
	require.NoError(t, err)
	data, err := os.ReadFile(plan)
	require.NoError(t, err)
	header, body, _ := bytes.Cut(data, []byte("\n"))
	write := func(name string, data []byte) string {
		f := filepath.Join(tmp, name)
		require.NoError(t, os.WriteFile(f, data, 0o644))
		return f
	}
	// A trial line's reward changed in the body: the part's digest fails
	// for the shard that holds it, and only for that one.
	firstLine, _, _ := bytes.Cut(body, []byte("\n"))
	var first PlanTrial
	require.NoError(t, jsonUnmarshal(firstLine, &first))
	edited := bytes.Replace(data, []byte(`"task":"`+first.Task+`"`), []byte(`"task":"`+first.Task+`x"`), 1)
	require.NotEqual(t, data, edited)
	owner := ShardOf(first.Path, 2)

	// Another run with the same folders: one result.json of shard 1 differs.
	otherRun := filepath.Join(tmp, "other")
	copyTree(t, run, otherRun)
	part1, err := ReadPlanFile(plan, Shard{1, 2})
	require.NoError(t, err)
	var changed PlanTrial
	for _, pt := range part1.Trials {
		if pt.Result != "none" && pt.Failure == "" {
			changed = pt
			break
		}
	}
	require.NotEmpty(t, changed.Path)
	result := filepath.Join(otherRun, filepath.FromSlash(changed.Path), "result.json")
	content, err := os.ReadFile(result)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(result, append(content, ' '), 0o644))
	// Other ground truth: one task of shard 1 has another file.
	otherGT := filepath.Join(tmp, "othergt")
	copyTree(t, gt, otherGT)
	var task string
	for _, pt := range part1.Trials {
		if pt.Truth != "none" {
			task = pt.Task
			break
		}
	}
	truthFile := filepath.Join(otherGT, task, "tests", "ground_truth.json")
	content, err = os.ReadFile(truthFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(truthFile, bytes.Replace(content, []byte(`"pkg`), []byte(`"lib`), 1), 0o644))

	for _, tc := range []struct {
		name      string
		plan      string
		shard     Shard
		run, gt   string
		wantError string
	}{
		{"a trial line edited", write("edited.jsonl", edited), Shard{owner, 2}, run, gt, "the part of shard " + string(rune('0'+owner)) + " of 2 does not match its digest"},
		{"the header edited", write("header.jsonl", bytes.Replace(data, []byte(`"run_trials":`), []byte(`"run_trials":1`), 1)), Shard{1, 2}, run, gt, "the header does not match its digest"},
		{"the body cut short", write("cut.jsonl", data[:len(header)+1+len(body)/2]), Shard{2, 2}, run, gt, "does not match its digest"},
		{"not a plan at all", write("notaplan.jsonl", []byte("{\"configs\": []}\n")), Shard{1, 2}, run, gt, "not a plan header"},
		{"a plan without a newline", write("noline.jsonl", header), Shard{1, 2}, run, gt, "want a header line"},
		{"another number of shards", plan, Shard{1, 3}, run, gt, "cut into 2 shards, not 3"},
		{"another run", plan, Shard{1, 2}, otherRun, gt, "is not the one the plan was written from"},
		{"a run without the plan's trials", plan, Shard{1, 2}, filepath.Join(tmp, "gt"), gt, "is not a folder of the run"},
		{"other ground truth", plan, Shard{1, 2}, run, otherGT, "under the ground-truth root"},
		{"no ground truth", plan, Shard{1, 2}, run, "", "has no ground truth under the ground-truth root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part, err := ReadPlanFile(tc.plan, tc.shard)
			if err == nil {
				_, err = EvaluateShard(context.Background(), tc.run, tc.shard, Options{GroundTruthRoot: tc.gt, Out: filepath.Join(tmp, "out-"+tc.name), Plan: part})
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrPlan)
			assert.Contains(t, err.Error(), tc.plan)
			assert.Contains(t, err.Error(), tc.wantError)
			assert.NoFileExists(t, filepath.Join(tmp, "out-"+tc.name, tc.shard.FileName()))
		})
	}
}

// A plan is for shards: an evaluation of the whole run, or of another
// shard than the plan's part, refuses it.
func TestAPlanGoesWithItsShard(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	plan := filepath.Join(tmp, "plan.jsonl")
	_, err := WritePlan(context.Background(), miniRun, plan, 2, Options{GroundTruthRoot: miniGT, Out: filepath.Join(tmp, "o")})
	require.NoError(t, err)
	part, err := ReadPlanFile(plan, Shard{1, 2})
	require.NoError(t, err)
	_, err = Evaluate(context.Background(), miniRun, Options{Out: filepath.Join(tmp, "o"), Plan: part})
	require.ErrorContains(t, err, "read by the shards of a run")
	_, err = EvaluateShard(context.Background(), miniRun, Shard{2, 2}, Options{Out: filepath.Join(tmp, "o"), Plan: part})
	require.ErrorIs(t, err, ErrPlan)
	assert.True(t, strings.Contains(err.Error(), "of shard 1/2, not 2/2"), err.Error())
}

// A plan cut into more shards than the run has trials has empty parts:
// each part, empty or not, lies right after the one before, with the
// digest of its bytes, and holds its shard's trials in the order of the
// walk; together they are the run's trials, each once.
func TestAPlanHoldsEveryTrialOnceInItsShardsPartInWalkOrder(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run, gt := planRun(t, tmp)
	trials, err := Walk(run)
	require.NoError(t, err)
	n := 2*len(trials) + 1
	plan := filepath.Join(tmp, "plan.jsonl")
	h, err := WritePlan(context.Background(), run, plan, n, Options{GroundTruthRoot: gt})
	require.NoError(t, err)
	data, err := os.ReadFile(plan)
	require.NoError(t, err)
	body := data[bytes.IndexByte(data, '\n')+1:]
	var off int64
	var seen []string
	empty := 0
	for k := 1; k <= n; k++ {
		ref := h.Parts[k-1]
		assert.Equal(t, off, ref.Offset, "part %d starts where part %d ends", k, k-1)
		off += ref.Length
		if ref.Trials == 0 {
			empty++
			assert.Zero(t, ref.Length)
		}
		part, err := ReadPlanFile(plan, Shard{K: k, N: n})
		require.NoError(t, err, "part %d", k)
		require.Len(t, part.Trials, ref.Trials)
		for _, pt := range part.Trials {
			seen = append(seen, pt.Path)
		}
		assert.Equal(t, sha256Hex(body[ref.Offset:ref.Offset+ref.Length]), ref.Digest, "part %d", k)
	}
	assert.Equal(t, int64(len(body)), off, "the parts make up the body")
	assert.Positive(t, empty, "more shards than trials leave parts empty")
	var want []string
	for k := 1; k <= n; k++ {
		for _, tr := range trials {
			if ShardOf(tr.Rel, n) == k {
				want = append(want, tr.Rel)
			}
		}
	}
	assert.Equal(t, want, seen, "shard after shard, each in the order of the walk")
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
