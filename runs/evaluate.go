package runs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Options control Evaluate. The zero value evaluates with every taxonomy
// profile, the default metrics options and no ground truth.
type Options struct {
	// GroundTruthRoot holds one task folder per task, named as the task
	// (groundtruth.Load reads it); a task named with a dataset prefix
	// ("terminal-bench/fix-auth") is also looked up by its last part.
	// Empty means no ground truth: every trial is non-computable.
	GroundTruthRoot string
	// Out is the folder the artifacts and the summary are written to;
	// empty means OutDir under the run. It may not be the run folder or
	// inside one of its configurations.
	Out string
	// Jobs is the number of trials processed in parallel; 0 means
	// runtime.GOMAXPROCS(0). The output does not depend on it.
	Jobs int
	// RunID names the run in the provenance and the summary; empty means
	// the run folder's name.
	RunID string
	// Benchmark names the benchmark in the provenance.
	Benchmark string
	// Events are the normalization options (taxonomy, path prefixes, case
	// folding). Provenance, TraceSource and GroundTruth are set per trial.
	Events events.Options
	// Metrics are the metric options (cutoffs, relevance level, index
	// effectiveness). Grades are set per trial from its ground truth.
	Metrics metrics.Options
	// Trace are the trace-reading options (registry, result size limit).
	// Source is set per file. SessionID picks the session of a trace file
	// that holds several; by default it is the trial's task. MaxResultBytes
	// defaults to events.ResultBytesRead, all that extraction reads.
	Trace trace.Options
	// Warn, when set, receives every warning (a malformed result.json,
	// traces that disagree, skipped trace lines, an unreadable ground
	// truth), trial by trial in Walk's order once all are processed. The
	// warnings are also in each TaskEntry. A warning about the run's
	// folders (a symbolic link loop) comes first, with a nil trial.
	Warn func(t *Trial, warning string)
	// NamePath, when set, says how the summary's reasons name a folder of
	// GroundTruthRoot: a command that copied the root from a bucket names
	// the bucket URL rather than the copy, which is gone once it ends.
	NamePath func(path string) string
	// Plan, for EvaluateShard, is the shard's part of a plan (WritePlan,
	// ReadPlanPart): the shard evaluates that part's trials instead of
	// walking the run, and records the run's trial list and ground truth
	// as that plan gives them, after checking that its trials and its
	// tasks' ground truth are the ones that plan was written from.
	Plan *PlanPart
	// SummaryValues, when not nil, are the only values the entries of the
	// summary Evaluate returns keep (the table holds them all): a caller
	// that shows a few figures of a large run need not hold every figure
	// of every trial. Nil keeps them all.
	SummaryValues []string
	// SummaryWithoutEntries, when set, makes the summary Evaluate returns
	// hold no entries at all (the table holds them): statistics, counts and
	// names, the failed entries, and per task what TaskStatuses,
	// TaskRewards and TaskValues give (the latter for the metrics of
	// SummaryValues only), so that Compare works on it. Summary.EachEntry
	// reads the entries back from the table (TrialsFile), one at a time.
	SummaryWithoutEntries bool

	// shard, set by EvaluateShard, keeps one shard's trials and writes
	// its partial summary instead of the run summary.
	shard *shardRun
}

