package history

import (
	"database/sql"
	"fmt"
	"io/fs"
	"math"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/runs"
)

func stats(n int, mean, lo, hi float64) metrics.Stats {
	return metrics.Stats{N: n, Mean: mean, Median: mean, Std: 0.1, CILow: lo, CIHigh: hi}
}

// testConfigs are two configurations of an evaluated run: a baseline and
// a candidate with one failed trial and a proportion's Wilson interval.
func testConfigs(shift float64) []Config {
	wl, wh := 0.3, 0.9
	succ := stats(10, 0.6, 0.3, 0.9)
	succ.WilsonLow, succ.WilsonHigh = &wl, &wh
	return []Config{
		{Name: "baseline", Trials: 12, Tasks: 10, Computable: 10, NonComputable: 1, Degraded: 1,
			Figures: map[string]metrics.Stats{"recall@5": stats(10, 0.5+shift, 0.4+shift, 0.6+shift), "reward": stats(10, 0.7, 0.5, 0.8)}},
		{Name: "mcp", Trials: 11, Tasks: 10, Computable: 10, Failed: 1,
			Figures: map[string]metrics.Stats{"recall@5": stats(10, 0.7+shift, 0.6+shift, 0.8+shift), "success@5": succ}},
	}
}

func TestAnEvaluatedRunIsRecordedWithItsConfigurations(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		run := testRun("ci:eval-1", "main", "abc", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
		run.Configs, run.Evaluated = testConfigs(0), "swebench-2026-12"
		require.NoError(t, st.Record(ctx, run))
		require.NoError(t, st.Record(ctx, run), "recording it again changes nothing")

		list, err := st.Runs(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, RunSummary{Key: "ci:eval-1", Time: run.Time, Commit: "abc", Branch: "main", CI: "github",
			URL: "https://ci.example/ci:eval-1", Configs: 2, Trials: 23, FailedTrials: 1}, list[0])
		assert.Equal(t, 2, count(t, st, "configs"))
		assert.Equal(t, 4, count(t, st, "config_figures"))
		var evaluated string
		require.NoError(t, st.db.QueryRow(`SELECT evaluated FROM runs`).Scan(&evaluated))
		assert.Equal(t, "swebench-2026-12", evaluated)
		var wl, wh, plain *float64
		require.NoError(t, st.db.QueryRow(st.q(`SELECT wilson_low, wilson_high FROM config_figures WHERE figure = ?`), "success@5").Scan(&wl, &wh))
		require.NoError(t, st.db.QueryRow(st.q(`SELECT wilson_low FROM config_figures WHERE figure = ?`), "recall@5").Scan(&plain))
		require.NotNil(t, wl)
		assert.Equal(t, 0.3, *wl)
		assert.Equal(t, 0.9, *wh)
		assert.Nil(t, plain, "a figure that is not a proportion has no Wilson interval")

		// A configuration evaluated again under the same key replaces
		// the earlier one; the other stays.
		again := testRun("ci:eval-1", "main", "abc", run.Time)
		again.Configs = testConfigs(0.1)[:1]
		again.Configs[0].Trials = 5
		require.NoError(t, st.Record(ctx, again))
		list, err = st.Runs(ctx, Filter{})
		require.NoError(t, err)
		assert.Equal(t, 5+11, list[0].Trials)
		assert.Equal(t, 2, count(t, st, "configs"))
	})
}

func TestACheckAndAnEvaluationUnderOneKeyAddUp(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		check := testRun("ci:9", "main", "abc", time.Unix(1_800_000_000, 0))
		check.Scenarios = testScenarios("s", 2, 1)
		eval := testRun("ci:9", "main", "abc", time.Unix(1_800_000_100, 0))
		eval.Configs, eval.Evaluated = testConfigs(0), "nightly"
		require.NoError(t, st.Record(ctx, check))
		require.NoError(t, st.Record(ctx, eval))
		list, err := st.Runs(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, 2, list[0].Scenarios)
		assert.Equal(t, 2, list[0].Configs)
		var evaluated string
		require.NoError(t, st.db.QueryRow(`SELECT evaluated FROM runs`).Scan(&evaluated))
		assert.Equal(t, "nightly", evaluated, "the evaluated run's id is recorded when a check recorded the run first")
	})
}

func TestAnEvaluationTheHistoryCannotHoldWritesNothing(t *testing.T) {
	st := open(t, t.TempDir()+"/h.db")
	ctx := withTimeout(t)
	for _, tc := range []struct {
		name  string
		edit  func([]Config) []Config
		error string
	}{
		{"a configuration without a name", func(c []Config) []Config { c[1].Name = ""; return c }, "history " + st.Name() + ": run k: configuration 2 has no name"},
		{"a configuration twice", func(c []Config) []Config { return append(c, c[0]) }, `configuration "baseline" twice`},
		{"an interval that is not finite", func(c []Config) []Config {
			s := c[0].Figures["recall@5"]
			s.CIHigh = math.Inf(1)
			c[0].Figures["recall@5"] = s
			return c
		}, "configuration baseline: figure recall@5 has a statistic of +Inf, which the history cannot hold"},
		{"a Wilson bound that is not a number", func(c []Config) []Config {
			s := c[1].Figures["success@5"]
			nan := math.NaN()
			s.WilsonLow = &nan
			c[1].Figures["success@5"] = s
			return c
		}, "figure success@5 has a statistic of NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := testRun("k", "main", "abc", time.Unix(1_800_000_000, 0))
			run.Configs = tc.edit(testConfigs(0))
			require.ErrorContains(t, st.Record(ctx, run), tc.error)
			assert.Equal(t, 0, count(t, st, "runs"))
			assert.Equal(t, 0, count(t, st, "configs"))
		})
	}
}

