package runs

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// File names of the artifacts of a benchmark run, from the retrieval-eval
// framework's layout:
//
//	retrieval_events/
//	  run_retrieval_summary.json
//	  {config}/{task}.retrieval_events.json
//	  {config}/{task}.retrieval_metrics.json
const (
	EventsSuffix  = ".retrieval_events.json"
	MetricsSuffix = ".retrieval_metrics.json"
	SummaryFile   = "run_retrieval_summary.json"
)

// WriteTaskEvents writes a retrieval-events document to
// dir/{name}.retrieval_events.json atomically and returns the path.
func WriteTaskEvents(dir, name string, d *events.Document) (string, error) {
	path := filepath.Join(dir, name+EventsSuffix)
	return path, writeArtifact(path, d.WriteJSON)
}

// WriteTaskMetrics writes the per-task artifact {name}.retrieval_metrics.json
// into dir atomically and returns the path. The artifact is the
// metrics.Result: provenance, coverage, the computable flag and its reason,
// and every metric stage (file level, lines and chunks, symbols, time to
// relevance, utilization, error taxonomy, calibration slices, index
// effectiveness).
func WriteTaskMetrics(dir, name string, r *metrics.Result) (string, error) {
	path := filepath.Join(dir, name+MetricsSuffix)
	return path, writeArtifact(path, r.WriteJSON)
}

// writeTaskArtifacts writes a trial's two artifacts through a batch,
// which puts both in place, or neither, at its Commit.
func writeTaskArtifacts(b *atomicfile.Batch, dir, name string, d *events.Document, r *metrics.Result) error {
	evPath, mPath := filepath.Join(dir, name+EventsSuffix), filepath.Join(dir, name+MetricsSuffix)
	for _, p := range []string{evPath, mPath} {
		if err := refuseLink(p); err != nil {
			return err
		}
	}
	return b.WriteAll(atomicfile.File{Path: evPath, Write: d.WriteJSON}, atomicfile.File{Path: mPath, Write: r.WriteJSON})
}

// writeArtifact replaces the file at path atomically. A symbolic link
// there is refused, not written through: an artifact stays in its
// folder.
func writeArtifact(path string, write func(io.Writer) error) error {
	if err := refuseLink(path); err != nil {
		return err
	}
	return atomicfile.Write(path, write)
}

// refuseLink refuses a symbolic link at an artifact's path.
func refuseLink(path string) error {
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; an artifact is not written through one (remove it)", path)
	}
	return nil
}

// SummarySchemaVersion is the version of run_retrieval_summary.json as
// Evaluate and the merges write it. Minor versions add optional fields;
// ReadSummary reads 1.x and 2.x and rejects another major version.
//
// In 2.0 the entries left the summary: the file keeps the aggregates,
// intervals, counts and names, and "trials_table" points to the table
// beside it (TrialsFile) that holds every entry, one row each, in the
// order 1.x listed them under each configuration's "tasks". The major
// version changed because a reader of 1.x that looks for "tasks" would
// otherwise find none and carry on as if the run had no trials; with
// 2.0 it refuses the file instead.
const SummarySchemaVersion = "2.0"

// InlineSummarySchemaVersion is the version of a summary that holds its
// entries under each configuration's "tasks": what Summarize builds and
// WriteSummary then writes, readable by every 1.x reader.
const InlineSummarySchemaVersion = "1.1"

// A TableRef points from a summary to the table that holds its entries.
type TableRef struct {
	// File is the table's name, in the summary's folder.
	File string `json:"file"`
	// Format is "parquet".
	Format string `json:"format"`
	// Rows is the number of entries, one row each.
	Rows int `json:"rows"`
}

// TaskStatus says how a task run entered the summary.
type TaskStatus string

