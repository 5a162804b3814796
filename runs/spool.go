package runs

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// A spool builds a run summary from entries given one at a time, in any
// order, without holding them: each entry is written to a temporary file,
// once as the summary will show it (indented at its depth) and once as
// the figures the statistics need (its task, status, reward and values,
// in binary), and memory keeps per entry only its name and where those
// two lie. The summary is then written configuration by configuration:
// the entries are read back in name order twice, once to average each
// task's figures in the order Summarize adds them (so the statistics are
// equal to the last bit) and once to copy them into the file. What stays
// in memory is about 50 bytes per trial plus its name, and, for one
// configuration at a time, one figure per task and metric: what the
// bootstrap needs.
type spool struct {
	mu   sync.Mutex
	file *os.File
	w    *bufio.Writer
	size int64
	err  error

	configs map[string]*spoolConfig
	tasks   map[string]uint32
	task    []string
	metric  map[string]uint16
	metrics []string
	// replace makes an entry added under a name its configuration has
	// already replace the earlier one (Evaluate, for a trial failed once
	// its artifacts could not be put in place); without it both stay.
	replace bool
	// curves says that every computable entry came with its coverage
	// curve, so that the summary can carry the configurations' curves.
	curves bool
}

type spoolConfig struct {
	recs  []spoolRec
	names []byte // the entries' names, end to end
}

// A spoolRec is where one entry lies in the spool file: 32 bytes.
type spoolRec struct {
	off             int64
	nameOff         uint32
	nameLen         uint32
	jsonLen, figLen uint32
	status          uint8 // an index of statuses
}

// statuses are the entry statuses, by their index in a spoolRec.
var statuses = []TaskStatus{Computable, NonComputable, Degraded, Failed}

// entryIndent is the indentation of an entry in the summary: an element
// of "tasks", in an element of "configs".
const entryIndent = "        "

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
		configs: map[string]*spoolConfig{}, tasks: map[string]uint32{}, metric: map[string]uint16{},
	}, nil
}

// Close releases the temporary file.
func (s *spool) Close() error { return s.file.Close() }

// add spools the entry of a configuration, with its coverage curve (nil
// without one).
func (s *spool) add(config string, e *TaskEntry, curve []float64) error {
	status := slices.Index(statuses, e.Status)
	if status < 0 {
		return fmt.Errorf("entry %s: status %q is not one of %v", e.Name, e.Status, statuses)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(entryIndent, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return err
	}
	js := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	fig, err := s.figures(e, curve)
	if err != nil {
		return err
	}
	c := s.configs[config]
	if c == nil {
		c = &spoolConfig{}
		s.configs[config] = c
	}
	rec := spoolRec{off: s.size, nameOff: uint32(len(c.names)), nameLen: uint32(len(e.Name)), jsonLen: uint32(len(js)), figLen: uint32(len(fig)), status: uint8(status)}
	if _, err := s.w.Write(js); err != nil {
		s.err = err
		return err
	}
	if _, err := s.w.Write(fig); err != nil {
		s.err = err
		return err
	}
	s.size += int64(len(js) + len(fig))
	c.names = append(c.names, e.Name...)
	c.recs = append(c.recs, rec)
	return nil
}

// figures encodes what the statistics need of an entry: its task, its
// reward, and its values by metric number. Called with s.mu held.
func (s *spool) figures(e *TaskEntry, curve []float64) ([]byte, error) {
	id, ok := s.tasks[e.Task]
	if !ok {
		id = uint32(len(s.task))
		s.tasks[e.Task] = id
		s.task = append(s.task, e.Task)
	}
	b := binary.LittleEndian.AppendUint32(nil, id)
	if e.Reward != nil {
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(*e.Reward))
	} else {
		b = append(b, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(e.Values)))
	// Map order does not matter: the values are summed per metric.
	for m, v := range e.Values {
		mid, ok := s.metric[m]
		if !ok {
			if len(s.metrics) > math.MaxUint16 {
				return nil, fmt.Errorf("entry %s: more than %d metric names in one run", e.Name, math.MaxUint16+1)
			}
			mid = uint16(len(s.metrics))
			s.metric[m] = mid
			s.metrics = append(s.metrics, m)
		}
		b = binary.LittleEndian.AppendUint16(b, mid)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(curve)))
	for _, v := range curve {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b, nil
}

// metricNames are the names of every value of the spooled entries.
func (s *spool) metricNames() []string { return slices.Clone(s.metrics) }

