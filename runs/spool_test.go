package runs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spoolEntries are entries of every status, in two configurations, with
// tasks run several times, names whose order is not the order given, a
// name with characters HTML escaping would change, values whose sum
// depends on the order they are added in, and rewards on some.
func spoolEntries() map[string][]TaskEntry {
	r := rand.New(rand.NewPCG(3, 4))
	out := map[string][]TaskEntry{}
	for _, config := range []string{"mcp-z", "baseline-a"} {
		for i := range 60 {
			task := []string{"fix-<auth>&x", "b-task", "a/task", "task-0", "task-00"}[i%5]
			e := TaskEntry{
				Name: task + "__" + string(rune('a'+i%26)) + string(rune('0'+i/26)), Task: task, Trial: "t", Status: Computable,
				Values: map[string]float64{"mrr": r.Float64() * 1e-3, "recall@5": 0.1 + r.Float64(), "total_calls": float64(r.IntN(9))},
			}
			switch i % 7 {
			case 3:
				e.Status, e.Reason, e.Values = Degraded, "no usable trace", map[string]float64{}
			case 4:
				e.Status, e.Reason, e.Values = NonComputable, "no task folder", map[string]float64{"index.semantic_ratio": 0.5}
			case 5:
				e.Status, e.Reason, e.Values = Failed, "result.json cannot be read", map[string]float64{}
			}
			if i%3 == 0 {
				e.Reward = ptr(r.Float64())
			}
			out[config] = append(out[config], e)
		}
		r.Shuffle(len(out[config]), func(i, j int) { out[config][i], out[config][j] = out[config][j], out[config][i] })
	}
	return out
}

// spoolFiles writes the summary and the table of a spool into a new
// folder and returns the summary returned and the folder.
func spoolFiles(t *testing.T, sp *spool, runID string, k *keep) (*Summary, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := sp.writeFiles(filepath.Join(dir, SummaryFile), filepath.Join(dir, TrialsFile), runID, k)
	require.NoError(t, err)
	return s, dir
}

// asFile is the summary s as a file of schema 2.0 holds it.
func asFile(s *Summary) *Summary {
	out := s.withoutEntries()
	out.SchemaVersion = SummarySchemaVersion
	out.Trials = &TableRef{File: TrialsFile, Format: "parquet", Rows: s.trialCount()}
	return out
}

// The spool writes the summary Summarize gives for the same entries,
// whatever the order they come in: the file holds its statistics, counts
// and names, byte for byte as WriteSummary writes them without the
// entries, and the table beside it the entries, read back equal.
func TestASpooledSummaryIsTheSummaryOfItsEntries(t *testing.T) {
	t.Parallel()
	entries := spoolEntries()
	entries["mcp-z"][2].Warnings = []string{"agent/trajectory.json is not usable", "a second warning"}
	want := Summarize("run-<1>", entries)
	sp, err := newSpool()
	require.NoError(t, err)
	defer sp.Close()
	for _, config := range []string{"mcp-z", "baseline-a"} {
		for i := range entries[config] {
			require.NoError(t, sp.add(config, &entries[config][i], nil))
		}
	}
	s, dir := spoolFiles(t, sp, "run-<1>", nil)
	file := filepath.Join(t.TempDir(), SummaryFile)
	require.NoError(t, WriteSummary(file, asFile(want)))
	assert.Equal(t, mustRead(t, file), mustRead(t, filepath.Join(dir, SummaryFile)))
	assert.NotContains(t, mustRead(t, file), `"tasks"`)
	wantBack := *want
	wantBack.SchemaVersion, wantBack.Trials = SummarySchemaVersion, &TableRef{File: TrialsFile, Format: "parquet", Rows: 120}
	assert.Equal(t, &wantBack, s, "the summary returned is the one written, with its entries")
	back, err := ReadSummary(filepath.Join(dir, SummaryFile))
	require.NoError(t, err)
	assert.Equal(t, &wantBack, back, "the summary read back has its entries from the table")
}

func TestASpoolWithoutEntriesWritesAnEmptySummary(t *testing.T) {
	t.Parallel()
	sp, err := newSpool()
	require.NoError(t, err)
	defer sp.Close()
	_, dir := spoolFiles(t, sp, "r", nil)
	file := filepath.Join(t.TempDir(), SummaryFile)
	require.NoError(t, WriteSummary(file, asFile(Summarize("r", nil))))
	assert.Equal(t, mustRead(t, file), mustRead(t, filepath.Join(dir, SummaryFile)))
	back, err := ReadSummary(filepath.Join(dir, SummaryFile))
	require.NoError(t, err)
	assert.Empty(t, back.Configs)
}

