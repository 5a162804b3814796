package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// A Run is one check run as the history records it.
type Run struct {
	// Key identifies the run: writing a run with a key already recorded
	// replaces that run's scenarios of the same names and keeps the others,
	// so that the shards of one CI run (same key, different scenarios) add
	// up to one run and a retried job changes nothing. See DetectRun.
	Key string
	// Time is when the run was recorded; the first shard's time is kept.
	Time   time.Time
	Commit string
	Branch string
	// CI names the CI system ("github", "gitlab", "buildkite") or is "".
	CI string
	// URL is the CI run's page; ReportURL where its report was uploaded.
	// Either may be "".
	URL       string
	ReportURL string
	Scenarios []Scenario
	// Configs are the configurations of an evaluated benchmark run
	// (run-dir, merge); a configuration written again under the same key
	// replaces the earlier one, as a scenario does.
	Configs []Config
	// Evaluated is the evaluated run's own id (its summary's run_id), or
	// "" for a check run; the first one recorded under a key is kept.
	Evaluated string
}

// Status is a scenario's or an expectation's outcome, as the check
// report words it: "pass", "fail", "flaky" (a failure of an expectation
// marked flaky), "skipped" or "error" (a scenario that could not be
// checked).
type Status string

const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Flaky   Status = "flaky"
	Skipped Status = "skipped"
	Error   Status = "error"
)

// A Scenario is one scenario of a run.
type Scenario struct {
	Name   string
	File   string
	Status Status
	// TraceDigest is the SHA-256 of the scenario's trace files, so that a
	// run of the same traces is recognized; "" when nothing was read.
	TraceDigest string
	// Figures are the scenario's retrieval figures (the check report's
	// and the baseline file's), metric name to value; a figure with no
	// value is absent.
	Figures      map[string]float64
	Expectations []Expectation
}

// An Expectation is one expectation of a scenario, in the order of the
// scenario file.
type Expectation struct {
	Type        string
	Description string
	Status      Status
	// FlakyMarked is true for an expectation the scenario marks flaky.
	FlakyMarked bool
	// Measured and Threshold are the report's texts ("recall@5 = 0.40",
	// "≥ 0.50").
	Measured  string
	Threshold string
	// RunsPassed of RunsJudged traces passed it (a skipped run is not
	// judged).
	RunsPassed, RunsJudged int
	// SettingsDigest is the SHA-256 of what decides the outcome besides
	// the trace: the expectation's type and parameters, the scenario's
	// runs rule, ground truth and reading options.
	SettingsDigest string
}

