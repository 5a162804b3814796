package history

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/benchcpu"
	"github.com/agentretrieval/agentretrieval/internal/scenariorun"
	"github.com/agentretrieval/agentretrieval/report"
)

var (
	genDSN       = flag.String("history.gen", "", "TestGenerateHistory writes a generated history into this database (a SQLite file or a postgres:// URL)")
	genRuns      = flag.Int("history.runs", 10000, "runs TestGenerateHistory writes")
	genScenarios = flag.Int("history.scenarios", 200, "scenarios per run TestGenerateHistory writes")
)

var (
	realFiguresOnce sync.Once
	realFigures     []map[string]float64
	realFiguresErr  error
)

// realShapedFigures are the figures the project's own scenarios measure
// (about a hundred per scenario), the shape of what check records.
func realShapedFigures(tb testing.TB) []map[string]float64 {
	realFiguresOnce.Do(func() {
		files, err := scenariorun.FindScenarios("../scenarios")
		if err != nil {
			realFiguresErr = err
			return
		}
		results, bad := scenariorun.CheckFiles(context.Background(), files, func(*expectations.Scenario) bool { return true }, scenariorun.Options{Jobs: 1})
		if len(bad) > 0 {
			realFiguresErr = bad[0]
			return
		}
		c := report.NewCheck(results)
		for _, m := range c.Figures.Entries {
			realFigures = append(realFigures, m)
		}
	})
	if realFiguresErr != nil {
		tb.Fatal(realFiguresErr)
	}
	return realFigures
}

// generatedRun is run i of a generated history: n scenarios with three
// expectations each, real-shaped figures moved a little from run to run,
// and about one expectation in fifty failing.
func generatedRun(tb testing.TB, rng *rand.Rand, i, n int, start time.Time) *Run {
	figs := realShapedFigures(tb)
	run := &Run{Key: fmt.Sprintf("gen:%d", i), Time: start.Add(time.Duration(i) * time.Hour), Branch: "main",
		Commit: fmt.Sprintf("%016x%016x%08x", rng.Uint64(), rng.Uint64(), rng.Uint32()), CI: "github", URL: fmt.Sprintf("https://ci.example/runs/%d", i)}
	if i%10 == 9 {
		run.Branch = fmt.Sprintf("feature/%d", i)
	}
	for j := range n {
		base := figs[j%len(figs)]
		m := make(map[string]float64, len(base))
		for k, v := range base {
			m[k] = v * (0.9 + 0.2*rng.Float64())
		}
		sc := Scenario{Name: fmt.Sprintf("scenario-%03d", j), File: fmt.Sprintf("scenarios/scenario-%03d.yaml", j), Status: Pass,
			TraceDigest: fmt.Sprintf("sha256:%064x", j), Figures: m}
		for e := range 3 {
			st := Pass
			if rng.IntN(50) == 0 {
				st, sc.Status = Fail, Fail
			}
			sc.Expectations = append(sc.Expectations, Expectation{Type: "retrieval", Description: fmt.Sprintf("check %d", e), Status: st,
				Measured: "recall@5 = 0.40; mrr = 0.50", Threshold: "recall@5 ≥ 0.30; mrr ≥ 0.25", RunsPassed: 1, RunsJudged: 1,
				SettingsDigest: fmt.Sprintf("sha256:%064x", e)})
		}
		run.Scenarios = append(run.Scenarios, sc)
	}
	return run
}

func rowsOf(run *Run) int {
	n := 1
	for _, sc := range run.Scenarios {
		n += 1 + len(sc.Expectations)
	}
	return n
}

// BenchmarkRecord writes runs of 200 scenarios (three expectations each,
// about a hundred figures per scenario): rows/s counts the run, scenario
// and expectation rows; cpu-rows/s (SQLite only) counts them against the
// process's CPU time; B/run is the SQLite file's growth per run.
func BenchmarkRecord(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			dsn := be.dsn(b)
			st := open(b, dsn)
			rng := rand.New(rand.NewPCG(1, 2))
			runs := make([]*Run, b.N)
			rows := 0
			for i := range runs {
				runs[i] = generatedRun(b, rng, i, 200, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
				rows += rowsOf(runs[i])
			}
			ctx := context.Background()
			cpu := benchcpu.Now()
			b.ResetTimer()
			for i := range b.N {
				if err := st.Record(ctx, runs[i]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			if !IsPostgres(dsn) {
				// The whole database works in this process: its CPU
				// time is the figure a busy machine does not move.
				if user, sys, ok := cpu.Since(); ok {
					b.ReportMetric(float64(rows)/(user+sys).Seconds(), "cpu-rows/s")
				}
				st.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
				if info, err := os.Stat(dsn); err == nil {
					b.ReportMetric(float64(info.Size())/float64(b.N), "B/run")
				}
			}
		})
	}
}

// TestGenerateHistory writes a large generated history for measuring the
// commands on it; it runs only with -history.gen:
//
//	go test ./history -run TestGenerateHistory -history.gen=/tmp/big.db -history.runs=10000 -v
func TestGenerateHistory(t *testing.T) {
	if *genDSN == "" {
		t.Skip("run with -history.gen=DB to write a generated history")
	}
	if !IsPostgres(*genDSN) {
		abs, err := filepath.Abs(*genDSN)
		if err != nil {
			t.Fatal(err)
		}
		*genDSN = abs
	}
	ctx := context.Background()
	st, err := Open(ctx, *genDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Now().Add(-time.Duration(*genRuns) * time.Hour)
	rows, began, writing := 0, time.Now(), time.Duration(0)
	for i := range *genRuns {
		run := generatedRun(t, rng, i, *genScenarios, start)
		rows += rowsOf(run)
		t0 := time.Now()
		if err := st.Record(ctx, run); err != nil {
			t.Fatal(err)
		}
		writing += time.Since(t0)
		if i%500 == 499 {
			t.Logf("%d runs, %d rows, %.0f rows/s writing", i+1, rows, float64(rows)/writing.Seconds())
		}
	}
	t.Logf("%d runs of %d scenarios: %d rows in %v (%.0f rows/s writing, %v in all)", *genRuns, *genScenarios, rows,
		writing.Round(time.Millisecond), float64(rows)/writing.Seconds(), time.Since(began).Round(time.Second))
	var size int64
	if IsPostgres(*genDSN) {
		err = st.db.QueryRow(`SELECT pg_database_size(current_database())`).Scan(&size)
	} else {
		st.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		var info os.FileInfo
		if info, err = os.Stat(*genDSN); err == nil {
			size = info.Size()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("database size %d bytes, %.0f bytes per run", size, float64(size)/float64(*genRuns))
}
