package runs

import (
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"
)

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

// trialRowsPerGroup bounds the rows a writer holds before it writes them
// out as a row group: the table's memory does not grow with the run.
const trialRowsPerGroup = 4096

// A trialTable writes TrialsFile one entry at a time.
type trialTable struct {
	w       *parquet.Writer
	schema  *parquet.Schema
	index   map[string]int // a column's name to its index in the schema
	metrics []string
	row     parquet.Row
	n       int
}

// newTrialTable starts the table of trials whose figures are named
// metrics.
func newTrialTable(out io.Writer, metrics []string) (*trialTable, error) {
	group := parquet.Group{}
	for _, c := range trialColumns {
		node := parquet.String()
		if c.name == "reward" {
			node = parquet.Leaf(parquet.DoubleType)
		}
		if c.optional {
			node = parquet.Optional(node)
		}
		group[c.name] = node
	}
	metrics = slices.Sorted(slices.Values(metrics))
	for _, m := range metrics {
		if _, taken := group[m]; taken {
			return nil, fmt.Errorf("the metric %q has the name of a column of %s", m, TrialsFile)
		}
		group[m] = parquet.Optional(parquet.Leaf(parquet.DoubleType))
	}
	schema := parquet.NewSchema("trial", group)
	t := &trialTable{schema: schema, index: map[string]int{}, metrics: metrics}
	for i, path := range schema.Columns() {
		t.index[path[0]] = i
	}
	t.w = parquet.NewWriter(out, schema, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(trialRowsPerGroup),
		// A page of a row group's doubles fits in 32 KiB: the default
		// buffer of 256 KiB per column holds, for a hundred columns, more
		// than the rows themselves.
		parquet.PageBufferSize(trialRowsPerGroup*8))
	t.row = make(parquet.Row, len(schema.Columns()))
	return t, nil
}

// set puts v (nil for null) in column name of the row.
func (t *trialTable) set(name string, v any, optional bool) {
	i := t.index[name]
	switch {
	case v == nil:
		t.row[i] = parquet.Value{}.Level(0, 0, i)
	case optional:
		t.row[i] = parquet.ValueOf(v).Level(0, 1, i)
	default:
		t.row[i] = parquet.ValueOf(v).Level(0, 0, i)
	}
}

// add writes the row of one entry.
func (t *trialTable) add(config string, e *TaskEntry) error {
	for _, c := range trialColumns {
		t.set(c.name, c.value(config, e), c.optional)
	}
	for _, m := range t.metrics {
		if v, ok := e.Values[m]; ok {
			t.set(m, v, true)
		} else {
			t.set(m, nil, true)
		}
	}
	if _, err := t.w.WriteRows([]parquet.Row{t.row}); err != nil {
		return err
	}
	t.n++
	if t.n%trialRowsPerGroup == 0 {
		return t.w.Flush()
	}
	return nil
}

// close writes what is buffered and the file's footer.
func (t *trialTable) close() error { return t.w.Close() }
