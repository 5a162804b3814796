package history

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTrendShowsEachConfigurationWithItsInterval(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
		// Nightly evaluations on days 1 and 3, a check on day 2; the
		// candidate configuration is missing on day 1.
		for i, shift := range []float64{0, 0.1} {
			run := testRun("eval"+string(rune('1'+i)), "main", "c", day(1+2*i))
			run.Configs = testConfigs(shift)
			if i == 0 {
				run.Configs = run.Configs[:1]
			}
			require.NoError(t, st.Record(ctx, run))
		}
		check := testRun("check", "main", "c", day(2))
		check.Scenarios = testScenarios("s", 2, 1)
		require.NoError(t, st.Record(ctx, check))

		tr, err := st.Trend(ctx, TrendOptions{Branch: "main", Figures: []string{"recall@5", "reward"}})
		require.NoError(t, err)
		require.Len(t, tr.Points, 3)
		assert.True(t, tr.Checked)
		var labels []string
		for _, sr := range tr.Series {
			labels = append(labels, sr.Label())
		}
		assert.Equal(t, []string{"recall@5", "reward", "recall@5 · baseline", "reward · baseline", "recall@5 · mcp", "reward · mcp"}, labels,
			"the scenarios' figures, then each configuration's")
		base := tr.Series[2]
		assert.InDeltaSlice(t, []float64{0.5, -1, 0.6}, nanToMinus(base.Values), 1e-12)
		assert.InDeltaSlice(t, []float64{0.4, -1, 0.5}, nanToMinus(base.Low), 1e-12)
		assert.InDeltaSlice(t, []float64{0.6, -1, 0.7}, nanToMinus(base.High), 1e-12)
		mcp := tr.Series[4]
		assert.Equal(t, []int{0, 0, 1}, mcp.FailedTrials, "the candidate had a failed trial on day 3")
		assert.True(t, math.IsNaN(mcp.Values[0]), "no candidate on day 1")
		assert.True(t, math.IsNaN(tr.Series[5].Values[2]), "the candidate has no reward")
		assert.True(t, math.IsNaN(tr.Series[0].Values[0]), "no scenario on day 1")

		// One configuration: the runs that recorded it, without the
		// scenarios' figures or the expectations.
		one, err := st.Trend(ctx, TrendOptions{Config: "mcp", Figures: []string{"recall@5"}})
		require.NoError(t, err)
		assert.Equal(t, "main", one.Branch)
		require.Len(t, one.Points, 1)
		require.Len(t, one.Series, 1)
		assert.InDelta(t, 0.8, one.Series[0].Values[0], 1e-12)
		assert.False(t, one.Checked)
		var b strings.Builder
		require.NoError(t, one.WriteMarkdown(&b, nil))
		assert.Contains(t, b.String(), "| recall@5 · mcp | ▁ | 0.80 | 0.80 [0.70, 0.90] | ±0.00 | 0.80 | 0.80 |")
		assert.NotContains(t, b.String(), "expectations passed", "an evaluation judges no expectation")
		assert.Contains(t, b.String(), "configuration mcp: mean over tasks with its 95% interval")

		// One scenario: no configuration.
		sc, err := st.Trend(ctx, TrendOptions{Scenario: "s1", Figures: []string{"recall@5"}})
		require.NoError(t, err)
		require.Len(t, sc.Series, 1)
		assert.Empty(t, sc.Series[0].Config)

		_, err = st.Trend(ctx, TrendOptions{Scenario: "s1", Config: "mcp"})
		require.ErrorContains(t, err, `a trend of scenario "s1" or of configuration "mcp", not both`)
		_, err = st.Trend(ctx, TrendOptions{Config: "nope"})
		require.ErrorContains(t, err, `no run recorded configuration "nope"`)
		_, err = st.Trend(ctx, TrendOptions{Branch: "main", Config: "nope"})
		require.ErrorContains(t, err, `no run of branch "main" recorded configuration "nope" (branches recorded: main)`)
		_, err = st.Trend(ctx, TrendOptions{Figures: []string{`recall@5"]`}})
		require.ErrorContains(t, err, `figure "recall@5\"]" (expected a metric name`)
	})
}

func nanToMinus(vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = v
		if math.IsNaN(v) {
			out[i] = -1
		}
	}
	return out
}

// An evaluation-only history shows no empty rows of scenario figures.
func TestTrendOfEvaluationsAloneHasNoScenarioRows(t *testing.T) {
	st := open(t, t.TempDir()+"/h.db")
	ctx := withTimeout(t)
	run := testRun("e", "main", "c", time.Unix(1_800_000_000, 0))
	run.Configs = testConfigs(0)
	require.NoError(t, st.Record(ctx, run))
	tr, err := st.Trend(ctx, TrendOptions{Figures: []string{"recall@5"}})
	require.NoError(t, err)
	require.Len(t, tr.Series, 2)
	assert.Equal(t, "baseline", tr.Series[0].Config)
	var b strings.Builder
	require.NoError(t, tr.WriteMarkdown(&b, nil))
	assert.Contains(t, b.String(), "each configuration's mean over tasks with its 95% interval.")
	assert.NotContains(t, b.String(), "| recall@5 |")
}