// With replace, an entry spooled again under its name replaces the
// first; without, both stay, as Summarize keeps them.
func TestASpooledEntryIsReplacedByItsName(t *testing.T) {
	t.Parallel()
	sp, err := newSpool()
	require.NoError(t, err)
	defer sp.Close()
	sp.replace = true
	a := TaskEntry{Name: "a", Task: "a", Status: Computable, Values: map[string]float64{"mrr": 1}}
	b := TaskEntry{Name: "b", Task: "b", Status: Computable, Values: map[string]float64{"mrr": 0}}
	require.NoError(t, sp.add("c", &a, nil))
	require.NoError(t, sp.add("c", &b, nil))
	failed := TaskEntry{Name: "a", Task: "a", Status: Failed, Reason: "artifact cannot be written", Values: map[string]float64{}}
	require.NoError(t, sp.add("c", &failed, nil))
	s, _ := spoolFiles(t, sp, "r", nil)
	want := Summarize("r", map[string][]TaskEntry{"c": {failed, b}})
	want.SchemaVersion, want.Trials = SummarySchemaVersion, &TableRef{File: TrialsFile, Format: "parquet", Rows: 2}
	assert.Equal(t, want, s)

	both, err := newSpool()
	require.NoError(t, err)
	defer both.Close()
	for _, e := range []*TaskEntry{&a, &b, &failed} {
		require.NoError(t, both.add("c", e, nil))
	}
	s, _ = spoolFiles(t, both, "r", nil)
	assert.Equal(t, 3, s.Configs[0].Trials)
}

// With SummaryValues, Evaluate returns entries that keep only those
// figures; the file holds them all.
func TestEvaluateKeepsTheSummaryValuesItIsAskedFor(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	s, err := Evaluate(context.Background(), miniRun, Options{GroundTruthRoot: miniGT, Out: out, SummaryValues: []string{"mrr", "no-such-metric"}})
	require.NoError(t, err)
	full, err := ReadSummary(filepath.Join(out, SummaryFile))
	require.NoError(t, err)
	kept := 0
	for i, c := range s.Configs {
		assert.Equal(t, full.Configs[i].Metrics, c.Metrics)
		for j, e := range c.Entries {
			fe := full.Configs[i].Entries[j]
			if v, ok := fe.Values["mrr"]; ok {
				assert.Equal(t, map[string]float64{"mrr": v}, e.Values)
				assert.Greater(t, len(fe.Values), 1)
				kept++
			} else {
				assert.Empty(t, e.Values)
			}
			e.Values, fe.Values = nil, nil
			assert.Equal(t, fe, e)
		}
	}
	assert.Positive(t, kept)
}

// A summary returned without its entries gives, per task, what the
// summary of the same entries gives (for the metrics it was asked to
// keep): the statuses, rewards and values Compare pairs, to the last bit;
// its failed entries; and, read back from the file one at a time, every
// entry.
func TestASummaryWithoutEntriesKeepsWhatComparisonsNeed(t *testing.T) {
	t.Parallel()
	entries := spoolEntries()
	for i := range 7 {
		entries["mcp-z"][i].Model = "model-b"
	}
	entries["baseline-a"][0].Model = "model-a"
	want := Summarize("run", entries)
	sp, err := newSpool()
	require.NoError(t, err)
	defer sp.Close()
	for _, config := range []string{"mcp-z", "baseline-a"} {
		for i := range entries[config] {
			require.NoError(t, sp.add(config, &entries[config][i], nil))
		}
	}
	kept := []string{"mrr", "recall@5", "not-a-metric"}
	got, _ := spoolFiles(t, sp, "run", keepOf(kept, true))
	require.Len(t, got.Configs, 2)
	for i, c := range got.Configs {
		w := want.Configs[i]
		assert.Nil(t, c.Entries)
		assert.Equal(t, w.Metrics, c.Metrics)
		assert.Equal(t, w.TaskRewards(), c.TaskRewards(), c.Config)
		wantValues := w.TaskValues()
		for task, vs := range wantValues {
			delete(vs, "total_calls") // not kept
			delete(vs, "index.semantic_ratio")
			wantValues[task] = vs
		}
		assert.Equal(t, wantValues, c.TaskValues(), c.Config)
		wantStatus := w.TaskStatuses()
		for task, e := range wantStatus {
			wantStatus[task] = TaskEntry{Task: task, Status: e.Status, Reason: e.Reason}
		}
		assert.Equal(t, wantStatus, c.TaskStatuses(), c.Config)
		assert.Equal(t, w.modelNames(), c.modelNames())
	}
	assert.Equal(t, []string{"model-b"}, got.Configs[1].modelNames())
	assert.Equal(t, want.FailedEntries(), got.FailedEntries())
	assert.NotEmpty(t, got.FailedEntries())
	assert.Equal(t, want.FailedError(), got.FailedError())

	wc, err := Compare(want, "baseline-a", "mcp-z", []string{"mrr", "recall@5"})
	require.NoError(t, err)
	gc, err := Compare(got, "baseline-a", "mcp-z", []string{"mrr", "recall@5"})
	require.NoError(t, err)
	assert.Equal(t, wc, gc)

	var read []TaskEntry
	var configs []string
	require.NoError(t, got.EachEntry(func(c *ConfigSummary, e *TaskEntry) error {
		read = append(read, *e)
		configs = append(configs, c.Config)
		return nil
	}))
	var all []TaskEntry
	var wantConfigs []string
	require.NoError(t, want.EachEntry(func(c *ConfigSummary, e *TaskEntry) error {
		all = append(all, *e)
		wantConfigs = append(wantConfigs, c.Config)
		return nil
	}))
	assert.Len(t, all, 120)
	assert.Equal(t, all, read)
	assert.Equal(t, wantConfigs, configs)

	stop := errors.New("stop")
	n := 0
	assert.ErrorIs(t, got.EachEntry(func(*ConfigSummary, *TaskEntry) error { n++; return stop }), stop)
	assert.Equal(t, 1, n, "the first error ends the reading")
}

