// Package scenariorun finds, loads and evaluates scenario files, many at a
// time: the runner behind retrievaltest's FindScenarios, LoadAll,
// EvaluateAll and CheckFiles, and behind the check command, which uses it
// without the go test and godog glue of package retrievaltest (godog runs
// a child process when it starts). retrievaltest documents the behaviour.
package scenariorun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

// Options are retrievaltest.Options but for Parallel, which only Run
// reads.
type Options struct {
	Registry     *expectations.Registry
	Jobs         int
	Progress     func(s *expectations.Scenario, res *expectations.ScenarioResult, err error)
	Selected     func(n int)
	MaxInputSize int64
	KeepResults  func(result string) string
	// CWD is the working directory of the scenarios that set none (check
	// -cwd).
	CWD string
	// Recorder records the scenarios with a run key (see
	// expectations.EvalOptions.Recorder).
	Recorder expectations.Recorder
	// ReadsDone, when set, is called once every trace is read, from the
	// goroutine of the last read, before that trace's runs are made and
	// judged; a scenario with a run key counts as read once it is judged.
	// check lowers the garbage collector's percent then.
	ReadsDone func()
}

// Evaluate evaluates one loaded scenario, naming its file in errors; a
// scenario without cwd takes opts.CWD.
func Evaluate(ctx context.Context, opts Options, s *expectations.Scenario) (*expectations.ScenarioResult, error) {
	s = withDefaultCWD(s, opts)
	res, err := expectations.Evaluate(s, expectations.EvalOptions{Registry: opts.Registry, MaxInputSize: opts.MaxInputSize, Context: ctx, KeepResults: opts.KeepResults, Recorder: opts.Recorder})
	if err != nil {
		return nil, named(s, err)
	}
	return res, nil
}

// withDefaultCWD is s, or a copy of it with opts.CWD when it sets no cwd.
func withDefaultCWD(s *expectations.Scenario, opts Options) *expectations.Scenario {
	if s.CWD != "" || opts.CWD == "" {
		return s
	}
	withCWD := *s
	withCWD.CWD = opts.CWD
	return &withCWD
}

// named is err naming the scenario's file: trace errors usually name the
// trace only; it says which scenario needed it, unless the error already
// does.
func named(s *expectations.Scenario, err error) error {
	if !strings.Contains(err.Error(), s.File) {
		err = fmt.Errorf("%s: %w", s.File, err)
	}
	return err
}

// FindScenarios expands paths into scenario files, sorted and without
// duplicates: Find's Files.
func FindScenarios(paths ...string) ([]string, error) {
	found, err := Find(paths...)
	return found.Files, err
}

// Found are the files paths expand to.
type Found struct {
	// Files are the scenario files, sorted and without duplicates.
	Files []string
	// Skipped are the YAML files found in folders that are not scenarios
	// (see expectations.IsScenario), sorted.
	Skipped []string
	// parsed holds the files found in folders as they were parsed to tell
	// whether they are scenarios, for CheckFound to load without parsing
	// them again.
	parsed map[string]*expectations.ParsedFile
}

// Find expands paths into scenario files. A file is taken as it is; a
// folder is searched recursively for *.yaml and *.yml files, and those
// that are not scenarios (a taxonomy file, a docker-compose.yaml: no key
// only a scenario has, see expectations.IsScenario) are left out and
// listed as skipped. Below a folder, folders named testdata or vendor, or
// starting with ".", are skipped: they hold fixtures (known-bad scenarios
// among them) and tooling, not scenarios. A path that does not exist is an
// error. The YAML files found in folders are read all processors at a
// time (FindJobs says how many).
func Find(paths ...string) (Found, error) { return FindJobs(0, paths...) }