// Record writes a run in one transaction: a run killed while writing
// leaves nothing of itself, and a run written again under the same key
// replaces its scenarios of the same names (see Run.Key). Many processes
// may record at once, into one run or several.
func (s *Store) Record(ctx context.Context, run *Run) error {
	if run.Key == "" {
		return fmt.Errorf("history %s: the run has no key (expected a CI run id, or -run-id)", s.name)
	}
	if run.Time.IsZero() {
		return fmt.Errorf("history %s: run %s has no time", s.name, run.Key)
	}
	figures := make([]string, len(run.Scenarios))
	seen := map[string]bool{}
	for i, sc := range run.Scenarios {
		if sc.Name == "" {
			return fmt.Errorf("history %s: run %s: scenario %d has no name", s.name, run.Key, i+1)
		}
		if seen[sc.Name] {
			return fmt.Errorf("history %s: run %s: scenario %q twice", s.name, run.Key, sc.Name)
		}
		seen[sc.Name] = true
		f, err := figuresJSON(sc.Figures)
		if err != nil {
			return fmt.Errorf("history %s: run %s: scenario %s: %w", s.name, run.Key, sc.Name, err)
		}
		figures[i] = f
	}
	if err := checkConfigs(run.Configs); err != nil {
		return fmt.Errorf("history %s: run %s: %w", s.name, run.Key, err)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var runID int64
		// The update makes RETURNING give the id of a run another shard
		// recorded first, in SQLite and PostgreSQL alike; it changes
		// nothing but an evaluated run id not yet recorded.
		err := tx.QueryRowContext(ctx, s.q(`INSERT INTO runs (run_key, recorded_at, commit_sha, branch, ci, url, report_url, evaluated)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (run_key) DO UPDATE SET evaluated = COALESCE(NULLIF(runs.evaluated, ''), excluded.evaluated) RETURNING id`),
			run.Key, run.Time.UnixMilli(), run.Commit, run.Branch, run.CI, run.URL, run.ReportURL, run.Evaluated).Scan(&runID)
		if err != nil {
			return err
		}
		if err := s.recordConfigs(ctx, tx, runID, run.Configs); err != nil {
			return err
		}
		// Rows go in many to a statement: a round trip per row is what
		// makes writing to a database across the network slow.
		names := make([]any, len(run.Scenarios))
		for i, sc := range run.Scenarios {
			names[i] = sc.Name
		}
		for part := range slices.Chunk(names, 500) {
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM scenarios WHERE run_id = ? AND name IN (`+placeholders(len(part))+`)`),
				append([]any{runID}, part...)...); err != nil {
				return err
			}
		}
		ids := make(map[string]int64, len(run.Scenarios))
		for from := 0; from < len(run.Scenarios); from += 500 {
			part := run.Scenarios[from:min(from+500, len(run.Scenarios))]
			args := make([]any, 0, 6*len(part))
			for i, sc := range part {
				args = append(args, runID, sc.Name, sc.File, string(sc.Status), sc.TraceDigest, figures[from+i])
			}
			rows, err := tx.QueryContext(ctx, s.q(`INSERT INTO scenarios (run_id, name, file, status, trace_digest, figures)
				VALUES `+tuples(len(part), 6)+` RETURNING id, name`), args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				var name string
				if err := rows.Scan(&id, &name); err != nil {
					rows.Close()
					return err
				}
				ids[name] = id
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		if recordHook != nil {
			recordHook()
		}
		var args []any
		flush := func() error {
			if len(args) == 0 {
				return nil
			}
			_, err := tx.ExecContext(ctx, s.q(`INSERT INTO expectations (scenario_id, position, type, description, status,
				flaky_marked, measured, threshold, runs_passed, runs_judged, settings_digest) VALUES `+tuples(len(args)/11, 11)), args...)
			args = args[:0]
			return err
		}
		for _, sc := range run.Scenarios {
			id, ok := ids[sc.Name]
			if !ok {
				return fmt.Errorf("scenario %s was not written", sc.Name)
			}
			for j, e := range sc.Expectations {
				args = append(args, id, j, e.Type, e.Description, string(e.Status),
					e.FlakyMarked, e.Measured, e.Threshold, e.RunsPassed, e.RunsJudged, e.SettingsDigest)
				if len(args) >= 11*1000 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("history %s: recording run %s: %w", s.name, run.Key, err)
	}
	return nil
}

// recordHook, when set (by tests), is called once the scenario rows are
// written, inside the transaction, before the expectations.
var recordHook func()

// tuples is n groups of width placeholders: "(?, ?), (?, ?)".
func tuples(n, width int) string {
	one := "(" + placeholders(width) + ")"
	return strings.TrimSuffix(strings.Repeat(one+",", n), ",")
}

// inTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, rollback(tx))
	}
	return tx.Commit()
}

func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// figuresJSON is figures as a JSON object with sorted keys; a figure that
// is not finite is an error, since JSON cannot hold it and the history
// must not lose it silently.
func figuresJSON(figures map[string]float64) (string, error) {
	for _, k := range slices.Sorted(maps.Keys(figures)) {
		if v := figures[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			return "", fmt.Errorf("figure %s is %v, which the history cannot hold", k, v)
		}
	}
	if figures == nil {
		return "{}", nil
	}
	b, err := json.Marshal(figures)
	return string(b), err
}