// A summary returned without its entries reads them back from the
// spool, not from the table written beside it: replacing or damaging the
// table changes nothing, even once the spool is closed. ReadSummary reads
// the table, and says so when it no longer holds the run it was written
// with.
func TestEachEntryReadsTheSpoolNotTheTable(t *testing.T) {
	t.Parallel()
	e := TaskEntry{Name: "a", Task: "a", Status: Computable, Values: map[string]float64{"mrr": 1}, Warnings: []string{"w"}}
	write := func(entries map[string][]TaskEntry) (*Summary, string) {
		sp, err := newSpool()
		require.NoError(t, err)
		defer sp.Close()
		for _, config := range slices.Sorted(maps.Keys(entries)) {
			for i := range entries[config] {
				require.NoError(t, sp.add(config, &entries[config][i], nil))
			}
		}
		return spoolFiles(t, sp, "r", keepOf(nil, true))
	}
	s, dir := write(map[string][]TaskEntry{"c": {e}})
	table := filepath.Join(dir, TrialsFile)
	var got []TaskEntry
	each := func() error {
		got = nil
		return s.EachEntry(func(c *ConfigSummary, e *TaskEntry) error {
			assert.Equal(t, "c", c.Config)
			got = append(got, *e)
			return nil
		})
	}
	require.NoError(t, each())
	assert.Equal(t, []TaskEntry{e}, got)
	read := func() error {
		_, err := ReadSummary(filepath.Join(dir, SummaryFile))
		return err
	}
	require.NoError(t, read())

	replace := func(entries map[string][]TaskEntry) {
		_, other := write(entries)
		require.NoError(t, os.WriteFile(table, []byte(mustRead(t, filepath.Join(other, TrialsFile))), 0o644))
	}
	f := e
	f.Name = "b"
	replace(map[string][]TaskEntry{"other": {e}})
	assert.ErrorContains(t, read(), table+`: row 1 is of configuration "other", where the summary has an entry of "c"`)
	replace(map[string][]TaskEntry{"c": {e, f}})
	assert.ErrorContains(t, read(), table+": row 2: more rows than the summary's 1 entries")
	replace(map[string][]TaskEntry{})
	assert.ErrorContains(t, read(), table+": 0 rows, fewer than the summary's 1 entries")
	require.NoError(t, os.WriteFile(table, []byte("not a table"), 0o644))
	assert.ErrorContains(t, read(), "trials table "+table)
	require.NoError(t, each())
	assert.Equal(t, []TaskEntry{e}, got, "the table is not read")

	// A summary whose configurations were changed, or a spool damaged,
	// is an error, not a wrong entry.
	s.Configs = append(s.Configs, &ConfigSummary{Config: "d"})
	assert.ErrorContains(t, each(), "the spool holds the entries of 1 configurations, the summary has 2")
	s.Configs = s.Configs[:1]
	file := s.spooled.file
	var rec bytes.Buffer
	_, err := io.Copy(&rec, io.NewSectionReader(file, 0, 1<<20))
	require.NoError(t, err)
	s.spooled.file = bytes.NewReader(rec.Bytes()[:rec.Len()-1])
	assert.ErrorContains(t, each(), "the spool's entry at 0 of configuration c: ")
	damaged := slices.Clone(rec.Bytes())
	damaged[len(damaged)-1] = 9 // the curve's count, past the record's end
	s.spooled.file = bytes.NewReader(damaged)
	assert.ErrorContains(t, each(), "the spool's entry at 0 of configuration c: a count or number of 9")
	s.spooled.file = file
	stop := errors.New("stop")
	assert.ErrorIs(t, s.EachEntry(func(*ConfigSummary, *TaskEntry) error { return stop }), stop)
}