// FindJobs is Find reading the YAML files found in folders jobs at a
// time (all processors when jobs < 1).
func FindJobs(jobs int, paths ...string) (Found, error) {
	var found Found
	var candidates []string // the YAML files found in folders
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return Found{}, err
		}
		if !info.IsDir() {
			found.Files = append(found.Files, p)
			continue
		}
		root := p
		if l, err := os.Lstat(p); err == nil && l.Mode()&fs.ModeSymlink != 0 {
			// A folder named through a link is walked: WalkDir does not
			// follow a link, even the one it starts from, unless a
			// separator ends the path.
			root = p + string(filepath.Separator)
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
				candidates = append(candidates, path)
			}
			return nil
		})
		if err != nil {
			return Found{}, err
		}
	}
	skipped := make([]bool, len(candidates))
	parsed := make([]*expectations.ParsedFile, len(candidates))
	forEach(len(candidates), jobs, func(i int) {
		// A file that cannot be read is kept: Load says why.
		data, err := input.ReadFile(candidates[i], expectations.DefaultMaxScenarioSize)
		if err == nil {
			parsed[i] = expectations.ParseFile(candidates[i], data)
			skipped[i] = !parsed[i].IsScenario()
		}
	})
	for i, path := range candidates {
		if skipped[i] {
			found.Skipped = append(found.Skipped, path)
			continue
		}
		found.Files = append(found.Files, path)
		if parsed[i] != nil {
			if found.parsed == nil {
				found.parsed = map[string]*expectations.ParsedFile{}
			}
			found.parsed[path] = parsed[i]
		}
	}
	sort.Strings(found.Files)
	sort.Strings(found.Skipped)
	found.Files = slices.Compact(found.Files)
	found.Skipped = slices.Compact(found.Skipped)
	return found, nil
}

// forEach calls f(i) for every i below n, jobs at a time (all processors
// when jobs < 1); each call writes only its own index of what it fills,
// so the results keep their order whatever order the calls finish in.
func forEach(n, jobs int, f func(i int)) {
	if jobs < 1 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, n)
	if jobs <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}

// loadEach loads every file, opts.Jobs at a time, and returns each
// file's scenario or error at its index. A file in parsed is loaded from
// that parse, once, unless Load would refuse it as too large.
func loadEach(files []string, parsed map[string]*expectations.ParsedFile, opts Options) ([]*expectations.Scenario, []error) {
	scenarios := make([]*expectations.Scenario, len(files))
	errs := make([]error, len(files))
	lopts := expectations.LoadOptions{Registry: opts.Registry, MaxInputSize: opts.MaxInputSize}
	limit := input.Or(opts.MaxInputSize, expectations.DefaultMaxScenarioSize)
	forEach(len(files), opts.Jobs, func(i int) {
		if p := parsed[files[i]]; p != nil && int64(p.Size()) < limit {
			scenarios[i], errs[i] = p.Load(lopts)
			return
		}
		scenarios[i], errs[i] = expectations.Load(files[i], lopts)
	})
	return scenarios, errs
}

// LoadAll loads every scenario file, opts.Jobs at a time, and returns
// those that loaded, in order, and the errors of all the others, one for
// each problem, each naming its file:line:col.
func LoadAll(files []string, opts Options) ([]*expectations.Scenario, []error) {
	var out []*expectations.Scenario
	var errs []error
	loaded, loadErrs := loadEach(files, nil, opts)
	for i, s := range loaded {
		if err := loadErrs[i]; err != nil {
			var list expectations.Errors
			if errors.As(err, &list) {
				for _, e := range list {
					errs = append(errs, e)
				}
			} else {
				errs = append(errs, err)
			}
			continue
		}
		out = append(out, s)
	}
	return out, errs
}

// EvaluateAll evaluates loaded scenarios, opts.Jobs at a time (all
// processors when 0), and returns their results in the scenarios' order,
// whatever order they finish in: the same scenarios give the same results
// at any parallelism. A scenario that cannot be evaluated (an unreadable
// trace) has a nil result and an error naming its file; the errors come
// back in the same order. Once ctx is done, the scenarios not yet started
// fail with its error. opts.Progress, when set, is called as each scenario
// finishes, from one goroutine at a time.
func EvaluateAll(ctx context.Context, scenarios []*expectations.Scenario, opts Options) ([]*expectations.ScenarioResult, []error) {
	if opts.Selected != nil {
		opts.Selected(len(scenarios))
	}
	results, errs := evaluateAll(ctx, scenarios, opts)
	var out []error
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	return results, out
}

