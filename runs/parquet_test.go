package runs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/synthrun"
)

// tableRows reads TrialsFile back as one map per row: a column's
// name to its value, nil for null.
func tableRows(t *testing.T, file string) []map[string]any {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	info, err := f.Stat()
	require.NoError(t, err)
	pf, err := parquet.OpenFile(f, info.Size())
	require.NoError(t, err)
	columns := pf.Schema().Columns()
	r := parquet.NewReader(pf)
	defer r.Close()
	var out []map[string]any
	rows := make([]parquet.Row, 64)
	for {
		n, err := r.ReadRows(rows)
		for _, row := range rows[:n] {
			m := map[string]any{}
			for _, v := range row {
				name := columns[v.Column()][0]
				switch {
				case v.IsNull():
					m[name] = nil
				case v.Kind() == parquet.Double:
					m[name] = v.Double()
				default:
					m[name] = string(v.ByteArray())
				}
			}
			out = append(out, m)
		}
		if err != nil {
			break
		}
	}
	return out
}

// The table beside the summary holds one row per entry, in the summary's
// order, with every field and figure of the entry, and null where the
// entry has none.
func TestTheTrialTableHoldsEveryEntryOfTheSummary(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run, gt := filepath.Join(tmp, "run"), filepath.Join(tmp, "gt")
	_, err := synthrun.Write(run, gt, synthrun.Spec{Tasks: 10, Repeats: 2, Seed: 5, Failed: true})
	require.NoError(t, err)
	out := filepath.Join(tmp, "out")
	_, err = Evaluate(context.Background(), run, Options{GroundTruthRoot: gt, Out: out})
	require.ErrorIs(t, err, ErrTrialFailed)
	s, err := ReadSummary(filepath.Join(out, SummaryFile))
	require.NoError(t, err)
	rows := tableRows(t, filepath.Join(out, TrialsFile))

	metrics := map[string]bool{}
	var entries []struct {
		config string
		e      TaskEntry
	}
	for _, c := range s.Configs {
		for _, e := range c.Entries {
			entries = append(entries, struct {
				config string
				e      TaskEntry
			}{c.Config, e})
			for m := range e.Values {
				metrics[m] = true
			}
		}
	}
	require.Len(t, rows, len(entries))
	str := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	statuses := map[TaskStatus]bool{}
	for i, x := range entries {
		row, e := rows[i], x.e
		statuses[e.Status] = true
		assert.Equal(t, x.config, row["config"])
		assert.Equal(t, e.Name, row["name"])
		assert.Equal(t, e.Task, row["task"])
		assert.Equal(t, str(e.Trial), row["trial"])
		assert.Equal(t, str(e.Batch), row["batch"])
		assert.Equal(t, string(e.Status), row["status"])
		assert.Equal(t, str(e.Reason), row["reason"])
		assert.Equal(t, str(e.EventsFile), row["events_file"])
		assert.Equal(t, str(e.MetricsFile), row["metrics_file"])
		if e.Reward == nil {
			assert.Nil(t, row["reward"])
		} else {
			assert.Equal(t, *e.Reward, row["reward"])
		}
		if e.TraceSource == nil {
			assert.Nil(t, row["trace_source"])
		} else {
			assert.Equal(t, *e.TraceSource, row["trace_source"])
		}
		for m := range metrics {
			if v, ok := e.Values[m]; ok {
				assert.Equal(t, v, row[m], "%s %s", e.Name, m)
			} else {
				assert.Nil(t, row[m], "%s %s", e.Name, m)
			}
		}
		if len(e.Warnings) == 0 {
			assert.Nil(t, row[warningsColumn])
		} else {
			assert.Equal(t, e.Warnings[len(e.Warnings)-1], row[warningsColumn], "the last of the warnings")
		}
		assert.Len(t, row, 13+len(metrics), "one column per field, the warnings and one per metric")
	}
	assert.Len(t, statuses, 4, "rows of every status")
}
