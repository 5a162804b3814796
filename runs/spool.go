package runs

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// A spool builds a run summary from entries given one at a time, in any
// order, without holding them: each entry is written to a temporary file
// in binary (a trialRec, its figures numbered by the spool's table of
// metric names), and memory keeps per entry only its name and where it
// lies. The summary is then built configuration by configuration: the
// entries are read back in name order, once, to average each task's
// figures in the order Summarize adds them (so that the statistics are
// equal to the last bit) and to write each entry as a row of the trials'
// table. What stays in memory is about 30 bytes per trial plus its name,
// and, for one configuration at a time, one figure per task and metric:
// what the bootstrap needs.
type spool struct {
	mu   sync.Mutex
	file *os.File
	w    *bufio.Writer
	size int64
	err  error
	buf  []byte // the record being written, under mu

	configs map[string]*spoolConfig
	metric  map[string]uint32
	metrics []string
	// replace makes an entry added under a name its configuration has
	// already replace the earlier one (Evaluate, for a trial failed once
	// its artifacts could not be put in place); without it both stay.
	replace bool
	// curves says that every computable entry came with its coverage
	// curve, so that the summary can carry the configurations' curves.
	curves bool
	// handed says that a summary reads its entries from the file
	// (spooledEntries), which Close then leaves open.
	handed bool
}

type spoolConfig struct {
	recs  []spoolRec
	names []byte // the entries' names, end to end
}

// A spoolRec is where one entry lies in the spool file: 24 bytes.
type spoolRec struct {
	off     int64
	nameOff uint32
	nameLen uint32
	recLen  uint32
}

// read decodes into r the record rec locates in file, read through b,
// which it returns, grown to the record's length.
func (rec spoolRec) read(file io.ReaderAt, b []byte, r *trialRec, metrics int) ([]byte, error) {
	b = slices.Grow(b[:0], int(rec.recLen))[:rec.recLen]
	if _, err := file.ReadAt(b, rec.off); err != nil {
		return b, err
	}
	return b, decodeRec(b, r, metrics)
}

// statuses are the entry statuses, by their index in a trialRec.
var statuses = []TaskStatus{Computable, NonComputable, Degraded, Failed}

func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", "retrievaltest-summary-")
	if err != nil {
		return nil, err
	}
	// The file is only read through f; removing its name at once leaves
	// nothing behind, whatever happens.
	os.Remove(f.Name())
	return &spool{
		file: f, w: bufio.NewWriterSize(f, 1<<16),
		configs: map[string]*spoolConfig{}, metric: map[string]uint32{},
	}, nil
}

// Close releases the temporary file, unless a summary was handed it to
// read its entries from: the summary's Close then closes it (or, if it is
// not called, the file closes itself once the summary is unreachable, as
// an *os.File does). Its name removed at the start, it leaves nothing
// behind.
func (s *spool) Close() error {
	if s.handed {
		return nil
	}
	return s.file.Close()
}

// metricID is the number of a metric name in the spool's table. Called
// with s.mu held.
func (s *spool) metricID(name string) uint32 {
	id, ok := s.metric[name]
	if !ok {
		id = uint32(len(s.metrics))
		s.metric[name] = id
		s.metrics = append(s.metrics, name)
	}
	return id
}

// add spools the entry of a configuration, with its coverage curve (nil
// without one).
func (s *spool) add(config string, e *TaskEntry, curve []float64) error {
	r := trialRec{config: config, entry: *e, curve: curve}
	r.entry.Values = nil
	s.mu.Lock()
	defer s.mu.Unlock()
	// Map order does not matter: the values are summed per metric.
	for m, v := range e.Values {
		r.values = append(r.values, idValue{s.metricID(m), v})
	}
	return s.put(&r)
}

// addRec spools a record whose values are numbered by names (a shard's
// trials file's table). It renumbers r's values.
func (s *spool) addRec(r *trialRec, names []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, v := range r.values {
		r.values[i].id = s.metricID(names[v.id])
	}
	return s.put(r)
}