// evaluateAll is EvaluateAll with one error a scenario, nil for those
// that were evaluated.
//
// Each trace file is read once however many scenarios name it (with the
// same format and trace id): one job reads it for all of them
// (expectations.MeasureEach), and a scenario is judged once the last of
// its traces is measured. Jobs are the traces, and the scenarios with a
// run key, which record traces of their own; they start in the order the
// scenarios first name them.
func evaluateAll(ctx context.Context, scenarios []*expectations.Scenario, opts Options) ([]*expectations.ScenarioResult, []error) {
	jobs := opts.Jobs
	if jobs < 1 {
		jobs = runtime.GOMAXPROCS(0)
	}
	e := &evaluation{
		opts:     opts,
		eopts:    expectations.EvalOptions{Registry: opts.Registry, MaxInputSize: opts.MaxInputSize, Context: ctx, KeepResults: opts.KeepResults, Recorder: opts.Recorder},
		results:  make([]*expectations.ScenarioResult, len(scenarios)),
		errs:     make([]error, len(scenarios)),
		runs:     make([][]*expectations.Run, len(scenarios)),
		traceErr: make([][]error, len(scenarios)),
		left:     make([]int, len(scenarios)),
	}
	var work []func()
	groups := map[traceKey]int{} // the index in reads of each trace's read
	var reads []*traceRead
	scenarios = slices.Clone(scenarios)
	for k, s := range scenarios {
		s = withDefaultCWD(s, opts)
		scenarios[k] = s
		if len(s.Run) > 0 {
			work = append(work, func() {
				if ctx.Err() != nil {
					e.errs[k] = fmt.Errorf("%s: %w", s.File, ctx.Err())
				} else {
					e.results[k], e.errs[k] = Evaluate(ctx, opts, s)
				}
				e.readDone()
				e.progress(s, k)
			})
			continue
		}
		mopts, err := s.MeasureOptions(e.eopts)
		if err != nil || len(s.Traces) == 0 {
			work = append(work, func() {
				if err != nil {
					e.errs[k] = named(s, err)
				} else {
					e.results[k] = expectations.EvaluateRuns(s, nil, e.eopts)
				}
				e.readDone()
				e.progress(s, k)
			})
			continue
		}
		e.runs[k] = make([]*expectations.Run, len(s.Traces))
		e.traceErr[k] = make([]error, len(s.Traces))
		e.left[k] = len(s.Traces)
		for i, t := range s.Traces {
			key := traceKey{file: t, format: mopts.Format, id: mopts.TraceID}
			g, ok := groups[key]
			if !ok {
				g = len(reads)
				groups[key] = g
				reads = append(reads, &traceRead{file: t})
				work = append(work, func() { e.read(ctx, scenarios, reads[g]) })
			}
			reads[g].uses = append(reads[g].uses, traceUse{scenario: k, trace: i})
			reads[g].opts = append(reads[g].opts, mopts)
		}
	}
	e.readsLeft.Store(int64(len(work)))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for _, w := range work {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			w()
		})
	}
	wg.Wait()
	return e.results, e.errs
}

// measureEach is expectations.MeasureEach; tests count the reads.
var measureEach = expectations.MeasureEach

// An evaluation holds the scenarios' results as their traces are
// measured.
type evaluation struct {
	opts    Options
	eopts   expectations.EvalOptions
	results []*expectations.ScenarioResult
	errs    []error

	mu       sync.Mutex // guards runs, traceErr and left, and calls to Progress
	runs     [][]*expectations.Run
	traceErr [][]error
	left     []int // the traces of a scenario not measured yet

	readsLeft atomic.Int64 // the jobs not done reading
}

// readDone counts a job done reading, and calls opts.ReadsDone after the
// last.
func (e *evaluation) readDone() {
	if e.readsLeft.Add(-1) == 0 && e.opts.ReadsDone != nil {
		e.opts.ReadsDone()
	}
}

// traceKey names one read of a trace file.
type traceKey struct{ file, format, id string }

// A traceRead is one trace file and the scenarios' uses of it.
type traceRead struct {
	file string
	uses []traceUse
	opts []expectations.MeasureOptions // of each use
}