// A figure whose name holds a dot is one key of the scenario's figures,
// not a path into them.
func TestTrendReadsAFigureWithADotAsOneName(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		run := testRun("r", "main", "c", time.Unix(1_800_000_000, 0))
		run.Scenarios = []Scenario{
			{Name: "a", Status: Pass, Figures: map[string]float64{"read.recall@5": 0.25, "recall@5": 1, "ttfr_steps": 3}},
			{Name: "b", Status: Fail, Figures: map[string]float64{"read.recall@5": 0.75, "ttfr_steps": 4}},
		}
		require.NoError(t, st.Record(ctx, run))
		tr, err := st.Trend(ctx, TrendOptions{Figures: []string{"read.recall@5", "recall@5", "ttfr_steps", "mrr"}})
		require.NoError(t, err)
		assert.Equal(t, 0.5, tr.Series[0].Values[0])
		assert.Equal(t, 1.0, tr.Series[1].Values[0], "the mean over the scenarios that have it")
		assert.Equal(t, 3.5, tr.Series[2].Values[0], "a whole number is read as a number")
		assert.True(t, math.IsNaN(tr.Series[3].Values[0]))
		assert.Equal(t, 1, tr.Points[0].Failed)
	})
}

func TestTrendGathersTheThresholdsOfTheExpectations(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		exp := func(measured, threshold string) Expectation {
			return Expectation{Type: "retrieval", Status: Pass, Measured: measured, Threshold: threshold}
		}
		days := [][]Scenario{
			// Day 1: two scenarios require different lower bounds of
			// recall@5; read.recall@5's bound is not recall@5's.
			{{Name: "a", Status: Pass, Expectations: []Expectation{exp("recall@5 = 0.60", "≥ 0.50"), exp("read.recall@5 = 0.10", "≥ 0.90")}},
				{Name: "b", Status: Pass, Expectations: []Expectation{exp("recall@5 = 0.70", "≥ 0.60")}}},
			// Day 2: nothing bounds recall@5.
			{{Name: "a", Status: Pass, Expectations: []Expectation{exp("4 steps", "≤ 5")}}},
			// Day 3: one expectation bounds two figures.
			{{Name: "a", Status: Fail, Expectations: []Expectation{exp("recall@5 = 0.40; mrr = 0.30", "recall@5 ≥ 0.55; mrr in [0.2, 0.9]")}}},
		}
		for i, scs := range days {
			run := testRun("r"+string(rune('1'+i)), "main", "c", time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC))
			run.Scenarios = scs
			require.NoError(t, st.Record(ctx, run))
		}
		tr, err := st.Trend(ctx, TrendOptions{Figures: []string{"recall@5", "mrr", "ndcg@10"}})
		require.NoError(t, err)
		recall, mrr := tr.Series[0].Thresholds, tr.Series[1].Thresholds
		require.Len(t, recall, 3)
		assert.Equal(t, [2]float64{0.5, 0.6}, recall[0].AtLeast, "a band from the lowest to the highest bound")
		assert.True(t, math.IsNaN(recall[0].AtMost[0]))
		assert.False(t, recall[1].Has())
		assert.Equal(t, [2]float64{0.55, 0.55}, recall[2].AtLeast)
		assert.False(t, mrr[0].Has())
		assert.Equal(t, [2]float64{0.2, 0.2}, mrr[2].AtLeast)
		assert.Equal(t, [2]float64{0.9, 0.9}, mrr[2].AtMost)
		assert.Nil(t, tr.Series[2].Thresholds, "nothing bounds ndcg@10")

		one, err := st.Trend(ctx, TrendOptions{Scenario: "b", Figures: []string{"recall@5"}})
		require.NoError(t, err)
		assert.Equal(t, [2]float64{0.6, 0.6}, one.Series[0].Thresholds[0].AtLeast, "one scenario's bound alone")
	})
}

