package history

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/scenariorun"
	"github.com/agentretrieval/agentretrieval/report"
)

// seed records runs of one scenario "s": for each, its branch, commit,
// recall@5 and the outcome of its one expectation, a day apart, all on the
// same traces and settings unless digest is set.
type seedRun struct {
	branch, commit string
	recall         float64
	status         Status
	digest         string
}

func seed(t *testing.T, st *Store, runs []seedRun) {
	t.Helper()
	for i, r := range runs {
		run := testRun("run-"+r.commit, r.branch, r.commit, time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC))
		digest := r.digest
		if digest == "" {
			digest = "sha256:same"
		}
		run.Scenarios = []Scenario{{Name: "s", Status: r.status, TraceDigest: digest, Figures: map[string]float64{"recall@5": r.recall},
			Expectations: []Expectation{{Type: "retrieval", Status: r.status, SettingsDigest: "sha256:settings", RunsJudged: 1}}}}
		require.NoError(t, st.Record(withTimeout(t), run))
	}
}

func TestBaselineIsTheLatestRunOfABranchOrCommit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		st := open(t, dsn)
		ctx := withTimeout(t)
		seed(t, st, []seedRun{
			{"main", "aaaa1111", 0.2, Pass, ""},
			{"main", "bbbb2222", 0.4, Pass, ""},
			{"feature/x", "cccc3333", 0.9, Pass, ""},
			{"feature/y", "ABCD0000", 0.5, Pass, ""},
			{"feature/z", "abce0000", 0.6, Pass, ""},
		})
		recall := func(ref string) (float64, string) {
			b, key, err := st.Baseline(ctx, ref)
			require.NoError(t, err, ref)
			v, ok := b.Get("s", "recall@5")
			require.True(t, ok, ref)
			assert.Equal(t, "scenario", b.Kind)
			return v, key
		}
		v, key := recall("main")
		assert.Equal(t, 0.4, v)
		assert.Equal(t, "run-bbbb2222", key)
		v, _ = recall("feature/x")
		assert.Equal(t, 0.9, v)
		v, _ = recall("aaaa")
		assert.Equal(t, 0.2, v, "a commit prefix")
		v, _ = recall("abcd0000")
		assert.Equal(t, 0.5, v, "a commit in another case")
		_, _, err := st.Baseline(ctx, "abc")
		require.ErrorContains(t, err, `no run of branch or commit "abc"`, "three digits are too few for a commit")
		_, _, err = st.Baseline(ctx, "abc0")
		require.ErrorContains(t, err, `no run of branch or commit "abc0" (branches recorded: feature/z, feature/y, feature/x, main)`)
		_, _, err = st.Baseline(ctx, "")
		require.ErrorContains(t, err, "expected DB@BRANCH or DB@COMMIT")
		seed(t, st, []seedRun{{"other", "abcdef99", 0.1, Pass, ""}})
		_, _, err = st.Baseline(ctx, "abcd")
		require.ErrorContains(t, err, "commit abcd is ambiguous: ABCD0000, abcdef99")
	})
}

func TestFlakyNeedsBothOutcomesOnTheSameTracesAndSettings(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		st := open(t, dsn)
		ctx := withTimeout(t)
		seed(t, st, []seedRun{
			{"main", "c1", 0.5, Pass, ""},
			{"main", "c2", 0.5, Flaky, ""}, // a failure of an expectation marked flaky
			{"main", "c3", 0.5, Fail, "sha256:other"},
			{"main", "c4", 0.5, Pass, ""},
			{"main", "c5", 0.5, Skipped, ""},
			{"dev", "c6", 0.5, Fail, ""},
		})
		list, err := st.Flaky(ctx, "main", 10)
		require.NoError(t, err)
		require.Len(t, list, 1, "the failure on other traces is not flakiness")
		f := list[0]
		assert.Equal(t, FlakyExpectation{Scenario: "s", Type: "retrieval", TraceDigest: "sha256:same", Passed: 2, Judged: 3, Runs: 4}, f)
		assert.InDelta(t, 2.0/3.0, f.PassRate(), 1e-12)

		all, err := st.Flaky(ctx, "", 10)
		require.NoError(t, err)
		require.Len(t, all, 1)
		assert.Equal(t, 4, all[0].Judged, "every branch counts without -branch")

		recent, err := st.Flaky(ctx, "main", 2)
		require.NoError(t, err)
		assert.Empty(t, recent, "the last two runs of main passed or were skipped")
		_, err = st.Flaky(ctx, "main", 0)
		require.ErrorContains(t, err, "a window of 0 runs")
	})
}