const (
	// Computable runs have a trace and ground truth and are scored.
	Computable TaskStatus = "computable"
	// NonComputable runs have a trace but no usable ground truth: their
	// retrieval is not scored (never 0 or 1).
	NonComputable TaskStatus = "non_computable"
	// Degraded runs have no usable trace (no trajectory, no transcript, or
	// neither parses).
	Degraded TaskStatus = "degraded"
	// Failed runs could not be evaluated at all (a result.json that cannot
	// be read, an artifact that cannot be written): listed with the
	// reason, no artifacts, never scored.
	Failed TaskStatus = "failed"
)

// StatusOf classifies a metrics result: degraded without a usable trace,
// else non-computable when not computable, else computable.
func StatusOf(r *metrics.Result) TaskStatus {
	switch {
	case r.Coverage.TraceSource == nil:
		return Degraded
	case !r.Computable:
		return NonComputable
	}
	return Computable
}

// A TaskEntry is one task run (one trial) of one configuration in the run
// summary.
type TaskEntry struct {
	// Name is the artifact stem: the task name, or "{task}__{trial id}"
	// when the configuration has several trials of the task.
	Name  string `json:"name"`
	Task  string `json:"task"`
	Trial string `json:"trial,omitempty"`
	Batch string `json:"batch,omitempty"`
	// Status and Reason: why a run is degraded or non-computable.
	Status TaskStatus `json:"status"`
	Reason string     `json:"reason,omitempty"`
	// Reward is the verifier reward; nil when the run has none.
	Reward      *float64 `json:"reward"`
	Model       string   `json:"model,omitempty"`
	TraceSource *string  `json:"trace_source"`
	Warnings    []string `json:"warnings,omitempty"`
	// EventsFile and MetricsFile are the artifacts, relative to the
	// summary's folder, with forward slashes.
	EventsFile  string `json:"events_file,omitempty"`
	MetricsFile string `json:"metrics_file,omitempty"`
	// Values are the run's figures (metrics.Result.Values): empty for a
	// degraded run, only the index-effectiveness figures for a
	// non-computable one.
	Values map[string]float64 `json:"values"`
}

// EntryOf fills the status, reason, trace source, model and values of an
// entry from a metrics result.
func EntryOf(name, task string, r *metrics.Result) TaskEntry {
	e := TaskEntry{
		Name:        name,
		Task:        task,
		Status:      StatusOf(r),
		Model:       r.Provenance.Model,
		TraceSource: r.Coverage.TraceSource,
		Values:      r.Values(),
	}
	switch {
	case e.Status == Degraded && r.Coverage.DegradedReason != nil:
		e.Reason = *r.Coverage.DegradedReason
	case r.NonComputableReason != nil:
		e.Reason = *r.NonComputableReason
	}
	return e
}

// A TaskGroup counts and names the entries of one status.
type TaskGroup struct {
	Count int      `json:"count"`
	Names []string `json:"names"`
}

// A ConfigSummary aggregates one configuration of a run.
type ConfigSummary struct {
	Config string `json:"config"`
	// Trials is the number of entries; Tasks the number of distinct tasks.
	Trials        int       `json:"trials"`
	Tasks         int       `json:"task_count"`
	Computable    TaskGroup `json:"computable"`
	NonComputable TaskGroup `json:"non_computable"`
	Degraded      TaskGroup `json:"degraded"`
	// Failed counts the entries that could not be evaluated; absent when
	// there is none (added in schema 1.1).
	Failed *TaskGroup `json:"failed,omitempty"`
	// Metrics are, per metric name, the statistics over tasks (see
	// Aggregation) of the computable entries.
	Metrics map[string]metrics.Stats `json:"metrics"`
	// Reward is the statistics of the per-task mean reward; nil when no
	// entry has a reward.
	Reward *metrics.Stats `json:"reward"`
	// Entries are the configuration's entries, in name order. A summary
	// file of schema 2.x has them in its table (Summary.Trials), and
	// ReadSummary fills them from it.
	Entries []TaskEntry `json:"tasks,omitempty"`

	// tasks, when not nil, stands for Entries, which the summary was
	// returned without (Options.SummaryWithoutEntries): what TaskValues,
	// TaskRewards and TaskStatuses give, per task. kept names the values
	// each task keeps. models and failed are then the models of the
	// entries and the failed entries.
	tasks  map[string]*taskFigures
	kept   []string
	models []string
	failed []TaskEntry
}