func TestAKilledWriterLeavesNoHalfEvaluation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		open(t, dsn)
		killMidway(t, dsn, "killed-evaluation")
		st := open(t, dsn)
		assert.Equal(t, 0, count(t, st, "runs"))
		assert.Equal(t, 0, count(t, st, "configs"))
		assert.Equal(t, 0, count(t, st, "config_figures"))
	})
}

func TestConfigsComeFromTheRunSummary(t *testing.T) {
	reward := func(v float64) *float64 { return &v }
	s := runs.Summarize("run-7", map[string][]runs.TaskEntry{
		"baseline": {
			{Name: "a", Task: "a", Status: runs.Computable, Reward: reward(1), Values: map[string]float64{"recall@5": 0.5}},
			{Name: "b", Task: "b", Status: runs.Computable, Reward: reward(0), Values: map[string]float64{"recall@5": 1}},
			{Name: "c", Task: "c", Status: runs.NonComputable},
			{Name: "d", Task: "d", Status: runs.Failed},
		},
		"mcp": {{Name: "a", Task: "a", Status: runs.Degraded}},
	})
	got := Configs(s)
	require.Len(t, got, 2)
	b := got[0]
	assert.Equal(t, "baseline", b.Name)
	assert.Equal(t, []int{4, 4, 2, 1, 0, 1}, []int{b.Trials, b.Tasks, b.Computable, b.NonComputable, b.Degraded, b.Failed})
	assert.Equal(t, 0.75, b.Figures["recall@5"].Mean)
	assert.Equal(t, 2, b.Figures["recall@5"].N)
	assert.Equal(t, 0.5, b.Figures[RewardFigure].Mean, "the reward is recorded beside the figures")
	m := got[1]
	assert.Equal(t, []int{1, 1, 0, 0, 1, 0}, []int{m.Trials, m.Tasks, m.Computable, m.NonComputable, m.Degraded, m.Failed})
	assert.Empty(t, m.Figures, "a configuration with nothing computable has no figure")
	assert.NotNil(t, m.Figures)
}

// A history written by a build of the first schema version is migrated
// when a build of the second opens it, and its runs are kept.
func TestTheFirstSchemaIsMigratedKeepingItsRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		dialect, sub, driver := goose.DialectSQLite3, "migrations/sqlite", "sqlite"
		conn := sqliteDSN(dsn)
		if IsPostgres(dsn) {
			dialect, sub, driver, conn = goose.DialectPostgres, "migrations/postgres", "pgx", dsn
		}
		db, err := sql.Open(driver, conn)
		require.NoError(t, err)
		fsys, err := fs.Sub(migrations, sub)
		require.NoError(t, err)
		p, err := goose.NewProvider(dialect, db, fsys)
		require.NoError(t, err)
		_, err = p.UpTo(ctx, 1)
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, `INSERT INTO runs (run_key, recorded_at, branch) VALUES ('old', 1800000000000, 'main')`)
		require.NoError(t, err)
		require.NoError(t, db.Close())

		st := open(t, dsn)
		list, err := st.Runs(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "old", list[0].Key)
		assert.Equal(t, 0, list[0].Configs)
		run := testRun("new", "main", "abc", time.Unix(1_800_000_100, 0))
		run.Configs = testConfigs(0)
		require.NoError(t, st.Record(ctx, run))
		var version int64
		require.NoError(t, st.db.QueryRowContext(ctx, `SELECT MAX(version_id) FROM goose_db_version`).Scan(&version))
		assert.Equal(t, int64(2), version)
	})
}

// More figures than one statement takes go in several, all of them.
func TestAConfigurationOfManyFiguresIsRecordedWhole(t *testing.T) {
	st := open(t, t.TempDir()+"/h.db")
	ctx := withTimeout(t)
	c := Config{Name: "wide", Figures: map[string]metrics.Stats{}}
	for i := range 1200 {
		c.Figures[fmt.Sprintf("figure-%04d", i)] = stats(3, float64(i), float64(i)-1, float64(i)+1)
	}
	run := testRun("k", "main", "abc", time.Unix(1_800_000_000, 0))
	run.Configs = []Config{c}
	require.NoError(t, st.Record(ctx, run))
	assert.Equal(t, 1200, count(t, st, "config_figures"))
	var mean float64
	require.NoError(t, st.db.QueryRow(`SELECT mean FROM config_figures WHERE figure = 'figure-1199'`).Scan(&mean))
	assert.Equal(t, 1199.0, mean)
}