// traceUse is the trace-th trace of the scenario-th scenario.
type traceUse struct{ scenario, trace int }

// read measures one trace for every scenario that names it and judges the
// scenarios whose last trace it was.
func (e *evaluation) read(ctx context.Context, scenarios []*expectations.Scenario, r *traceRead) {
	// The read is done as MeasureEach starts making the runs, or as it
	// returns when it read nothing.
	var once sync.Once
	readDone := func() { once.Do(e.readDone) }
	var runs []*expectations.Run
	var errs []error
	if err := ctx.Err(); err != nil {
		errs = make([]error, len(r.uses))
		for u := range errs {
			errs[u] = err
		}
	} else {
		opts := slices.Clone(r.opts)
		opts[0].ReadDone = readDone
		runs, errs = measureEach(r.file, opts)
	}
	readDone()
	for u, use := range r.uses {
		k, s := use.scenario, scenarios[use.scenario]
		e.mu.Lock()
		if errs[u] != nil {
			e.traceErr[k][use.trace] = errs[u]
		} else {
			e.runs[k][use.trace] = runs[u]
		}
		e.left[k]--
		done := e.left[k] == 0
		e.mu.Unlock()
		if !done {
			continue
		}
		// The first trace that failed, as Evaluate reports it.
		for i, err := range e.traceErr[k] {
			if err == nil {
				continue
			}
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				e.errs[k] = fmt.Errorf("%s: %w", s.File, err)
			} else {
				e.errs[k] = named(s, s.TraceError(i, err))
			}
			break
		}
		if e.errs[k] == nil {
			e.results[k] = expectations.EvaluateRuns(s, e.runs[k], e.eopts)
		}
		e.runs[k], e.traceErr[k] = nil, nil
		e.progress(s, k)
	}
}

// progress reports that scenario k is done.
func (e *evaluation) progress(s *expectations.Scenario, k int) {
	if e.opts.Progress == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opts.Progress(s, e.results[k], e.errs[k])
}

// CheckFiles loads every scenario file and evaluates those that load and
// that keep selects (every one when keep is nil), opts.Jobs at a time
// (keep is called from one goroutine, in file order). It
// never stops at a bad file: it returns the results of every scenario it
// evaluated, in file order, and a ScenarioError for every file that did not
// load (with all of its problems) or whose traces could not be read, in
// file order too. A report built from both shows every scenario.
func CheckFiles(ctx context.Context, files []string, keep func(*expectations.Scenario) bool, opts Options) ([]*expectations.ScenarioResult, []*expectations.ScenarioError) {
	return CheckFound(ctx, Found{Files: files}, keep, opts)
}

// CheckFound is CheckFiles on the files Find found, loading those it
// found in folders from the parse that told they are scenarios instead of
// reading and parsing them again.
func CheckFound(ctx context.Context, found Found, keep func(*expectations.Scenario) bool, opts Options) ([]*expectations.ScenarioResult, []*expectations.ScenarioError) {
	files := found.Files
	var bad []*expectations.ScenarioError
	var scenarios []*expectations.Scenario
	loaded, loadErrs := loadEach(files, found.parsed, opts)
	for i, f := range files {
		s, err := loaded[i], loadErrs[i]
		switch {
		case err != nil:
			bad = append(bad, expectations.NewScenarioError(f, "", err))
		case keep == nil || keep(s):
			scenarios = append(scenarios, s)
		}
	}
	if opts.Selected != nil {
		opts.Selected(len(scenarios))
	}
	results, errs := evaluateAll(ctx, scenarios, opts)
	var out []*expectations.ScenarioResult
	for i, res := range results {
		if errs[i] != nil {
			bad = append(bad, expectations.NewScenarioError(scenarios[i].File, scenarios[i].Name, errs[i]))
		} else {
			out = append(out, res)
		}
	}
	order := map[string]int{}
	for i, f := range files {
		order[f] = i
	}
	slices.SortStableFunc(bad, func(a, b *expectations.ScenarioError) int { return order[a.File] - order[b.File] })
	return out, bad
}
