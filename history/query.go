package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/lazyre"
	"github.com/agentretrieval/agentretrieval/report"
)

// A RunSummary is one recorded run as the history command lists it.
type RunSummary struct {
	Key                    string
	Time                   time.Time
	Commit, Branch, CI     string
	URL, ReportURL         string
	Scenarios              int
	Failed, Flaky, Errored int
	// Configs are the configurations of an evaluated benchmark run
	// recorded under the run's key, with Trials trials in all, of which
	// FailedTrials could not be evaluated.
	Configs, Trials, FailedTrials int
}

// A Filter selects runs. Zero fields select everything.
type Filter struct {
	Branch string
	// Scenario keeps the runs that recorded this scenario, and counts
	// that scenario alone.
	Scenario string
	// Since keeps the runs recorded at or after it.
	Since time.Time
	// Limit is the most runs returned, the latest first; 0 means no limit.
	Limit int
}

// Runs lists the runs f selects, the latest first, with how many of their
// scenarios failed, were flaky or could not be checked.
func (s *Store) Runs(ctx context.Context, f Filter) ([]RunSummary, error) {
	// The runs are chosen (and limited) first, so that listing the latest
	// runs of a large history counts the scenarios of those runs only.
	var args []any
	var conds []string
	if f.Scenario != "" {
		conds, args = append(conds, "EXISTS (SELECT 1 FROM scenarios s2 WHERE s2.run_id = r.id AND s2.name = ?)"), append(args, f.Scenario)
	}
	if f.Branch != "" {
		conds, args = append(conds, "r.branch = ?"), append(args, f.Branch)
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, "r.recorded_at >= ?"), append(args, f.Since.UnixMilli())
	}
	chosen := `SELECT r.* FROM runs r`
	if len(conds) > 0 {
		chosen += " WHERE " + strings.Join(conds, " AND ")
	}
	chosen += " ORDER BY r.recorded_at DESC, r.id DESC"
	if f.Limit > 0 {
		chosen += " LIMIT ?"
		args = append(args, f.Limit)
	}
	join := "LEFT JOIN scenarios s ON s.run_id = r.id"
	if f.Scenario != "" {
		join += " AND s.name = ?"
		args = append(args, f.Scenario)
	}
	query := `SELECT r.run_key, r.recorded_at, r.commit_sha, r.branch, r.ci, r.url, r.report_url, COUNT(s.id),
		COALESCE(SUM(CASE WHEN s.status = 'fail' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN s.status = 'flaky' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN s.status = 'error' THEN 1 ELSE 0 END), 0),
		(SELECT COUNT(*) FROM configs c WHERE c.run_id = r.id),
		(SELECT COALESCE(SUM(c.trials), 0) FROM configs c WHERE c.run_id = r.id),
		(SELECT COALESCE(SUM(c.failed), 0) FROM configs c WHERE c.run_id = r.id)
		FROM (` + chosen + `) r ` + join + `
		GROUP BY r.id, r.run_key, r.recorded_at, r.commit_sha, r.branch, r.ci, r.url, r.report_url
		ORDER BY r.recorded_at DESC, r.id DESC`
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	defer rows.Close()
	var out []RunSummary
	for rows.Next() {
		var r RunSummary
		var ms int64
		if err := rows.Scan(&r.Key, &ms, &r.Commit, &r.Branch, &r.CI, &r.URL, &r.ReportURL, &r.Scenarios, &r.Failed, &r.Flaky, &r.Errored,
			&r.Configs, &r.Trials, &r.FailedTrials); err != nil {
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
		r.Time = time.UnixMilli(ms).UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	return out, nil
}

// hexPrefix is what a commit reference looks like: 4 to 40 hex digits.
var hexPrefix = lazyre.New(`^[0-9a-fA-F]{4,40}$`)

// Baseline returns the figures of the latest run of branch ref, or, when
// no run has that branch, of the latest run of the commit ref (a full
// hash or a prefix of at least 4 digits), as a baseline of kind
// "scenario": what "check -write-baseline" would have written in that run.
// It also returns the run's key. A reference that names no run, or a
// prefix of several commits, is an error listing what was recorded.
func (s *Store) Baseline(ctx context.Context, ref string) (*report.Baseline, string, error) {
	if ref == "" {
		return nil, "", fmt.Errorf("history %s: no branch or commit given (expected DB@BRANCH or DB@COMMIT)", s.name)
	}
	id, key, err := s.latestRun(ctx, `branch = ?`, ref)
	if err == sql.ErrNoRows && hexPrefix().MatchString(ref) {
		var commits []string
		commits, err = s.strings(ctx, `SELECT DISTINCT commit_sha FROM runs WHERE LOWER(commit_sha) LIKE ? ORDER BY commit_sha LIMIT 5`, strings.ToLower(ref)+"%")
		switch {
		case err != nil:
		case len(commits) > 1:
			return nil, "", fmt.Errorf("history %s: commit %s is ambiguous: %s", s.name, ref, strings.Join(commits, ", "))
		case len(commits) == 1:
			id, key, err = s.latestRun(ctx, `commit_sha = ?`, commits[0])
		default:
			err = sql.ErrNoRows
		}
	}
	if err == sql.ErrNoRows {
		branches, _ := s.strings(ctx, `SELECT branch FROM runs WHERE branch <> '' GROUP BY branch ORDER BY MAX(recorded_at) DESC LIMIT 10`)
		known := "no run has a branch"
		if len(branches) > 0 {
			known = "branches recorded: " + strings.Join(branches, ", ")
		}
		return nil, "", fmt.Errorf("history %s: no run of branch or commit %q (%s)", s.name, ref, known)
	}
	if err != nil {
		return nil, "", fmt.Errorf("history %s: %w", s.name, err)
	}
	b := report.NewBaseline("scenario")
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT name, figures FROM scenarios WHERE run_id = ?`), id)
	if err != nil {
		return nil, "", fmt.Errorf("history %s: %w", s.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, figs string
		if err := rows.Scan(&name, &figs); err != nil {
			return nil, "", fmt.Errorf("history %s: %w", s.name, err)
		}
		m, err := decodeFigures(figs)
		if err != nil {
			return nil, "", fmt.Errorf("history %s: run %s, scenario %s: %w", s.name, key, name, err)
		}
		if len(m) > 0 {
			b.Entries[name] = m
		}
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("history %s: %w", s.name, err)
	}
	return b, key, nil
}

func (s *Store) latestRun(ctx context.Context, cond string, arg any) (int64, string, error) {
	var id int64
	var key string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id, run_key FROM runs WHERE `+cond+` ORDER BY recorded_at DESC, id DESC LIMIT 1`), arg).Scan(&id, &key)
	return id, key, err
}