func TestBoundsAreReadFromTheReportsTexts(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name, measured, threshold string
		want                      []bound
	}{
		{"one figure with a lower bound", "recall@5 = 0.40", "≥ 0.50", []bound{{"recall@5", 0.5, nan}}},
		{"one figure with an upper bound", "ttfr_steps = 7", "≤ 5", []bound{{"ttfr_steps", nan, 5}}},
		{"one figure in a range", "mrr = 0.1", "in [0.2, 0.9]", []bound{{"mrr", 0.2, 0.9}}},
		{"two figures, each named", "recall@5 = 0.4; mrr = n/a", "recall@5 ≥ 0.5; mrr ≤ 0.25", []bound{{"recall@5", 0.5, nan}, {"mrr", nan, 0.25}}},
		{"two figures named out of order", "recall@5 = 0.4; mrr = 0.3", "mrr ≥ 0.5; recall@5 ≤ 0.25", nil},
		{"more thresholds than figures", "recall@5 = 0.4", "recall@5 ≥ 0.5; mrr ≤ 0.25", nil},
		{"fewer thresholds than figures", "recall@5 = 0.4; mrr = 0.3", "recall@5 ≥ 0.5", nil},
		{"a measure without a figure name", "4 steps", "≤ 5", nil},
		{"one unreadable part of two", "recall@5 = 0.4; mrr = 0.3", "recall@5 ≥ 0.5; mrr any", []bound{{"recall@5", 0.5, nan}}},
		{"a threshold that is not a number", "recall@5 = 0.4", "≥ NaN", nil},
		{"an infinite threshold", "recall@5 = 0.4", "≤ +Inf", nil},
		{"a range without its comma", "mrr = 0.1", "in [0.2 0.9]", nil},
		{"a range with a bad end", "mrr = 0.1", "in [0.2, x]", nil},
		{"a range with a bad start", "mrr = 0.1", "in [x, 0.9]", nil},
		{"a range not closed", "mrr = 0.1", "in [0.2, 0.9", nil},
		{"no sign", "mrr = 0.1", "0.5", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := parseBounds(tc.measured, tc.threshold)
			require.Len(t, got, len(tc.want))
			for i, w := range tc.want {
				assert.Equal(t, w.figure, got[i].figure)
				assert.Equal(t, nanToMinus([]float64{w.lower, w.upper}), nanToMinus([]float64{got[i].lower, got[i].upper}))
			}
		})
	}
}

func TestTrendShowsAsManyRunsAsAsked(t *testing.T) {
	st := open(t, t.TempDir()+"/h.db")
	ctx := withTimeout(t)
	for i := range 3 {
		run := testRun("r"+string(rune('0'+i)), "main", "c", time.Unix(1_800_000_000+int64(i), 0))
		run.Scenarios = testScenarios("s", 1, 0)
		require.NoError(t, st.Record(ctx, run))
	}
	one, err := st.Trend(ctx, TrendOptions{Runs: 1})
	require.NoError(t, err)
	require.Len(t, one.Points, 1)
	assert.Equal(t, "r2", one.Points[0].Key, "the latest")
	all, err := st.Trend(ctx, TrendOptions{})
	require.NoError(t, err)
	assert.Len(t, all.Points, 3, "20 by default")
	_, err = st.Trend(ctx, TrendOptions{Runs: -1})
	require.ErrorContains(t, err, "-1 runs (expected 1 or more)")
}

func TestAFigureNameIsLettersDigitsAndFourMarks(t *testing.T) {
	for _, ok := range []string{"a", "z", "A", "Z", "0", "9", "read.recall@5", "ttfr_steps", "x-y"} {
		assert.True(t, validFigureName(ok), ok)
	}
	for _, bad := range []string{"", "`", "{", "@[", "Z[", "/", ":", `a"b`, "a b", "é", "$.x"} {
		assert.False(t, validFigureName(bad), bad)
	}
}

// A trend of no figure at all still counts the expectations that passed.
func TestATrendOfNoFigureCountsTheExpectations(t *testing.T) {
	st := open(t, t.TempDir()+"/h.db")
	ctx := withTimeout(t)
	run := testRun("r", "main", "c", time.Unix(1_800_000_000, 0))
	run.Scenarios = testScenarios("s", 2, 3)
	run.Configs = testConfigs(0)
	require.NoError(t, st.Record(ctx, run))
	tr, err := st.Trend(ctx, TrendOptions{Figures: []string{}})
	require.NoError(t, err)
	assert.Empty(t, tr.Series)
	assert.Equal(t, 6, tr.Points[0].Judged)
}

// The table's lines, exactly: what the figures are, and no line of flaky
// expectations when there is none; a configuration without the figure has
// no interval to show.
func TestTheTrendTableSaysWhatItsFiguresAre(t *testing.T) {
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	nan := math.NaN()
	checked := &Trend{Branch: "main", Checked: true, Points: []Point{{Key: "r", Commit: "c", Time: at, Passed: 1, Judged: 1}},
		Series: []Series{{Figure: "recall@5", Values: []float64{0.5}}}}
	var b strings.Builder
	require.NoError(t, checked.WriteMarkdown(&b, nil))
	assert.Equal(t, "### Retrieval trend of main\n\n1 run(s), 2026-11-01 09:00 (c) to 2026-11-01 09:00 (c); mean over the scenarios of each run.\n\n"+
		"| Figure | Trend | First | Latest | Change | Min | Max |\n|---|---|---:|---:|---:|---:|---:|\n"+
		"| recall@5 | ▁ | 0.50 | 0.50 | ±0.00 | 0.50 | 0.50 |\n"+
		"| expectations passed | ▁ | 1 of 1 | 1 of 1 | 0.0 pp | | |\n", b.String())

	both := *checked
	both.Series = append(both.Series, Series{Figure: "mrr", Config: "mcp", Values: []float64{nan}, Low: []float64{nan}, High: []float64{nan}, FailedTrials: []int{0}})
	b.Reset()
	require.NoError(t, both.WriteMarkdown(&b, nil))
	assert.Contains(t, b.String(), "; mean over the scenarios of each run; each configuration's mean over tasks with its 95% interval.\n")
	assert.Contains(t, b.String(), "| mrr · mcp | · | n/a | n/a | n/a | n/a | n/a |\n", "no interval without a value")
}