// A taskFigures is what a summary returned without its entries keeps of
// one task of a configuration: about what one trial's figures take, per
// task, for the paired comparison and the correlations with the reward.
type taskFigures struct {
	// status and reason are the task's best entry's (TaskStatuses).
	status TaskStatus
	reason string
	// values are the means over the task's computable entries of the
	// metrics the caller asked to keep (Options.SummaryValues), in the
	// order of ConfigSummary.kept, and has says which the task has; nil
	// when the task has no computable entry.
	values []float64
	has    []bool
	// reward is the mean reward over the entries that have one.
	reward    float64
	hasReward bool
}

// A Summary is run_retrieval_summary.json: per configuration, the
// aggregate statistics and every task entry.
type Summary struct {
	SchemaVersion string `json:"schema_version"`
	Generator     string `json:"generator"`
	RunID         string `json:"run_id"`
	// Aggregation states how trials and tasks combine (Aggregation).
	Aggregation string `json:"aggregation"`
	// Trials points to the table of the entries (schema 2.x); nil in a
	// summary that holds them (1.x).
	Trials  *TableRef        `json:"trials_table,omitempty"`
	Configs []*ConfigSummary `json:"configs"`

	// coverage holds the configurations' coverage curves when
	// coverageKnown (see Coverage).
	coverage      []ConfigCoverage
	coverageKnown bool
	// file is the summary file, when the configurations were returned
	// without their entries; spooled then holds the entries where the
	// spool that built the summary keeps them, for EachEntry.
	file    string
	spooled *spooledEntries
}

// trialCount is the number of entries of every configuration.
func (s *Summary) trialCount() int {
	n := 0
	for _, c := range s.Configs {
		n += c.Trials
	}
	return n
}

// withoutEntries is the summary as a file of schema 2.x holds it: the
// configurations without their entries.
func (s *Summary) withoutEntries() *Summary {
	out := *s
	out.Configs = make([]*ConfigSummary, len(s.Configs))
	for i, c := range s.Configs {
		cc := *c
		cc.Entries = nil
		out.Configs[i] = &cc
	}
	return &out
}

// Aggregation is the rule the summary's statistics follow, recorded in
// every summary. Trials are averaged per task first so that a task run
// five times weighs as much as a task run once: the statistics describe
// tasks, which is what a benchmark samples.
const Aggregation = "per task first: each metric is the mean over the task's computable trials; " +
	"statistics (mean, median, sample std, n, percentile-bootstrap 95% CI of the mean, fixed seed) are over tasks; " +
	"non-computable and degraded trials are counted and named, not scored"

// Summarize builds the run summary from the entries of each configuration.
// Entries are sorted by name, configurations by name.
func Summarize(runID string, entries map[string][]TaskEntry) *Summary {
	s := &Summary{SchemaVersion: InlineSummarySchemaVersion, Generator: events.Generator, RunID: runID, Aggregation: Aggregation}
	for _, config := range slices.Sorted(maps.Keys(entries)) {
		es := slices.Clone(entries[config])
		slices.SortFunc(es, func(a, b TaskEntry) int { return cmp.Compare(a.Name, b.Name) })
		c := &ConfigSummary{
			Config:        config,
			Trials:        len(es),
			Computable:    TaskGroup{Names: []string{}},
			NonComputable: TaskGroup{Names: []string{}},
			Degraded:      TaskGroup{Names: []string{}},
			Metrics:       map[string]metrics.Stats{},
			Entries:       es,
		}
		tasks := map[string]bool{}
		for _, e := range es {
			tasks[e.Task] = true
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
			g.Names = append(g.Names, e.Name)
		}
		c.Tasks = len(tasks)
		byMetric := map[string][]float64{}
		for _, vs := range c.TaskValues() {
			for m, v := range vs {
				byMetric[m] = append(byMetric[m], v)
			}
		}
		c.Metrics = aggregateAll(byMetric)
		if rs := c.TaskRewards(); len(rs) > 0 {
			st := metrics.Aggregate(slices.Collect(maps.Values(rs)))
			c.Reward = &st
		}
		s.Configs = append(s.Configs, c)
	}
	if s.Configs == nil {
		s.Configs = []*ConfigSummary{}
	}
	return s
}