// The statistics of a configuration are computed apart from the pass over
// its entries (so that they overlap the next configuration's pass): the
// summary of many configurations, of as many lengths, written with or
// without its entries, is still Summarize's, byte for byte.
func TestTheStatisticsOfEachConfigurationAreItsOwn(t *testing.T) {
	t.Parallel()
	base := spoolEntries()["mcp-z"]
	entries := map[string][]TaskEntry{}
	for k, config := range []string{"c1", "c2", "c3", "c4", "c5"} {
		for i, e := range base[:20+8*k] {
			e.Values = maps.Clone(e.Values)
			for m := range e.Values {
				e.Values[m] += float64(k*i) / 7
			}
			entries[config] = append(entries[config], e)
		}
	}
	want := Summarize("r", entries)
	file := filepath.Join(t.TempDir(), SummaryFile)
	require.NoError(t, WriteSummary(file, asFile(want)))
	for _, k := range []*keep{nil, keepOf([]string{"mrr"}, true)} {
		sp, err := newSpool()
		require.NoError(t, err)
		for _, config := range []string{"c3", "c1", "c5", "c2", "c4"} {
			for i := range entries[config] {
				require.NoError(t, sp.add(config, &entries[config][i], nil))
			}
		}
		s, dir := spoolFiles(t, sp, "r", k)
		require.NoError(t, sp.Close())
		assert.Equal(t, mustRead(t, file), mustRead(t, filepath.Join(dir, SummaryFile)))
		for i, c := range s.Configs {
			assert.Equal(t, want.Configs[i].Metrics, c.Metrics, c.Config)
			assert.Equal(t, want.Configs[i].Reward, c.Reward, c.Config)
		}
	}

	// config leaves the statistics to the function it returns.
	sp, err := newSpool()
	require.NoError(t, err)
	defer sp.Close()
	for i := range entries["c1"] {
		require.NoError(t, sp.add("c1", &entries["c1"][i], nil))
	}
	require.NoError(t, sp.w.Flush())
	c, _, stats, err := sp.config("c1", nil, nil)
	require.NoError(t, err)
	assert.Empty(t, c.Metrics)
	assert.Nil(t, c.Reward)
	stats()
	assert.Equal(t, want.Configs[0].Metrics, c.Metrics)
	assert.Equal(t, want.Configs[0].Reward, c.Reward)
}

// A summary returned without its entries holds the spool's file until it
// is closed: Close closes the file, EachEntry then fails saying so, the
// figures stay, and a second Close, or Close of a summary that holds its
// entries, does nothing.
func TestSummaryCloseReleasesTheSpoolsFile(t *testing.T) {
	t.Parallel()
	sp, err := newSpool()
	require.NoError(t, err)
	defer sp.Close()
	e := TaskEntry{Name: "a", Task: "t", Status: Computable, Values: map[string]float64{"recall@5": 0.5}}
	require.NoError(t, sp.add("c", &e, nil))
	dir := t.TempDir()
	s, err := sp.writeFiles(filepath.Join(dir, SummaryFile), filepath.Join(dir, TrialsFile), "run", &keep{None: true})
	require.NoError(t, err)
	file := sp.file
	n := 0
	require.NoError(t, s.EachEntry(func(*ConfigSummary, *TaskEntry) error { n++; return nil }))
	assert.Equal(t, 1, n)
	require.NoError(t, s.Close())
	_, err = file.Stat()
	assert.ErrorIs(t, err, os.ErrClosed, "the spool's file is closed")
	err = s.EachEntry(func(*ConfigSummary, *TaskEntry) error { n++; return nil })
	assert.ErrorIs(t, err, os.ErrClosed)
	assert.ErrorContains(t, err, "released by Close")
	assert.Equal(t, 1, n)
	assert.Equal(t, 0.5, s.Configs[0].Metrics["recall@5"].Mean, "the figures stay")
	require.NoError(t, s.Close(), "a second Close")
	assert.NoError(t, Summarize("run", map[string][]TaskEntry{"c": {e}}).Close(), "a summary holding its entries")
}