func TestTrendAveragesEachRunsScenarios(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		st := open(t, dsn)
		ctx := withTimeout(t)
		for i, figs := range [][2]float64{{0.2, 0.4}, {0.5, math.NaN()}, {1, 0}} {
			run := testRun("r"+string(rune('0'+i)), "main", "c", time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC))
			for j, v := range figs {
				sc := Scenario{Name: "s" + string(rune('0'+j)), Status: Pass, Figures: map[string]float64{}}
				if !math.IsNaN(v) {
					sc.Figures["recall@5"] = v
				}
				if j == 1 && i == 2 {
					sc.Status = Fail
					sc.Expectations = []Expectation{{Type: "retrieval", Status: Fail}}
				} else {
					sc.Expectations = []Expectation{{Type: "retrieval", Status: Pass}}
				}
				run.Scenarios = append(run.Scenarios, sc)
			}
			require.NoError(t, st.Record(ctx, run))
		}
		other := testRun("elsewhere", "dev", "d", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		other.Scenarios = testScenarios("s", 1, 0)
		require.NoError(t, st.Record(ctx, other))

		tr, err := st.Trend(ctx, TrendOptions{Branch: "main", Figures: []string{"recall@5", "mrr"}})
		require.NoError(t, err)
		require.Len(t, tr.Points, 3)
		assert.Equal(t, []string{"r0", "r1", "r2"}, []string{tr.Points[0].Key, tr.Points[1].Key, tr.Points[2].Key}, "oldest first")
		assert.InDeltaSlice(t, []float64{0.3, 0.5, 0.5}, tr.Series[0].Values, 1e-12, "the mean of the scenarios that have the figure")
		assert.True(t, math.IsNaN(tr.Series[1].Values[0]), "no run has mrr")
		assert.Equal(t, Point{Key: "r2", Commit: "c", URL: "https://ci.example/r2", Time: tr.Points[2].Time, Passed: 1, Judged: 2, Failed: 1}, tr.Points[2])

		one, err := st.Trend(ctx, TrendOptions{Branch: "main", Runs: 2, Figures: []string{"recall@5"}, Scenario: "s1"})
		require.NoError(t, err)
		require.Len(t, one.Points, 2)
		assert.True(t, math.IsNaN(one.Series[0].Values[0]))
		assert.Equal(t, 0.0, one.Series[0].Values[1])
		assert.Equal(t, 1, one.Points[1].Judged)

		latest, err := st.Trend(ctx, TrendOptions{})
		require.NoError(t, err)
		assert.Equal(t, "dev", latest.Branch, "the branch of the latest run")
		_, err = st.Trend(ctx, TrendOptions{Branch: "nope"})
		require.ErrorContains(t, err, `no run of branch "nope" (branches recorded: dev, main)`)
	})
}

func TestSparklineScalesBetweenItsExtremes(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{0, 1}, "▁█"},
		{[]float64{0, 0.5, 1}, "▁▅█"},
		{[]float64{3, 3, 3}, "▁▁▁"},
		{[]float64{1, math.NaN(), 8}, "▁·█"},
		{[]float64{math.NaN()}, "·"},
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, "▁▂▃▄▅▆▇█"},
	} {
		assert.Equal(t, c.want, Sparkline(c.in), "%v", c.in)
	}
}