// aggregateAll runs metrics.Aggregate on every metric's values, spread
// over the available processors: the seeded bootstrap dominates the cost
// of a summary of hundreds of tasks, and each metric's is independent of
// the others, so the result is the same whatever the order.
func aggregateAll(byMetric map[string][]float64) map[string]metrics.Stats {
	return metrics.AggregateAll(byMetric)
}

// Config returns the summary of the named configuration, or nil.
func (s *Summary) Config(name string) *ConfigSummary {
	for _, c := range s.Configs {
		if c.Config == name {
			return c
		}
	}
	return nil
}

// ConfigNames lists the configurations, sorted.
func (s *Summary) ConfigNames() []string {
	var out []string
	for _, c := range s.Configs {
		out = append(out, c.Config)
	}
	return out
}

// TaskValues returns, per task, the mean of each figure over the task's
// computable entries. A task with no computable entry is absent.
func (c *ConfigSummary) TaskValues() map[string]map[string]float64 {
	if c.tasks != nil {
		out := map[string]map[string]float64{}
		for t, f := range c.tasks {
			if f.values != nil {
				vs := map[string]float64{}
				for i, m := range c.kept {
					if f.has[i] {
						vs[m] = f.values[i]
					}
				}
				out[t] = vs
			}
		}
		return out
	}
	sums := map[string]map[string]float64{}
	counts := map[string]map[string]int{}
	for _, e := range c.Entries {
		if e.Status != Computable {
			continue
		}
		if sums[e.Task] == nil {
			sums[e.Task], counts[e.Task] = map[string]float64{}, map[string]int{}
		}
		for m, v := range e.Values {
			sums[e.Task][m] += v
			counts[e.Task][m]++
		}
	}
	for t, ms := range sums {
		for m := range ms {
			ms[m] /= float64(counts[t][m])
		}
	}
	return sums
}

// TaskRewards returns, per task, the mean reward over the task's entries
// that have one, whatever their status: the reward is the verifier's and
// does not depend on whether retrieval could be scored.
func (c *ConfigSummary) TaskRewards() map[string]float64 {
	if c.tasks != nil {
		out := map[string]float64{}
		for t, f := range c.tasks {
			if f.hasReward {
				out[t] = f.reward
			}
		}
		return out
	}
	sums, counts := map[string]float64{}, map[string]int{}
	for _, e := range c.Entries {
		if e.Reward != nil {
			sums[e.Task] += *e.Reward
			counts[e.Task]++
		}
	}
	for t := range sums {
		sums[t] /= float64(counts[t])
	}
	return sums
}

// TaskStatuses returns, per task, the best status among its entries
// (computable over non-computable over degraded) and a reason for the
// others: that entry, or, for a summary returned without its entries
// (Options.SummaryWithoutEntries), its task, status and reason alone.
func (c *ConfigSummary) TaskStatuses() map[string]TaskEntry {
	out := map[string]TaskEntry{}
	if c.tasks != nil {
		for t, f := range c.tasks {
			out[t] = TaskEntry{Task: t, Status: f.status, Reason: f.reason}
		}
		return out
	}
	for _, e := range c.Entries {
		if prev, ok := out[e.Task]; !ok || statusRank[e.Status] > statusRank[prev.Status] {
			out[e.Task] = e
		}
	}
	return out
}

// statusRank orders the statuses from the best, computable, down.
var statusRank = map[TaskStatus]int{Computable: 3, NonComputable: 2, Degraded: 1, Failed: 0}