// Evaluate measures the retrieval of every trial of the run in dir (see
// Walk), writes for each trial the retrieval-events document and the
// metrics result,
//
//	<out>/<config>/<name>.retrieval_events.json
//	<out>/<config>/<name>.retrieval_metrics.json
//
// the run summary <out>/run_retrieval_summary.json and the per-trial
// table <out>/run_retrieval_trials.parquet (TrialsFile), and returns the
// summary. Nothing is written inside the run's own folders.
//
// A trial's trajectory and transcript are merged when both are usable and
// agree (MergeSessions); a trial with neither is degraded, a task without
// ground truth non-computable: both are named in the summary, never
// scored. Trials are processed in parallel; the artifacts, the summary and
// the order of the warnings do not depend on the order they finish in.
//
// Every artifact is written atomically, and none is ever seen under its
// name before its content is durable, so no artifact is ever seen half
// written. The artifacts go through an atomicfile.Batch: each trial's two
// are written to temporary files, and after the last trial their content
// is made durable at once (one syncfs per folder on Linux 5.8 and later,
// one fsync per file elsewhere), they are renamed into place, a trial's
// two together or neither, and each folder is synced once. The summary is
// written after that: once Evaluate returns, every artifact and the
// summary are durable, and a summary on disk is never durable before the
// artifacts it names. A large run has its artifacts put in place every
// few thousand files rather than only at the end.
//
// Evaluate returns an error, and no summary, for a run folder that
// cannot be read or holds no trial, a bad output folder, a canceled ctx,
// and a summary that cannot be written. A trial that cannot be evaluated
// (its result.json cannot be read, an artifact cannot be written) does not
// stop the others: it is an entry of status Failed in the summary, which
// is written and returned together with an error listing every failed
// trial by its path in the run (errors.Is(err, ErrTrialFailed)).
func Evaluate(ctx context.Context, dir string, opts Options) (*Summary, error) {
	if info, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	if opts.Out == "" {
		opts.Out = filepath.Join(dir, OutDir)
	}
	skip, err := checkOutDir(dir, opts.Out)
	if err != nil {
		return nil, err
	}
	if opts.Plan != nil && opts.shard == nil {
		return nil, fmt.Errorf("plan %s: a plan is read by the shards of a run (EvaluateShard), not by an evaluation of the whole run", opts.Plan.Source)
	}
	if opts.Jobs < 1 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	var trials []*Trial
	if opts.Plan != nil {
		if trials, err = opts.Plan.trials(dir); err != nil {
			return nil, err
		}
		opts.RunID = cmp.Or(opts.RunID, opts.Plan.Header.RunID)
	} else {
		var walkWarnings []string
		trials, err = WalkWarn(dir, func(w string) { walkWarnings = append(walkWarnings, w) }, skip)
		if err != nil {
			return nil, err
		}
		if opts.Warn != nil {
			for _, w := range walkWarnings {
				opts.Warn(nil, w)
			}
		}
		if len(trials) == 0 {
			return nil, fmt.Errorf("no trial folders under %s (want <config>/<batch>/<task>__<id>/ with result.json or agent/)", dir)
		}
	}
	if opts.RunID == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		opts.RunID = filepath.Base(abs)
	}
	if err := checkNames(trials); err != nil {
		return nil, err
	}
	if opts.shard != nil {
		trials = opts.shard.take(trials)
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	// A configuration whose artifact folder cannot be made, or leads out
	// of the output folder, fails its trials, not the run.
	dirErr := map[string]error{}
	for _, t := range trials {
		if _, done := dirErr[t.Config]; done {
			continue
		}
		cdir := filepath.Join(opts.Out, t.Config)
		err := os.MkdirAll(cdir, 0o755)
		if err == nil {
			err = checkArtifactDir(opts.Out, cdir)
		}
		dirErr[t.Config] = err
	}

	e := &evaluator{opts: opts, truths: map[string]*truthOnce{}}
	if opts.Plan != nil {
		if err := opts.Plan.checkTruth(e); err != nil {
			return nil, err
		}
	}
	// The run summary's entries go to a spool as the trials finish, so
	// that memory does not hold them all; a shard keeps its own. What the
	// end of Evaluate reads of a spooled trial (its warnings, and why it
	// failed) is kept for the few trials that have either, so that the
	// trials of a whole run cost memory their Trial and their place in
	// the spool, not an entry each.
	var sp *spool
	var results []trialResult // a shard's, by trial index
	if opts.shard == nil {
		if sp, err = newSpool(); err != nil {
			return nil, err
		}
		sp.curves, sp.replace = true, true
		defer sp.Close()
	} else {
		results = make([]trialResult, len(trials))
	}
	var mu sync.Mutex
	ends := map[int]trialEnd{}
	var spoolErr error
	// finish takes trial i's result: workers take trials by index, so
	// the summary and the warnings come out in trial order whatever order
	// the workers finish in.
	finish := func(i int, r trialResult) {
		if sp == nil {
			results[i] = r
			return
		}
		err := sp.add(trials[i].Config, &r.entry, r.coverage)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && spoolErr == nil {
			spoolErr = err
		}
		if len(r.warnings) > 0 || r.entry.Status == Failed {
			ends[i] = trialEnd{r.warnings, r.entry.Status, r.entry.Reason}
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(opts.Jobs, len(trials)) {
		wg.Go(func() {
			for i := range next {
				if err := dirErr[trials[i].Config]; err != nil {
					finish(i, failedResult(trials[i], err.Error()))
				} else {
					finish(i, e.process(trials[i]))
				}
			}
		})
	}
	canceled := false
	for i := range trials {
		if ctx.Err() != nil {
			canceled = true
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	end := func(i int) trialEnd {
		if sp == nil {
			r := &results[i]
			return trialEnd{r.warnings, r.entry.Status, r.entry.Reason}
		}
		return ends[i]
	}
	// The artifacts are made durable and put in place here, together;
	// the summary that names them is written after. A trial whose
	// artifacts could not be put in place is failed, and its failed
	// entry replaces the one spooled.
	if err := e.written.Commit(); err != nil {
		for i, reason := range failCommitted(trials, opts.Out, err) {
			if end(i).status != Failed {
				finish(i, failedResult(trials[i], reason))
			}
		}
	}
	if canceled {
		return nil, ctx.Err()
	}
	if spoolErr != nil {
		return nil, fmt.Errorf("the run summary's entries cannot be kept in a temporary file: %w", spoolErr)
	}

	var errs []error
	for i := range trials {
		r := end(i)
		if opts.Warn != nil {
			for _, w := range r.warnings {
				opts.Warn(trials[i], w)
			}
		}
		if r.status == Failed {
			errs = append(errs, fmt.Errorf("%s: %w: %s", trials[i].Rel, ErrTrialFailed, r.reason))
		}
	}
	if opts.shard != nil {
		// Statistics over one shard's tasks would be thrown away: the
		// merge computes them over the run's.
		if err := opts.shard.write(e, trials, results); err != nil {
			return nil, err
		}
		return nil, errors.Join(errs...)
	}
	// The trials are not read again: the summary is built from the
	// spool, and their Trials (a few hundred bytes each) can go before its
	// statistics take their memory.
	trials = nil
	k := keepOf(opts.SummaryValues, opts.SummaryWithoutEntries)
	summary, err := sp.writeFiles(filepath.Join(opts.Out, SummaryFile), filepath.Join(opts.Out, TrialsFile), opts.RunID, k)
	if err != nil {
		return nil, err
	}
	return summary, errors.Join(errs...)
}

// ErrTrialFailed is wrapped by the error Evaluate returns, once per
// trial that could not be evaluated.
var ErrTrialFailed = errors.New("trial failed")

// failedResult is the entry of a trial that could not be evaluated.
func failedResult(t *Trial, reason string) trialResult {
	return trialResult{
		warnings: slices.Clone(t.Warnings),
		entry: TaskEntry{
			Name: t.Name, Task: t.Task, Trial: t.Folder, Batch: t.Batch, Reward: t.Reward,
			Status: Failed, Reason: reason, Warnings: slices.Clone(t.Warnings), Values: map[string]float64{},
		},
	}
}

// failCommitted gives the trials whose artifacts the commit could not
// put in place (err joins one *atomicfile.FileError per trial), by index,
// with the reason each fails.
func failCommitted(trials []*Trial, out string, err error) map[int]string {
	byPath := map[string]int{}
	for i, t := range trials {
		dir := filepath.Join(out, t.Config)
		byPath[filepath.Join(dir, t.Name+EventsSuffix)] = i
		byPath[filepath.Join(dir, t.Name+MetricsSuffix)] = i
	}
	failed := map[int]string{}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		var fe *atomicfile.FileError
		if errors.As(e, &fe) {
			if i, ok := byPath[fe.Path]; ok {
				if _, done := failed[i]; !done {
					failed[i] = fe.Error()
				}
			}
		}
	}
	return failed
}

// checkNames makes sure no two trials of a configuration share an
// artifact stem, even on a case-insensitive file system (nameTrials
// makes them unique; this says so before anything is written).
func checkNames(trials []*Trial) error {
	type key struct{ config, name string }
	seen := map[key]string{}
	for _, t := range trials {
		k := key{t.Config, fold(t.Name)}
		if prev, ok := seen[k]; ok {
			return fmt.Errorf("trials %s and %s would write the same artifacts %s/%s.*", prev, t.Rel, t.Config, t.Name)
		}
		seen[k] = t.Rel
	}
	return nil
}

// evaluator is what every trial of one Evaluate shares.
type evaluator struct {
	opts Options

	mu     sync.Mutex
	truths map[string]*truthOnce

	// written holds the artifacts until Evaluate commits them.
	written atomicfile.Batch
}

// truthOnce loads one task's ground truth once, whichever worker asks
// first.
type truthOnce struct {
	once   sync.Once
	truth  *groundtruth.Truth
	reason string // why there is none
	warn   string
}

// A trialEnd is what the end of Evaluate reads of a trial: its
// warnings, its status and the reason for it.
type trialEnd struct {
	warnings []string
	status   TaskStatus
	reason   string
}

type trialResult struct {
	entry    TaskEntry
	warnings []string
	// coverage is the trial's coverage curve (CoverageCurve) when it is
	// computable.
	coverage []float64
}

// truth returns the ground truth of a task: the task folder
// root/<task>, or root/<last part of task> for a task name with a
// dataset prefix.
func (e *evaluator) truth(task string) *truthOnce {
	e.mu.Lock()
	to := e.truths[task]
	if to == nil {
		to = &truthOnce{}
		e.truths[task] = to
	}
	e.mu.Unlock()
	to.once.Do(func() {
		root := e.opts.GroundTruthRoot
		name := e.opts.NamePath
		if name == nil {
			name = func(p string) string { return p }
		}
		if root == "" {
			to.reason = "no ground-truth root given (-gt-root)"
			return
		}
		for _, cand := range []string{task, path.Base(task)} {
			dir := filepath.Join(root, filepath.FromSlash(cand))
			if rel, err := filepath.Rel(root, dir); err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				continue
			}
			truth, err := groundtruth.Load(dir)
			switch {
			case errors.Is(err, groundtruth.ErrNoGroundTruth):
				to.reason = fmt.Sprintf("the task folder %s has no ground truth", name(dir))
			case err != nil:
				to.reason = fmt.Sprintf("the ground truth in %s could not be read", name(dir))
				to.warn = strings.ReplaceAll(err.Error(), dir, name(dir))
			default:
				to.truth = truth
			}
			return
		}
		to.reason = fmt.Sprintf("no task folder for %q under %s", task, name(root))
	})
	return to
}

// process reads one trial's traces, merges them, measures the retrieval
// and writes the two artifacts.
// forget lets a task's ground truth go (WritePlan, which digests each
// task's once): it is loaded again if asked for.
func (e *evaluator) forget(task string) {
	e.mu.Lock()
	delete(e.truths, task)
	e.mu.Unlock()
}

func (e *evaluator) process(t *Trial) trialResult {
	if t.Failure != "" {
		return failedResult(t, t.Failure)
	}
	res := trialResult{warnings: slices.Clone(t.Warnings)}
	topts := e.opts.Trace
	if topts.MaxResultBytes == 0 {
		topts.MaxResultBytes = events.ResultBytesRead
	}
	tt := readTrial(t, topts)
	res.warnings = append(res.warnings, tt.warnings...)

	gt := e.truth(t.Task)
	if gt.warn != "" {
		res.warnings = append(res.warnings, gt.warn)
	}
	opts := e.opts.Events
	opts.Provenance = events.Provenance{
		RunID: e.opts.RunID, BatchTimestamp: t.Batch, TaskName: t.Task, ConfigName: t.Config, Benchmark: e.opts.Benchmark,
	}
	opts.TraceSource = tt.source
	if gt.truth != nil {
		opts.GroundTruth = gt.truth.Events()
	}
	var doc *events.Document
	if tt.sess == nil {
		doc = events.Degraded(tt.degraded, opts)
	} else {
		doc = events.Normalize(tt.sess, opts)
	}
	// "Found and parseable", whatever source the events came from: a
	// transcript set aside after a mismatch was still there.
	doc.Coverage.HasTrajectory, doc.Coverage.HasTranscript = tt.hasTraj, tt.hasTrans
	doc.Coverage.Warnings = append(doc.Coverage.Warnings, tt.warnings...)
	if tt.sess != nil && len(tt.sess.Warnings) > 0 {
		res.warnings = append(res.warnings, fmt.Sprintf("the trace reader skipped input (%d warning(s), first: %s)", tt.sess.WarningCount(), tt.sess.Warnings[0]))
	}

	mopts := e.opts.Metrics
	if gt.truth != nil {
		paths := opts.Paths
		if tt.sess != nil && paths.CWD == "" {
			paths.CWD = tt.sess.CWD
		}
		// Grades are keyed by the path as the document spells it.
		mopts.Grades = gt.truth.Grades(paths)
	}
	m := metrics.Compute(doc, mopts)

	dir := filepath.Join(e.opts.Out, t.Config)
	if err := writeTaskArtifacts(&e.written, dir, t.Name, doc, m); err != nil {
		return failedResult(t, err.Error())
	}
	entry := EntryOf(t.Name, t.Task, m)
	entry.Trial, entry.Batch, entry.Reward = t.Folder, t.Batch, t.Reward
	if entry.Status == NonComputable && gt.truth == nil && gt.reason != "" {
		entry.Reason = gt.reason
	}
	entry.Warnings = res.warnings
	entry.EventsFile = path.Join(t.Config, t.Name+EventsSuffix)
	entry.MetricsFile = path.Join(t.Config, t.Name+MetricsSuffix)
	res.entry = entry
	if entry.Status == Computable {
		res.coverage = CoverageCurve(doc)
	}
	return res
}