// put writes a record whose values are numbered by the spool's table.
// Called with s.mu held.
func (s *spool) put(r *trialRec) error {
	if s.err != nil {
		return s.err
	}
	var err error
	if s.buf, err = appendRec(s.buf[:0], r); err != nil {
		return err
	}
	c := s.configs[r.config]
	if c == nil {
		c = &spoolConfig{}
		s.configs[r.config] = c
	}
	rec := spoolRec{off: s.size, nameOff: uint32(len(c.names)), nameLen: uint32(len(r.entry.Name)), recLen: uint32(len(s.buf))}
	if _, err := s.w.Write(s.buf); err != nil {
		s.err = err
		return err
	}
	s.size += int64(len(s.buf))
	c.names = append(c.names, r.entry.Name...)
	c.recs = append(c.recs, rec)
	return nil
}

// writeFiles writes the trials' table to tablePath and the summary to
// summaryPath, atomically, in one pass over the spool: the table is put
// in place first, so that a summary on disk is never there before the
// table it points to.
func (s *spool) writeFiles(summaryPath, tablePath, runID string, keep *keep) (*Summary, error) {
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	var summary *Summary
	err := writeArtifact(tablePath, func(tw io.Writer) error {
		table, err := newTrialTable(tw, s.metrics)
		if err != nil {
			return err
		}
		if summary, err = s.summary(runID, keep, table); err != nil {
			return err
		}
		return table.close()
	})
	if err != nil {
		return nil, err
	}
	summary.Trials = &TableRef{File: filepath.Base(tablePath), Format: "parquet", Rows: summary.trialCount()}
	if err := writeArtifact(summaryPath, func(w io.Writer) error { return writeJSON(w, summary.withoutEntries()) }); err != nil {
		return nil, err
	}
	if keep != nil && keep.None {
		summary.file = summaryPath
		se := &spooledEntries{file: s.file, metrics: s.metrics}
		for _, c := range summary.Configs {
			se.recs = append(se.recs, s.configs[c.Config].recs)
		}
		summary.spooled = se
		s.handed = true
	}
	return summary, nil
}

// name is the name of an entry.
func (c *spoolConfig) name(r spoolRec) []byte { return c.names[r.nameOff : r.nameOff+r.nameLen] }

// A keep says what the summary a spool returns holds of each entry: the
// entry with all its values (a nil keep), with the values of the metrics
// Values names only, or nothing (None: no entries at all, but per task
// its best entry's status and the means of the metrics Values names, and
// the failed entries; EachEntry reads the entries back from the spool's
// file).
type keep struct {
	Values []string
	None   bool
}

// keepOf is the keep of the options of Evaluate and of a merge.
func keepOf(values []string, none bool) *keep {
	if values == nil && !none {
		return nil
	}
	return &keep{Values: values, None: none}
}

// summary builds the summary of the spooled entries, writing each entry
// as a row of table in the summary's order. It returns the summary, its
// entries as keep says.
func (s *spool) summary(runID string, keep *keep, table *trialTable) (*Summary, error) {
	head := &Summary{SchemaVersion: SummarySchemaVersion, Generator: events.Generator, RunID: runID, Aggregation: Aggregation, Configs: []*ConfigSummary{}}
	// The statistics of a configuration (its bootstrap, most of the
	// work, spread over the cores) are computed while the next
	// configuration's entries are read and written to the table (one
	// goroutine): the two overlap, and the figures of at most two
	// configurations are held at once. Each configuration's statistics
	// are computed from its own lists, whenever they run, so they are
	// the same to the last bit.
	done := make(chan struct{})
	close(done)
	defer func() { <-done }()
	for _, name := range slices.Sorted(maps.Keys(s.configs)) {
		c, cov, stats, err := s.config(name, keep, table)
		if err != nil {
			return nil, err
		}
		head.Configs = append(head.Configs, c)
		if cov != nil {
			head.coverage = append(head.coverage, *cov)
		}
		<-done
		next := make(chan struct{})
		go func() {
			defer close(next)
			stats()
		}()
		done = next
	}
	head.coverageKnown = s.curves
	return head, nil
}