func TestDetectRunReadsTheCISystemsEnvironment(t *testing.T) {
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		name string
		env  map[string]string
		want Run
	}{
		{"a GitHub Actions pull request", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "2",
			"GITHUB_SHA": "abc", "GITHUB_HEAD_REF": "fix/x", "GITHUB_REF_NAME": "7/merge", "GITHUB_SERVER_URL": "https://github.example"},
			Run{Key: "github:o/r/42/2", CI: "github", Commit: "abc", Branch: "fix/x", URL: "https://github.example/o/r/actions/runs/42", Time: now}},
		{"a GitHub Actions push", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "43", "GITHUB_SHA": "def", "GITHUB_REF_NAME": "main"},
			Run{Key: "github:o/r/43/1", CI: "github", Commit: "def", Branch: "main", URL: "https://github.com/o/r/actions/runs/43", Time: now}},
		{"a GitLab merge request pipeline", map[string]string{"GITLAB_CI": "true", "CI_PROJECT_PATH": "g/p", "CI_PIPELINE_ID": "9", "CI_PIPELINE_URL": "https://gl/p/9",
			"CI_COMMIT_SHA": "123", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "mr", "CI_COMMIT_REF_NAME": "ref"},
			Run{Key: "gitlab:g/p/9", CI: "gitlab", Commit: "123", Branch: "mr", URL: "https://gl/p/9", Time: now}},
		{"a Buildkite build", map[string]string{"BUILDKITE": "true", "BUILDKITE_BUILD_ID": "u-1", "BUILDKITE_BUILD_URL": "https://bk/1", "BUILDKITE_COMMIT": "456", "BUILDKITE_BRANCH": "main"},
			Run{Key: "buildkite:u-1", CI: "buildkite", Commit: "456", Branch: "main", URL: "https://bk/1", Time: now}},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, DetectRun(env(c.env), now))
		})
	}
	local := DetectRun(env(nil), now)
	assert.Regexp(t, `^local:20261207T100000Z-[0-9a-f]{16}$`, local.Key)
	assert.NotEqual(t, local.Key, DetectRun(env(nil), now).Key, "two local runs are two runs")
	assert.Empty(t, local.CI+local.Commit+local.Branch)
}

// The scenarios of a real check: outcomes, figures, run counts and
// digests as the check report has them.
func TestScenariosComeFromTheCheckReport(t *testing.T) {
	files, err := scenariorun.FindScenarios("../testdata/check/mixed")
	require.NoError(t, err)
	results, bad := scenariorun.CheckFiles(context.Background(), files, func(*expectations.Scenario) bool { return true }, scenariorun.Options{Jobs: 1})
	require.Empty(t, bad)
	c := report.NewCheck(results, &expectations.ScenarioError{File: "broken.yaml"})
	scs, err := Scenarios(c)
	require.NoError(t, err)
	require.Len(t, scs, 3)
	byName := map[string]Scenario{}
	for _, sc := range scs {
		byName[sc.Name] = sc
	}
	good, bad2 := byName["good"], byName["bad"]
	assert.Equal(t, Pass, good.Status)
	assert.Equal(t, Fail, bad2.Status)
	assert.Equal(t, Scenario{Name: "broken.yaml", File: "broken.yaml", Status: Error}, byName["broken.yaml"])
	assert.Equal(t, c.Figures.Entries["good"], good.Figures)
	assert.InDelta(t, 1.0/3.0, good.Figures["semantic_ratio"], 1e-12)

	want, err := TraceDigest([]string{"../testdata/examples/fix-token-expiry.claude.jsonl"})
	require.NoError(t, err)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, want)
	assert.Equal(t, want, good.TraceDigest)
	assert.Equal(t, want, bad2.TraceDigest, "the same trace file")

	require.Len(t, bad2.Expectations, 2)
	e := bad2.Expectations[0]
	assert.Equal(t, "index_usage", e.Type)
	assert.Equal(t, "Agent should use semantic tools for discovery", e.Description)
	assert.Equal(t, Fail, e.Status)
	assert.Equal(t, 0, e.RunsPassed)
	assert.Equal(t, 1, e.RunsJudged)
	assert.NotEmpty(t, e.Measured)
	assert.NotEmpty(t, e.Threshold)
	assert.Equal(t, 1, good.Expectations[0].RunsPassed)
	assert.NotEqual(t, good.Expectations[0].SettingsDigest, e.SettingsDigest, "other parameters, other settings")
	assert.NotEqual(t, bad2.Expectations[1].SettingsDigest, e.SettingsDigest)

	// The same scenarios checked again give the same digests.
	again, err := Scenarios(report.NewCheck(results))
	require.NoError(t, err)
	for _, sc := range again {
		assert.Equal(t, byName[sc.Name].Expectations, sc.Expectations, sc.Name)
	}
	_, err = TraceDigest([]string{"no-such-trace.jsonl"})
	require.ErrorContains(t, err, "no-such-trace.jsonl")
}