// writeFiles writes the summary to summaryPath and the trials' table to
// tablePath, atomically, in one pass over the spool: the table is put in
// place first, so that a summary on disk is never there before the table
// beside it.
func (s *spool) writeFiles(summaryPath, tablePath, runID string, keep *keep) (*Summary, error) {
	var summary *Summary
	err := writeArtifact(summaryPath, func(sw io.Writer) error {
		return writeArtifact(tablePath, func(tw io.Writer) error {
			table, err := newTrialTable(tw, s.metricNames())
			if err != nil {
				return err
			}
			if summary, err = s.write(sw, runID, keep, table); err != nil {
				return err
			}
			return table.close()
		})
	})
	if err != nil {
		return nil, err
	}
	if keep != nil && keep.None {
		summary.file = summaryPath
	}
	return summary, nil
}

// name is the name of an entry.
func (c *spoolConfig) name(r spoolRec) []byte { return c.names[r.nameOff : r.nameOff+r.nameLen] }

// A keep says what the summary a spool returns holds of each entry: the
// entry with all its values (a nil keep), with the values of the metrics
// Values names only, or nothing (None: no entries at all, but per task
// its best entry's status and the means of the metrics Values names, and
// the failed entries; EachEntry reads the entries back from the file).
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

// write writes the summary of the spooled entries to w: the document
// Summarize and WriteSummary give for them, byte for byte. It returns
// the summary, its entries as keep says.
//
// With a table, every entry is also a row of it, in the summary's order.
func (s *spool) write(w io.Writer, runID string, keep *keep, table *trialTable) (*Summary, error) {
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	head := &Summary{SchemaVersion: SummarySchemaVersion, Generator: events.Generator, RunID: runID, Aggregation: Aggregation, Configs: []*ConfigSummary{}}
	top, err := encodeIndented(head, "")
	if err != nil {
		return nil, err
	}
	open, closing, ok := bytes.Cut(top, []byte(`"configs": []`))
	if !ok {
		return nil, fmt.Errorf("the summary's layout is not the expected one")
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(open)
	names := slices.Sorted(maps.Keys(s.configs))
	if len(names) == 0 {
		bw.WriteString(`"configs": []`)
	} else {
		bw.WriteString("\"configs\": [\n")
	}
	for i, name := range names {
		c, cov, err := s.writeConfig(bw, name, keep, table)
		if err != nil {
			return nil, err
		}
		head.Configs = append(head.Configs, c)
		if cov != nil {
			head.coverage = append(head.coverage, *cov)
		}
		if i < len(names)-1 {
			bw.WriteString(",\n")
		} else {
			bw.WriteString("\n  ]")
		}
	}
	bw.Write(closing)
	head.coverageKnown = s.curves
	return head, bw.Flush()
}

// writeConfig writes one configuration's summary, as an element of
// "configs", and returns it and its coverage curve (nil without one).
func (s *spool) writeConfig(bw *bufio.Writer, name string, keep *keep, table *trialTable) (*ConfigSummary, *ConfigCoverage, error) {
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
		Entries:       []TaskEntry{},
	}
	none := keep != nil && keep.None
	if none {
		defer func() { c.Entries = nil }()
		c.tasks = map[string]*taskFigures{}
	}
	// The first pass, in name order: the groups, and each task's sums in
	// the order TaskValues and TaskRewards add them.
	type sum struct {
		v []float64
		n []int32
	}
	sums := map[uint32]*sum{}
	rewards := map[uint32]*struct {
		v float64
		n int
	}{}
	tasks := map[uint32]bool{}
	curves := map[uint32]*curveMean{}
	var fig []byte
	for _, r := range sc.recs {
		n := string(sc.name(r))
		g := &c.Computable
		switch statuses[r.status] {
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
		g.Names = append(g.Names, n)
		fig = slices.Grow(fig[:0], int(r.figLen))[:r.figLen]
		if _, err := s.file.ReadAt(fig, r.off+int64(r.jsonLen)); err != nil {
			return nil, nil, err
		}
		task := binary.LittleEndian.Uint32(fig)
		tasks[task] = true
		p := 4
		if fig[p] == 1 {
			rw := rewards[task]
			if rw == nil {
				rw = &struct {
					v float64
					n int
				}{}
				rewards[task] = rw
			}
			rw.v += math.Float64frombits(binary.LittleEndian.Uint64(fig[p+1:]))
			rw.n++
			p += 9
		} else {
			p++
		}
		if statuses[r.status] != Computable {
			continue
		}
		nv := int(binary.LittleEndian.Uint32(fig[p:]))
		p += 4
		t := sums[task]
		if t == nil {
			t = &sum{v: make([]float64, len(s.metrics)), n: make([]int32, len(s.metrics))}
			sums[task] = t
		}
		for range nv {
			m := binary.LittleEndian.Uint16(fig[p:])
			t.v[m] += math.Float64frombits(binary.LittleEndian.Uint64(fig[p+2:]))
			t.n[m]++
			p += 10
		}
		if np := int(binary.LittleEndian.Uint32(fig[p:])); np > 0 {
			p += 4
			curve := make([]float64, np)
			for j := range curve {
				curve[j] = math.Float64frombits(binary.LittleEndian.Uint64(fig[p+8*j:]))
			}
			cm := curves[task]
			if cm == nil {
				cm = &curveMean{}
				curves[task] = cm
			}
			cm.add(curve)
		}
	}
	c.Tasks = len(tasks)
	if none {
		// Each task's means, divided as TaskValues and TaskRewards divide
		// them, so that a comparison gives the bits it gives on entries.
		for id := range tasks {
			tf := &taskFigures{}
			if t := sums[id]; t != nil {
				tf.values = map[string]float64{}
				for _, m := range keep.Values {
					if mid, ok := s.metric[m]; ok && t.n[mid] > 0 {
						tf.values[m] = t.v[mid] / float64(t.n[mid])
					}
				}
			}
			if rw := rewards[id]; rw != nil {
				tf.reward, tf.hasReward = rw.v/float64(rw.n), true
			}
			c.tasks[s.task[id]] = tf
		}
	}
	byMetric := map[string][]float64{}
	for _, t := range sums {
		for m, n := range t.n {
			if n > 0 {
				byMetric[s.metrics[m]] = append(byMetric[s.metrics[m]], t.v[m]/float64(n))
			}
		}
	}
	sums = nil
	c.Metrics = aggregateAll(byMetric)
	if len(rewards) > 0 {
		var rs []float64
		for _, rw := range rewards {
			rs = append(rs, rw.v/float64(rw.n))
		}
		st := metrics.Aggregate(rs)
		c.Reward = &st
	}
	var cov *ConfigCoverage
	if len(curves) > 0 {
		ids := slices.Collect(maps.Keys(curves))
		slices.SortFunc(ids, func(a, b uint32) int { return strings.Compare(s.task[a], s.task[b]) })
		var overTasks curveMean
		for _, id := range ids {
			overTasks.add(curves[id].mean())
		}
		cov = &ConfigCoverage{Config: name, Tasks: len(ids), Points: overTasks.mean()}
	}
	head, err := encodeIndented(c, "    ")
	if err != nil {
		return nil, nil, err
	}
	open, closing, ok := bytes.Cut(head, []byte(`"tasks": []`))
	if !ok {
		return nil, nil, fmt.Errorf("the summary's layout is not the expected one")
	}
	bw.WriteString("    ")
	bw.Write(open)
	bw.WriteString("\"tasks\": [\n")
	// The second pass copies the entries, and keeps what the caller asked
	// for of each.
	var js []byte
	models := map[string]bool{}
	for i, r := range sc.recs {
		js = slices.Grow(js[:0], int(r.jsonLen))[:r.jsonLen]
		if _, err := s.file.ReadAt(js, r.off); err != nil {
			return nil, nil, err
		}
		bw.WriteString(entryIndent)
		bw.Write(js)
		if i < len(sc.recs)-1 {
			bw.WriteString(",\n")
		}
		var e TaskEntry
		if err := json.Unmarshal(js, &e); err != nil {
			return nil, nil, err
		}
		if table != nil {
			if err := table.add(name, &e); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", TrialsFile, err)
			}
		}
		if none {
			// In name order, as TaskStatuses picks: the first of the
			// best status.
			if tf := c.tasks[e.Task]; tf.best.Status == "" || statusRank[e.Status] > statusRank[tf.best.Status] {
				tf.best = e
				tf.best.Values, tf.best.Warnings = nil, nil
			}
			if e.Model != "" {
				models[e.Model] = true
			}
			if e.Status == Failed {
				c.failed = append(c.failed, e)
			}
			continue
		}
		if keep != nil {
			kept := map[string]float64{}
			for _, m := range keep.Values {
				if v, ok := e.Values[m]; ok {
					kept[m] = v
				}
			}
			e.Values = kept
		}
		c.Entries = append(c.Entries, e)
	}
	bw.WriteString("\n      ]")
	bw.Write(closing)
	if none {
		c.models = slices.Sorted(maps.Keys(models))
	}
	return c, cov, nil
}

// encodeIndented is v as writeJSON writes it at the depth prefix gives,
// without the final newline.
func encodeIndented(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if prefix == "" {
		return buf.Bytes(), nil // the document's final newline stays
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
