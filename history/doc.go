// Package history keeps the results of check runs and of evaluated
// benchmark runs across commits, branches and CI runs, in a SQLite file or
// a PostgreSQL database, and reads them back: runs listed, figures as
// trends, the latest run of a branch as a baseline, and the expectations
// whose outcome changes on unchanged traces.
//
// It is the store behind "retrievaltest check -history", "run-dir
// -history", "merge -history", "retrievaltest history" and "retrievaltest
// trend"; docs/history.md is the user's guide.
// The library packages (retrievaltest, report, …) do not import it, so a
// program that only runs scenarios links no database driver.
//
// # Databases
//
// Open takes the path of a SQLite file, created when absent and written
// through modernc.org/sqlite (pure Go: no C compiler, no cgo), or a
// postgres:// URL, reached through pgx. Open brings the schema to this
// build's version with goose, from the versioned SQL files embedded under
// migrations/ (one folder per database); migrations of one database by
// several processes at once are serialized (an advisory lock on PostgreSQL,
// a lock row on SQLite). A database whose schema is newer than the build is
// refused.
//
// # Schema
//
//	runs           (id, run_key UNIQUE, recorded_at [Unix ms], commit_sha, branch, ci, url, report_url,
//	                evaluated [an evaluated run's own id])
//	scenarios      (id, run_id → runs, name, file, status, trace_digest, figures [JSON object], UNIQUE (run_id, name))
//	expectations   (scenario_id → scenarios, position, type, description, status, flaky_marked,
//	                measured, threshold, runs_passed, runs_judged, settings_digest)
//	configs        (id, run_id → runs, name, trials, tasks, computable, non_computable, degraded, failed,
//	                UNIQUE (run_id, name))
//	config_figures (config_id → configs, figure, n, mean, median, std, ci_low, ci_high,
//	                wilson_low, wilson_high [NULL but for a proportion], PRIMARY KEY (config_id, figure))
//
// A check run fills scenarios and expectations; an evaluated run (run-dir,
// merge: a runs.Summary, see Configs) fills configs and config_figures,
// one row per figure with its statistics over tasks, the verifier's reward
// under RewardFigure. Version 2 of the schema added the last two tables.
//
// Statuses are the check report's: pass, fail, flaky (a failure of an
// expectation marked flaky), skipped, and error (a scenario that could not
// be checked). A figure with no value is absent from its scenario's JSON,
// never 0.
//
// # Writing
//
// Store.Record writes a Run in one transaction, so a process killed while
// writing leaves nothing of its run. The run's Key (a CI run id; see
// DetectRun) makes writing idempotent: runs written under one key add up
// (the shards of a CI run), and a scenario or a configuration written
// again under the same key replaces the earlier one. Rows go in many to a
// statement.
//
// # Reading
//
// Store.Runs lists runs by branch, scenario and time; Store.Baseline gives
// the figures of the latest run of a branch or commit as a report.Baseline;
// Store.Trend gathers figures over a branch's latest runs (the mean over
// each run's scenarios, or one scenario's, and each configuration's with
// its interval), which Trend.WriteMarkdown draws as sparklines and
// Trend.WriteHTML as a page of charts with the expectations' thresholds;
// Store.Flaky finds the expectations that both passed and failed on the
// same trace digest under the same settings digest.
//
// Trend reads only the figures it shows: the database picks them out of
// each scenario's JSON (SQLite's json_extract, PostgreSQL's jsonb) and
// averages them, and a configuration's are rows of their own. The
// thresholds come from the expectations' measured and threshold texts
// ("recall@5 = 0.40" against "≥ 0.50"), as the check report words them, so
// runs recorded before they were drawn draw theirs too.
package history
