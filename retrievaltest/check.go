package retrievaltest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/scenariorun"
)

// Options control Check and Run. The zero value uses the built-in
// expectation types.
type Options struct {
	// Registry holds the expectation types scenario files may use; nil
	// means expectations.DefaultRegistry(). Build one with
	// expectations.DefaultRegistry and expectations.RegisterFunc to add
	// your own types.
	Registry *expectations.Registry
	// Parallel runs the scenarios' subtests in parallel (Run only).
	Parallel bool
	// Jobs is the number of scenarios EvaluateAll evaluates at once, and
	// of files LoadAll and CheckFiles load at once; 0 means
	// runtime.GOMAXPROCS(0).
	Jobs int
	// Progress, when set, is called by EvaluateAll as each scenario
	// finishes, with its result or the error that stopped it.
	Progress func(s *expectations.Scenario, res *expectations.ScenarioResult, err error)
	// Selected, when set, is called by CheckFiles once the files are
	// loaded, with the number of scenarios it is about to evaluate.
	Selected func(n int)
	// MaxInputSize, when positive, bounds in bytes every scenario file and
	// every trace file read; zero keeps the defaults of
	// expectations.LoadOptions and trace.Options. Ground truth, taxonomy
	// and symbol files are bounded by their packages' SetMaxInputSize.
	MaxInputSize int64
	// KeepResults keeps what it returns of the tool calls' results in the
	// runs of the results, for a report that shows them:
	// htmlreport.ShownResult for htmlreport.WriteCheck. By default a
	// run's session holds no result, and its calls only when an
	// expectation of the scenario may read them (expectations.Type.ReadsCalls).
	KeepResults func(result string) string
	// CWD is the agent's working directory for the scenarios without a cwd
	// key (see expectations.Scenario.CWD); "" keeps each trace's own.
	CWD string
	// Recorder runs the command of a scenario's run key under an OTLP
	// receiver: collect.Record, from package collect, as the
	// retrievaltest command does. nil makes a scenario with a run key fail
	// with expectations.ErrNoRecorder; the scenarios that name their
	// traces need none, and a gate without one does not compile the
	// receiver's HTTP server.
	Recorder expectations.Recorder
	// ReadsDone, when set, is called by EvaluateAll and CheckFiles once
	// every trace is read, before the runs of the last are made and judged:
	// what is left holds the events and allocates little (the retrievaltest
	// command lowers the garbage collector's percent then).
	ReadsDone func()
}

// Check loads the scenario files that patterns name and evaluates them.
// It is CheckWith with the zero Options.
func Check(patterns ...string) ([]*expectations.ScenarioResult, error) {
	return CheckWith(Options{}, patterns...)
}

// CheckWith loads the scenario files that patterns name and evaluates them.
//
// A pattern is a file, a folder (its *.yaml and *.yml files) or a glob of
// filepath.Match; every pattern must name at least one file, so that a
// misspelt pattern cannot turn a gate into a test of nothing. Files named
// twice are checked once.
//
// CheckWith returns the results of every scenario it could load and
// evaluate, in file order, and an error that lists every problem found in
// the others: all load errors of all files at their file:line:col, then
// evaluation errors (an unreadable trace). The error is nil only when every
// file was checked; whether the scenarios passed is in the results (see
// expectations.ScenarioResult.Failed).
func CheckWith(opts Options, patterns ...string) ([]*expectations.ScenarioResult, error) {
	scenarios, loadErr := load(opts, patterns)
	var errs []error
	if loadErr != nil {
		errs = append(errs, loadErr)
	}
	var results []*expectations.ScenarioResult
	for _, s := range scenarios {
		res, err := scenariorun.Evaluate(context.Background(), opts.runner(), s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		results = append(results, res)
	}
	return results, errors.Join(errs...)
}

// load expands patterns and loads every file, reporting all problems of
// all files together.
func load(opts Options, patterns []string) ([]*expectations.Scenario, error) {
	files, err := expand(patterns)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	var scenarios []*expectations.Scenario
	for _, f := range files {
		s, err := expectations.Load(f, expectations.LoadOptions{Registry: opts.Registry, MaxInputSize: opts.MaxInputSize})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scenarios = append(scenarios, s)
	}
	return scenarios, errors.Join(errs...)
}

// expand turns patterns into a list of scenario files without duplicates,
// in pattern order and sorted within a pattern.
func expand(patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return nil, errors.New("retrievaltest: no scenario files given")
	}
	var (
		files []string
		seen  = map[string]bool{}
		errs  []error
	)
	add := func(f string) {
		if key := filepath.Clean(f); !seen[key] {
			seen[key] = true
			files = append(files, f)
		}
	}
	for _, p := range patterns {
		matches, err := filepath.Glob(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("retrievaltest: pattern %q: %w", p, err))
			continue
		}
		n := 0
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if !fi.IsDir() {
				add(m)
				n++
				continue
			}
			for _, ext := range []string{"*.yaml", "*.yml"} {
				inDir, _ := filepath.Glob(filepath.Join(m, ext)) // the pattern is valid
				for _, f := range inDir {
					add(f)
					n++
				}
			}
		}
		if n == 0 {
			errs = append(errs, fmt.Errorf("retrievaltest: %q matches no scenario file", p))
		}
	}
	return files, errors.Join(errs...)
}