// modelNames are the models of the configuration's entries, sorted.
func (c *ConfigSummary) modelNames() []string {
	if c.tasks != nil {
		return slices.Clone(c.models)
	}
	seen := map[string]bool{}
	for _, e := range c.Entries {
		if e.Model != "" {
			seen[e.Model] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// failedEntries are the configuration's entries of status failed.
func (c *ConfigSummary) failedEntries() []TaskEntry {
	var out []TaskEntry
	for _, e := range c.Entries {
		if e.Status == Failed {
			out = append(out, e)
		}
	}
	return append(out, c.failed...)
}

// EachEntry calls f with every entry of every configuration, in the
// summary's order (configuration by configuration, by name), until f
// returns an error, which it returns. A summary that Evaluate or a merge
// returned without its entries (SummaryWithoutEntries) reads them back,
// one at a time, from the temporary file they were gathered in (the
// records the table's rows were written from: no Parquet is read); every
// other summary (one ReadSummary read, of either layout) gives those it
// holds.
func (s *Summary) EachEntry(f func(c *ConfigSummary, e *TaskEntry) error) error {
	if s.spooled != nil {
		return s.spooled.each(s, f)
	}
	for _, c := range s.Configs {
		for i := range c.Entries {
			if err := f(c, &c.Entries[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close releases what a summary returned without its entries
// (SummaryWithoutEntries, by Evaluate or a merge) reads them back from:
// the temporary file they were gathered in, which EachEntry reads. After
// it, EachEntry of such a summary fails with an error wrapping
// os.ErrClosed; its configurations, statistics and figures stay. On any
// other summary, and a second time, Close does nothing. A summary not
// closed releases the file when it is no longer reachable: Close says
// when, rather than the garbage collector.
func (s *Summary) Close() error {
	if s.spooled == nil {
		return nil
	}
	return s.spooled.close()
}

// eachTableEntry reads the entries of the table file, checking that its
// rows are the entries of the summary's configurations, in order.
func (s *Summary) eachTableEntry(table string, f func(c *ConfigSummary, e *TaskEntry) error) error {
	i, n := 0, 0
	err := readTrialTable(table, func(row int, config string, e *TaskEntry) error {
		for i < len(s.Configs) && n == s.Configs[i].Trials {
			i, n = i+1, 0
		}
		if i >= len(s.Configs) {
			return fmt.Errorf("trials table %s: row %d: more rows than the summary's %d entries (the table is not the summary's)", table, row, s.trialCount())
		}
		if config != s.Configs[i].Config {
			return fmt.Errorf("trials table %s: row %d is of configuration %q, where the summary has an entry of %q (the table is not the summary's)", table, row, config, s.Configs[i].Config)
		}
		n++
		return f(s.Configs[i], e)
	})
	if err != nil {
		return err
	}
	for i < len(s.Configs) && n == s.Configs[i].Trials {
		i, n = i+1, 0
	}
	if i < len(s.Configs) {
		return fmt.Errorf("trials table %s: %d rows, fewer than the summary's %d entries (the table is not the summary's, or it was cut short)", table, s.rowsBefore(i)+n, s.trialCount())
	}
	return nil
}

// rowsBefore is the number of entries of the configurations before the
// i-th.
func (s *Summary) rowsBefore(i int) int {
	n := 0
	for _, c := range s.Configs[:i] {
		n += c.Trials
	}
	return n
}

// WriteSummary writes the summary to path atomically.
func WriteSummary(path string, s *Summary) error {
	return writeArtifact(path, func(w io.Writer) error { return writeJSON(w, s) })
}

// ErrSummaryVersion is returned, wrapped, by ReadSummary for a summary of
// an unknown major version.
var ErrSummaryVersion = errors.New("unsupported run summary schema_version")

// maxInput is the caller's override of the input size limit.
var maxInput input.Max

// SetMaxInputSize sets, in bytes, the largest result.json of a trial and
// the largest run summary this package reads; a larger one is an error (a
// result.json is then reported as unreadable). Zero restores the default,
// 64 MiB. Trial traces are bounded by Options.Trace.MaxInputSize. It is
// safe to call concurrently with reading.
func SetMaxInputSize(n int64) { maxInput.Set(n) }

// ReadSummary reads run_retrieval_summary.json, rejecting an unknown major
// version. A summary of schema 1.x holds its entries; one of 2.x points to
// the table beside it that holds them (Summary.Trials), which is read into
// each configuration's Entries, so that every reader of a summary works
// on both layouts.
//
// The file must be a regular file of at most 64 MiB; see SetMaxInputSize.
func ReadSummary(path string) (*Summary, error) {
	data, err := input.ReadFile(path, maxInput.Or(input.ConfigLimit))
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("run summary %s: %w", path, err)
	}
	switch major, _, _ := strings.Cut(s.SchemaVersion, "."); major {
	case "1":
		if s.Trials != nil {
			return nil, fmt.Errorf("run summary %s: schema_version %q has its entries under \"tasks\", yet the file has a \"trials_table\" (a 2.x member)", path, s.SchemaVersion)
		}
		return &s, nil
	case "2":
	default:
		return nil, fmt.Errorf("run summary %s: schema_version %q: %w (this build reads 1.x and 2.x)", path, s.SchemaVersion, ErrSummaryVersion)
	}
	ref := s.Trials
	switch {
	case ref == nil:
		return nil, fmt.Errorf("run summary %s: schema_version %q needs \"trials_table\", the table of its entries, and the file has none", path, s.SchemaVersion)
	case ref.Format != "parquet":
		return nil, fmt.Errorf("run summary %s: trials_table: format %q, want \"parquet\"", path, ref.Format)
	case ref.File == "" || ref.File != filepath.Base(ref.File) || ref.File == "." || ref.File == ".." || strings.ContainsAny(ref.File, `/\`):
		return nil, fmt.Errorf("run summary %s: trials_table: file %q is not a file name in the summary's folder", path, ref.File)
	case ref.Rows != s.trialCount():
		return nil, fmt.Errorf("run summary %s: trials_table: %d rows, but the configurations count %d trials", path, ref.Rows, s.trialCount())
	}
	for _, c := range s.Configs {
		if c.Entries != nil {
			return nil, fmt.Errorf("run summary %s: configuration %q lists entries under \"tasks\", which schema_version %q keeps in its table", path, c.Config, s.SchemaVersion)
		}
		c.Entries = make([]TaskEntry, 0, c.Trials)
	}
	table := filepath.Join(filepath.Dir(path), ref.File)
	err = s.eachTableEntry(table, func(c *ConfigSummary, e *TaskEntry) error {
		c.Entries = append(c.Entries, *e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run summary %s: %w", path, err)
	}
	return &s, nil
}

// writeJSON writes v as indented JSON, without HTML escaping (paths and
// messages stay readable).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// FailedEntries lists the entries of every configuration that could not
// be evaluated (status failed).
func (s *Summary) FailedEntries() []TaskEntry {
	var out []TaskEntry
	for _, c := range s.Configs {
		out = append(out, c.failedEntries()...)
	}
	return out
}

// FailedError joins one error per trial that could not be evaluated,
// naming the trial (config/batch/trial) and wrapping ErrTrialFailed, or is
// nil when there is none.
func (s *Summary) FailedError() error {
	var errs []error
	for _, c := range s.Configs {
		for _, e := range c.failedEntries() {
			errs = append(errs, fmt.Errorf("%s: %w: %s", path.Join(c.Config, e.Batch, e.Trial), ErrTrialFailed, e.Reason))
		}
	}
	return errors.Join(errs...)
}

// Totals counts the trials of every configuration: all of them, and the
// computable, non-computable and degraded ones (failed ones are in the
// first count only; see FailedEntries).
func (s *Summary) Totals() (trials, computable, nonComputable, degraded int) {
	for _, c := range s.Configs {
		trials += c.Trials
		computable += c.Computable.Count
		nonComputable += c.NonComputable.Count
		degraded += c.Degraded.Count
	}
	return trials, computable, nonComputable, degraded
}
