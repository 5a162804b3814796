package history

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testRun(key, branch, commit string, at time.Time) *Run {
	return &Run{Key: key, Time: at, Branch: branch, Commit: commit, CI: "github", URL: "https://ci.example/" + key}
}

// testScenarios are n scenarios named prefix0, prefix1, … with e
// expectations each, all passing, with figures that vary by scenario.
func testScenarios(prefix string, n, e int) []Scenario {
	out := make([]Scenario, n)
	for i := range out {
		sc := Scenario{
			Name: fmt.Sprintf("%s%d", prefix, i), File: fmt.Sprintf("scenarios/%s%d.yaml", prefix, i), Status: Pass,
			TraceDigest: fmt.Sprintf("sha256:%064x", i),
			Figures:     map[string]float64{"recall@5": float64(i%5) / 4, "mrr": 0.5, "ttfr_steps": float64(i % 7)},
		}
		for j := range e {
			sc.Expectations = append(sc.Expectations, Expectation{
				Type: "retrieval", Description: fmt.Sprintf("check %d", j), Status: Pass,
				Measured: "recall@5 = 0.50", Threshold: "≥ 0.40", RunsPassed: 1, RunsJudged: 1,
				SettingsDigest: fmt.Sprintf("sha256:%064x", j),
			})
		}
		out[i] = sc
	}
	return out
}

// backends run a test against a new SQLite file and a new PostgreSQL
// database (skipped without a server).
var backends = []struct {
	name string
	dsn  func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "history.db") }},
	{"postgres", postgresDSN},
}

func forEachBackend(t *testing.T, test func(t *testing.T, dsn string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.dsn(t)) })
	}
}

func open(t testing.TB, dsn string) *Store {
	t.Helper()
	st, err := Open(withTimeout(t), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// count returns the number of rows of a table.
func count(t testing.TB, st *Store, table string) int {
	t.Helper()
	var n int
	require.NoError(t, st.db.QueryRow("SELECT COUNT(*) FROM "+table).Scan(&n))
	return n
}

func TestARecordedRunIsListedWithItsOutcomes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		run := testRun("github:o/r/1/1", "main", "abc123", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
		run.Scenarios = testScenarios("s", 4, 2)
		run.Scenarios[1].Status = Fail
		run.Scenarios[2].Status = Flaky
		run.Scenarios = append(run.Scenarios, Scenario{Name: "broken.yaml", File: "broken.yaml", Status: Error})
		require.NoError(t, st.Record(ctx, run))

		runs, err := st.Runs(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, runs, 1)
		r := runs[0]
		assert.Equal(t, RunSummary{Key: "github:o/r/1/1", Time: run.Time, Commit: "abc123", Branch: "main", CI: "github",
			URL: "https://ci.example/github:o/r/1/1", Scenarios: 5, Failed: 1, Flaky: 1, Errored: 1}, r)
		assert.Equal(t, 5, count(t, st, "scenarios"))
		assert.Equal(t, 8, count(t, st, "expectations"))
	})
}

func TestRecordingARunTwiceChangesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		run := testRun("k", "main", "abc", time.Unix(1_800_000_000, 0))
		run.Scenarios = testScenarios("s", 3, 2)
		require.NoError(t, st.Record(ctx, run))
		require.NoError(t, st.Record(ctx, run))
		assert.Equal(t, 1, count(t, st, "runs"))
		assert.Equal(t, 3, count(t, st, "scenarios"))
		assert.Equal(t, 6, count(t, st, "expectations"))
	})
}

