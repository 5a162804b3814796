package runs

import "errors"

// TrialsFile is the per-trial table run-dir and merge write beside the
// run summary: one row per trial, the summary's entries as columns, for
// DuckDB, pandas, Polars or Spark to read directly.
const TrialsFile = "run_retrieval_trials.parquet"

// trialColumns are the columns of TrialsFile other than the figures, in
// the order of the table; the figures follow, one column per metric name
// (a double, null where the trial has no value), sorted by name.
var trialColumns = []struct {
	name     string
	optional bool
	value    func(config string, e *TaskEntry) any
}{
	{"config", false, func(c string, _ *TaskEntry) any { return c }},
	{"name", false, func(_ string, e *TaskEntry) any { return e.Name }},
	{"task", false, func(_ string, e *TaskEntry) any { return e.Task }},
	{"trial", true, func(_ string, e *TaskEntry) any { return orNil(e.Trial) }},
	{"batch", true, func(_ string, e *TaskEntry) any { return orNil(e.Batch) }},
	{"status", false, func(_ string, e *TaskEntry) any { return string(e.Status) }},
	{"reason", true, func(_ string, e *TaskEntry) any { return orNil(e.Reason) }},
	{"reward", true, func(_ string, e *TaskEntry) any {
		if e.Reward == nil {
			return nil
		}
		return *e.Reward
	}},
	{"model", true, func(_ string, e *TaskEntry) any { return orNil(e.Model) }},
	{"trace_source", true, func(_ string, e *TaskEntry) any {
		if e.TraceSource == nil {
			return nil
		}
		return *e.TraceSource
	}},
	{"events_file", true, func(_ string, e *TaskEntry) any { return orNil(e.EventsFile) }},
	{"metrics_file", true, func(_ string, e *TaskEntry) any { return orNil(e.MetricsFile) }},
}

func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// warningsColumn is the column of an entry's warnings: a list of
// strings, empty when it has none.
const warningsColumn = "warnings"

// trialRowsPerGroup bounds the rows a writer holds before it writes them
// out as a row group: the table's memory does not grow with the run.
const trialRowsPerGroup = 4096

// ErrNoParquet is the error of writing or reading TrialsFile in a build
// made with -tags noparquet, which links no Parquet library (see
// ParquetLinked).
var ErrNoParquet = errors.New("this build of retrievaltest has no Parquet library (it would slow down every command's start); " +
	"the release's retrievaltest hands run-dir, merge, report and compare to retrievaltest-clouds, " +
	"which it looks for beside itself and on PATH: install it, or build the command without -tags noparquet")