// config builds one configuration's summary, writing its entries as rows
// of table, and returns it and its coverage curve (nil without one), and
// stats, which computes the configuration's statistics (the bootstrap):
// its Metrics and Reward are not set until stats has run.
func (s *spool) config(name string, keep *keep, table *trialTable) (*ConfigSummary, *ConfigCoverage, func(), error) {
	sc := s.configs[name]
	// By name, and for one name in the order the entries came.
	slices.SortFunc(sc.recs, func(a, b spoolRec) int {
		if c := bytes.Compare(sc.name(a), sc.name(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.off, b.off)
	})
	if s.replace {
		kept := sc.recs[:0]
		for i, r := range sc.recs {
			if i+1 < len(sc.recs) && bytes.Equal(sc.name(r), sc.name(sc.recs[i+1])) {
				continue // a later entry of the name replaces this one
			}
			kept = append(kept, r)
		}
		sc.recs = kept
	}
	c := &ConfigSummary{
		Config:        name,
		Trials:        len(sc.recs),
		Computable:    TaskGroup{Names: []string{}},
		NonComputable: TaskGroup{Names: []string{}},
		Degraded:      TaskGroup{Names: []string{}},
		Metrics:       map[string]metrics.Stats{},
	}
	none := keep != nil && keep.None
	if none {
		c.tasks, c.kept = map[string]*taskFigures{}, slices.Clone(keep.Values)
	} else {
		c.Entries = make([]TaskEntry, 0, len(sc.recs))
	}
	// One pass in name order: the groups, the rows of the table, and
	// each task's sums in the order TaskValues and TaskRewards add them.
	type sum struct {
		v []float64
		n []int32
	}
	type reward struct {
		v float64
		n int
	}
	var taskNames []string
	taskID := map[string]int{}
	var sums []*sum
	var rewards []*reward
	var curves []*curveMean
	models := map[string]bool{}
	var b []byte
	var r trialRec
	// The groups' names share one string: a name costs its header.
	allNames := string(sc.names)
	for _, rec := range sc.recs {
		var err error
		if b, err = rec.read(s.file, b, &r, len(s.metrics)); err != nil {
			return nil, nil, nil, fmt.Errorf("the spool's entry %s: %w", sc.name(rec), err)
		}
		e := &r.entry
		g := &c.Computable
		switch e.Status {
		case NonComputable:
			g = &c.NonComputable
		case Degraded:
			g = &c.Degraded
		case Failed:
			if c.Failed == nil {
				c.Failed = &TaskGroup{}
			}
			g = c.Failed
		}
		g.Count++
		g.Names = append(g.Names, allNames[rec.nameOff:rec.nameOff+rec.nameLen])
		task, ok := taskID[e.Task]
		if !ok {
			task = len(taskNames)
			taskID[e.Task] = task
			taskNames = append(taskNames, e.Task)
			sums, rewards, curves = append(sums, nil), append(rewards, nil), append(curves, nil)
		}
		if e.Reward != nil {
			if rewards[task] == nil {
				rewards[task] = &reward{}
			}
			rewards[task].v += *e.Reward
			rewards[task].n++
		}
		if e.Status == Computable {
			t := sums[task]
			if t == nil {
				t = &sum{v: make([]float64, len(s.metrics)), n: make([]int32, len(s.metrics))}
				sums[task] = t
			}
			for _, v := range r.values {
				t.v[v.id] += v.v
				t.n[v.id]++
			}
			if len(r.curve) > 0 {
				if curves[task] == nil {
					curves[task] = &curveMean{}
				}
				curves[task].add(r.curve)
			}
		}
		if table != nil {
			if err := table.addRec(name, &r); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", TrialsFile, err)
			}
		}
		if !none {
			entry := *e
			if keep == nil {
				entry.Values = r.valuesMap(s.metrics)
			} else {
				entry.Values = map[string]float64{}
				for _, v := range r.values {
					if m := s.metrics[v.id]; slices.Contains(keep.Values, m) {
						entry.Values[m] = v.v
					}
				}
			}
			c.Entries = append(c.Entries, entry)
			continue
		}
		// In name order, as TaskStatuses picks: the first of the best
		// status.
		tf := c.tasks[e.Task]
		if tf == nil {
			tf = &taskFigures{}
			c.tasks[e.Task] = tf
		}
		if tf.status == "" || statusRank[e.Status] > statusRank[tf.status] {
			tf.status, tf.reason = e.Status, e.Reason
		}
		if e.Model != "" {
			models[e.Model] = true
		}
		if e.Status == Failed {
			f := *e
			f.Warnings = slices.Clone(e.Warnings)
			f.Values = r.valuesMap(s.metrics)
			c.failed = append(c.failed, f)
		}
	}
	c.Tasks = len(taskNames)
	// The configuration is written: its records are read again only by a
	// summary without entries (spooledEntries), in this order.
	if !none {
		sc.recs = nil
	}
	sc.names = nil
	if none {
		c.models = slices.Sorted(maps.Keys(models))
		// Each task's means, divided as TaskValues and TaskRewards divide
		// them, so that a comparison gives the bits it gives on entries.
		for id, task := range taskNames {
			tf := c.tasks[task]
			if t := sums[id]; t != nil {
				tf.values, tf.has = make([]float64, len(keep.Values)), make([]bool, len(keep.Values))
				for i, m := range keep.Values {
					if mid, ok := s.metric[m]; ok && t.n[mid] > 0 {
						tf.values[i], tf.has[i] = t.v[mid]/float64(t.n[mid]), true
					}
				}
			}
			if rw := rewards[id]; rw != nil {
				tf.reward, tf.hasReward = rw.v/float64(rw.n), true
			}
		}
	}
	// Each task's sums are dropped once its means are taken, so that the
	// sums and the lists of means are not held whole at once.
	scored := 0
	for _, t := range sums {
		if t != nil {
			scored++
		}
	}
	byMetric := map[string][]float64{}
	for id, t := range sums {
		if t == nil {
			continue
		}
		for m, n := range t.n {
			if n > 0 {
				name := s.metrics[m]
				if byMetric[name] == nil {
					byMetric[name] = make([]float64, 0, scored)
				}
				byMetric[name] = append(byMetric[name], t.v[m]/float64(n))
			}
		}
		sums[id] = nil
	}
	sums = nil
	var rs []float64
	for _, rw := range rewards {
		if rw != nil {
			rs = append(rs, rw.v/float64(rw.n))
		}
	}
	stats := func() {
		// The lists are not used again: they are sorted where they are,
		// and held by the statistics alone, which let each go once its
		// bootstrap has laid it out.
		// The rewards are bootstrapped with them, sharing the
		// generator's outputs.
		lists := byMetric
		byMetric = nil
		var reward []metrics.Stats
		c.Metrics, reward = metrics.AggregateAllInPlaceWith(lists, rs)
		if len(rs) > 0 {
			c.Reward = &reward[0]
		}
	}
	var cov *ConfigCoverage
	var ids []int
	for id, cm := range curves {
		if cm != nil {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		slices.SortFunc(ids, func(a, b int) int { return strings.Compare(taskNames[a], taskNames[b]) })
		var overTasks curveMean
		for _, id := range ids {
			overTasks.add(curves[id].mean())
		}
		cov = &ConfigCoverage{Config: name, Tasks: len(ids), Points: overTasks.mean()}
	}
	return c, cov, stats, nil
}