func TestShardsOfOneRunAddUpAndARewrittenScenarioIsReplaced(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		first := testRun("k", "main", "abc", time.Unix(1_800_000_000, 0))
		first.Scenarios = testScenarios("a", 2, 1)
		second := testRun("k", "other", "def", time.Unix(1_800_000_100, 0))
		second.Scenarios = testScenarios("b", 3, 1)
		require.NoError(t, st.Record(ctx, first))
		require.NoError(t, st.Record(ctx, second))
		again := testRun("k", "main", "abc", time.Unix(1_800_000_200, 0))
		again.Scenarios = testScenarios("a", 1, 1)
		again.Scenarios[0].Status = Fail
		require.NoError(t, st.Record(ctx, again))

		runs, err := st.Runs(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, runs, 1)
		assert.Equal(t, 5, runs[0].Scenarios)
		assert.Equal(t, 1, runs[0].Failed)
		assert.Equal(t, "main", runs[0].Branch, "the first shard's branch is kept")
		assert.Equal(t, time.Unix(1_800_000_000, 0).UTC(), runs[0].Time, "the first shard's time is kept")
	})
}

func TestRunsAreFilteredByBranchScenarioAndTime(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		for i, branch := range []string{"main", "feature/x", "main", "main"} {
			r := testRun(fmt.Sprintf("r%d", i), branch, fmt.Sprintf("c%d", i), base.Add(time.Duration(i)*24*time.Hour))
			r.Scenarios = testScenarios("s", 2+i, 1)
			require.NoError(t, st.Record(ctx, r))
		}
		keys := func(f Filter) []string {
			runs, err := st.Runs(ctx, f)
			require.NoError(t, err)
			var out []string
			for _, r := range runs {
				out = append(out, r.Key)
			}
			return out
		}
		assert.Equal(t, []string{"r3", "r2", "r1", "r0"}, keys(Filter{}), "latest first")
		assert.Equal(t, []string{"r3", "r2", "r0"}, keys(Filter{Branch: "main"}))
		assert.Equal(t, []string{"r3", "r2"}, keys(Filter{Branch: "main", Since: base.Add(24 * time.Hour)}))
		assert.Equal(t, []string{"r3", "r2"}, keys(Filter{Scenario: "s3"}), "only runs 2 and 3 have a fourth scenario")
		assert.Equal(t, []string{"r3"}, keys(Filter{Limit: 1}))
		runs, err := st.Runs(ctx, Filter{Scenario: "s3"})
		require.NoError(t, err)
		assert.Equal(t, 1, runs[0].Scenarios, "a scenario filter counts that scenario alone")
	})
}

func TestAFailedRecordWritesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		ctx := withTimeout(t)
		st := open(t, dsn)
		run := testRun("k", "main", "abc", time.Unix(1_800_000_000, 0))
		run.Scenarios = testScenarios("s", 3, 1)
		run.Scenarios[2].Figures["mrr"] = math.NaN()
		err := st.Record(ctx, run)
		require.ErrorContains(t, err, "scenario s2: figure mrr is NaN, which the history cannot hold")
		assert.Equal(t, 0, count(t, st, "runs"))

		// A failure inside the transaction, once the run and its scenarios
		// are written: the context is cancelled.
		run.Scenarios = testScenarios("s", 3, 1)
		cctx, cancel := context.WithCancel(ctx)
		recordHook = cancel
		defer func() { recordHook = nil }()
		require.Error(t, st.Record(cctx, run))
		recordHook = nil
		assert.Equal(t, 0, count(t, st, "runs"))
		assert.Equal(t, 0, count(t, st, "scenarios"))
	})
}

func TestARecordRejectsARunWithoutKeyOrWithAScenarioTwice(t *testing.T) {
	st := open(t, filepath.Join(t.TempDir(), "h.db"))
	ctx := withTimeout(t)
	run := testRun("", "main", "abc", time.Unix(1_800_000_000, 0))
	require.ErrorContains(t, st.Record(ctx, run), "the run has no key")
	run.Key = "k"
	run.Scenarios = append(testScenarios("s", 1, 0), testScenarios("s", 1, 0)...)
	require.ErrorContains(t, st.Record(ctx, run), `scenario "s0" twice`)
	run.Scenarios = nil
	run.Time = time.Time{}
	require.ErrorContains(t, st.Record(ctx, run), "run k has no time")
}

func TestAKilledWriterLeavesNoHalfRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		open(t, dsn) // the schema exists before the child starts
		killMidway(t, dsn, "killed")
		st := open(t, dsn)
		assert.Equal(t, 0, count(t, st, "runs"))
		assert.Equal(t, 0, count(t, st, "scenarios"))
		assert.Equal(t, 0, count(t, st, "expectations"))
		// The database is usable after the kill.
		run := testRun("after", "main", "abc", time.Unix(1_800_000_000, 0))
		run.Scenarios = testScenarios("s", 2, 1)
		require.NoError(t, st.Record(withTimeout(t), run))
		assert.Equal(t, 2, count(t, st, "scenarios"))
	})
}

// Eight processes open a new database at once (each migrating it), record
// their shard of one run, then runs of their own.
func TestEightConcurrentWritersLoseNoRow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts eight processes")
	}
	forEachBackend(t, func(t *testing.T, dsn string) {
		const writers, own = 8, 5
		var wg sync.WaitGroup
		errs := make([]error, writers)
		outs := make([][]byte, writers)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := child(t, "shard", dsn, fmt.Sprintf("HISTORY_TEST_SHARD=%d", i), fmt.Sprintf("HISTORY_TEST_OWN_RUNS=%d", own))
				outs[i], errs[i] = cmd.CombinedOutput()
			}()
		}
		wg.Wait()
		for i := range writers {
			require.NoError(t, errs[i], "writer %d: %s", i, outs[i])
		}
		st := open(t, dsn)
		assert.Equal(t, 1+writers*own, count(t, st, "runs"))
		assert.Equal(t, writers*25+writers*own*10, count(t, st, "scenarios"))
		assert.Equal(t, writers*25*3+writers*own*10*2, count(t, st, "expectations"))
		var shared int
		require.NoError(t, st.db.QueryRow(`SELECT COUNT(*) FROM scenarios s JOIN runs r ON s.run_id = r.id WHERE r.run_key = 'ci:shared'`).Scan(&shared))
		assert.Equal(t, writers*25, shared)
	})
}

func TestOpenRejectsWhatIsNotAHistoryDatabase(t *testing.T) {
	ctx := withTimeout(t)
	dir := t.TempDir()
	notDB := filepath.Join(dir, "baseline.json")
	require.NoError(t, os.WriteFile(notDB, []byte(`{"version": 1}`), 0o644))
	_, err := Open(ctx, notDB)
	require.ErrorContains(t, err, "baseline.json: not a SQLite database (expected a SQLite file path or a postgres:// URL)")
	_, err = Open(ctx, dir)
	require.ErrorContains(t, err, "is a folder")
	_, err = Open(ctx, "mysql://db/x")
	require.ErrorContains(t, err, "expected a SQLite file path or a postgres:// URL")
	_, err = Open(ctx, "")
	require.ErrorContains(t, err, "no database given")
}

func TestOpenRefusesASchemaNewerThanTheBuild(t *testing.T) {
	forEachBackend(t, func(t *testing.T, dsn string) {
		st := open(t, dsn)
		_, err := st.db.Exec(st.q(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, ?)`), 99, true)
		require.NoError(t, err)
		st.Close()
		_, err = Open(withTimeout(t), dsn)
		require.ErrorContains(t, err, "schema version 99 is newer than this build's (2): use a newer retrievaltest")
	})
}

func TestAPostgresPasswordIsHiddenInErrors(t *testing.T) {
	assert.Equal(t, "postgres://ci:xxxxx@db.example/history", displayName("postgres://ci:secret@db.example/history"))
	assert.Equal(t, "runs/history.db", displayName("runs/history.db"))
}

func TestPlaceholdersArePostgresStyleOnPostgres(t *testing.T) {
	pg := &Store{dialect: postgresDialect}
	assert.Equal(t, "a = $1 AND b IN ($2,$3)", pg.q("a = ? AND b IN (?,?)"))
	lite := &Store{dialect: sqliteDialect}
	assert.Equal(t, "a = ?", lite.q("a = ?"))
}