func (s *Store) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func decodeFigures(s string) (map[string]float64, error) {
	var m map[string]float64
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("figures %.40q: %w", s, err)
	}
	return m, nil
}

// A FlakyExpectation is an expectation whose outcome changed across runs
// of the same traces and settings.
type FlakyExpectation struct {
	Scenario string
	// Position is the expectation's index in its scenario file, from 0.
	Position    int
	Type        string
	Description string
	TraceDigest string
	// Passed of Judged runs passed it (skipped runs are not judged).
	Passed, Judged int
	// Runs is how many runs of the window recorded it.
	Runs int
}

// PassRate is Passed / Judged.
func (f FlakyExpectation) PassRate() float64 { return float64(f.Passed) / float64(f.Judged) }

// Flaky lists the expectations that both passed and failed over the last
// window runs (of branch, when it is not ""), among the runs that read the
// same traces (same trace digest) under the same settings (same type,
// parameters, ground truth and runs rule); an expectation marked flaky that
// failed counts as failed. They are sorted by pass rate, then scenario.
func (s *Store) Flaky(ctx context.Context, branch string, window int) ([]FlakyExpectation, error) {
	if window < 1 {
		return nil, fmt.Errorf("history %s: a window of %d runs (expected 1 or more)", s.name, window)
	}
	sub := `SELECT id FROM runs`
	var args []any
	if branch != "" {
		sub += ` WHERE branch = ?`
		args = append(args, branch)
	}
	sub += ` ORDER BY recorded_at DESC, id DESC LIMIT ?`
	args = append(args, window)
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT s.name, e.position, e.type, e.description, s.trace_digest, e.settings_digest,
		COUNT(*), COALESCE(SUM(CASE WHEN e.status = 'pass' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN e.status IN ('fail', 'flaky') THEN 1 ELSE 0 END), 0)
		FROM expectations e JOIN scenarios s ON e.scenario_id = s.id
		WHERE s.run_id IN (`+sub+`) AND s.trace_digest <> ''
		GROUP BY s.name, e.position, e.type, e.description, s.trace_digest, e.settings_digest`), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	defer rows.Close()
	var out []FlakyExpectation
	for rows.Next() {
		var f FlakyExpectation
		var settings string
		var failed int
		if err := rows.Scan(&f.Scenario, &f.Position, &f.Type, &f.Description, &f.TraceDigest, &settings, &f.Runs, &f.Passed, &failed); err != nil {
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
		if f.Passed > 0 && failed > 0 {
			f.Judged = f.Passed + failed
			out = append(out, f)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	slices.SortFunc(out, func(a, b FlakyExpectation) int {
		if c := a.PassRate() - b.PassRate(); c != 0 {
			if c < 0 {
				return -1
			}
			return 1
		}
		if a.Scenario != b.Scenario {
			return strings.Compare(a.Scenario, b.Scenario)
		}
		return a.Position - b.Position
	})
	return out, nil
}
