//go:build !noparquet

package runs

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// ParquetLinked reports whether this build has the Parquet library that
// writes and reads TrialsFile. A build made with -tags noparquet (the
// release's lean retrievaltest) leaves it out and fails with ErrNoParquet.
const ParquetLinked = true

// A trialTable writes TrialsFile one entry at a time.
type trialTable struct {
	w      *parquet.Writer
	schema *parquet.Schema
	// field is the column of each of trialColumns, metricCol the column
	// of each metric by its number in the names the table was made with,
	// warnings the column of the warnings.
	field     []int
	metricCol []int
	warnings  int
	slots     []parquet.Value // one value per column but the warnings
	row       parquet.Row
	n         int
}

// newTrialTable starts the table of trials whose figures are named
// metrics (a trialRec's values are numbered by their place in it).
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
	group[warningsColumn] = parquet.Repeated(parquet.String())
	for _, m := range metrics {
		if _, taken := group[m]; taken {
			return nil, fmt.Errorf("the metric %q has the name of a column of %s", m, TrialsFile)
		}
		group[m] = parquet.Optional(parquet.Leaf(parquet.DoubleType))
	}
	schema := parquet.NewSchema("trial", group)
	index := map[string]int{}
	for i, path := range schema.Columns() {
		index[path[0]] = i
	}
	t := &trialTable{schema: schema, warnings: index[warningsColumn], slots: make([]parquet.Value, len(index))}
	for _, c := range trialColumns {
		t.field = append(t.field, index[c.name])
	}
	for _, m := range metrics {
		t.metricCol = append(t.metricCol, index[m])
	}
	t.w = parquet.NewWriter(out, schema, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(trialRowsPerGroup),
		// A page of a row group's doubles fits in 32 KiB: the default
		// buffer of 256 KiB per column holds, for a hundred columns, more
		// than the rows themselves.
		parquet.PageBufferSize(trialRowsPerGroup*8))
	return t, nil
}

// level is v (nil for null) as the value of column i.
func level(v any, optional bool, i int) parquet.Value {
	switch {
	case v == nil:
		return parquet.Value{}.Level(0, 0, i)
	case optional:
		return parquet.ValueOf(v).Level(0, 1, i)
	}
	return parquet.ValueOf(v).Level(0, 0, i)
}

// addRec writes the row of one entry of configuration config, its values
// numbered as the table's metrics.
func (t *trialTable) addRec(config string, r *trialRec) error {
	e := &r.entry
	for j, c := range trialColumns {
		t.slots[t.field[j]] = level(c.value(config, e), c.optional, t.field[j])
	}
	for _, col := range t.metricCol {
		t.slots[col] = parquet.Value{}.Level(0, 0, col)
	}
	for _, v := range r.values {
		if int(v.id) >= len(t.metricCol) {
			return fmt.Errorf("entry %s: figure number %d of %d", e.Name, v.id, len(t.metricCol))
		}
		col := t.metricCol[v.id]
		t.slots[col] = parquet.ValueOf(v.v).Level(0, 1, col)
	}
	t.row = t.row[:0]
	for col, v := range t.slots {
		if col != t.warnings {
			t.row = append(t.row, v)
			continue
		}
		if len(e.Warnings) == 0 {
			t.row = append(t.row, parquet.Value{}.Level(0, 0, col))
		}
		for k, w := range e.Warnings {
			t.row = append(t.row, parquet.ValueOf(w).Level(min(k, 1), 1, col))
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

// readTrialTable reads the entries of a table TrialsFile, one row at a
// time, calling f with the row's number (from 1), its configuration and
// its entry, until f returns an error, which it returns. A column the
// table must have that is missing, or one that is neither a field of an
// entry nor a figure (a double), is an error naming the file.
func readTrialTable(file string, f func(row int, config string, e *TaskEntry) error) error {
	r, err := input.Open(file, maxInput.Or(input.TraceLimit))
	if err != nil {
		return err
	}
	defer r.Close()
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return fmt.Errorf("trials table %s: not a file that can be read at offsets", file)
	}
	info, err := input.Stat(file)
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(ra, info.Size())
	if err != nil {
		return fmt.Errorf("trials table %s: %w", file, err)
	}
	const (
		colConfig = iota
		colName
		colTask
		colTrial
		colBatch
		colStatus
		colReason
		colReward
		colModel
		colTraceSource
		colEventsFile
		colMetricsFile
		colWarnings
		colFigure
	)
	fields := map[string]int{}
	for j, c := range trialColumns {
		fields[c.name] = j
	}
	fields[warningsColumn] = colWarnings
	columns := pf.Schema().Columns()
	kind := make([]int, len(columns))
	names := make([]string, len(columns))
	for i, path := range columns {
		names[i] = path[len(path)-1]
		leaf, _ := pf.Schema().Lookup(path...)
		if k, ok := fields[names[i]]; ok && len(path) == 1 {
			kind[i] = k
			delete(fields, names[i])
			continue
		}
		if len(path) != 1 || leaf.Node.Type().Kind() != parquet.Double {
			return fmt.Errorf("trials table %s: column %q is neither a field of an entry nor a figure (a double)", file, strings.Join(path, "."))
		}
		kind[i] = colFigure
	}
	for _, name := range []string{"config", "name", "task", "status"} {
		if _, missing := fields[name]; missing {
			return fmt.Errorf("trials table %s: no column %q", file, name)
		}
	}
	figures := 0
	for _, k := range kind {
		if k == colFigure {
			figures++
		}
	}
	// A row's configuration, batch and status are most often the last
	// row's: that string is given again rather than a copy.
	var lastConfig, lastBatch, lastStatus string
	same := func(last *string, b []byte) string {
		if string(b) != *last {
			*last = string(b)
		}
		return *last
	}
	rd := parquet.NewReader(pf)
	defer rd.Close()
	rows := make([]parquet.Row, 64)
	n := 0
	for {
		k, err := rd.ReadRows(rows)
		for _, row := range rows[:k] {
			n++
			var config string
			e := TaskEntry{Values: make(map[string]float64, figures)}
			for _, v := range row {
				col := v.Column()
				if v.IsNull() {
					continue
				}
				str := func() string { return string(v.ByteArray()) }
				switch kind[col] {
				case colConfig:
					config = same(&lastConfig, v.ByteArray())
				case colName:
					e.Name = str()
				case colTask:
					e.Task = str()
				case colTrial:
					e.Trial = str()
				case colBatch:
					e.Batch = same(&lastBatch, v.ByteArray())
				case colStatus:
					e.Status = TaskStatus(same(&lastStatus, v.ByteArray()))
				case colReason:
					e.Reason = str()
				case colReward:
					x := v.Double()
					e.Reward = &x
				case colModel:
					e.Model = str()
				case colTraceSource:
					x := str()
					e.TraceSource = &x
				case colEventsFile:
					e.EventsFile = str()
				case colMetricsFile:
					e.MetricsFile = str()
				case colWarnings:
					e.Warnings = append(e.Warnings, str())
				case colFigure:
					e.Values[names[col]] = v.Double()
				}
			}
			if !slices.Contains(statuses, e.Status) {
				return fmt.Errorf("trials table %s: row %d: status %q is not one of %v", file, n, e.Status, statuses)
			}
			if err := f(n, config, &e); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("trials table %s: row %d: %w", file, n+1, err)
		}
	}
}
