package retrievaltest

import (
	"context"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/scenariorun"
)

// FindScenarios expands paths into scenario files, sorted and without
// duplicates. A file is taken as it is; a folder is searched recursively
// for *.yaml and *.yml files, leaving out those that are not scenarios (no
// key only a scenario has: see expectations.IsScenario). Below a folder, folders named testdata or
// vendor, or starting with ".", are skipped: they hold fixtures (known-bad
// scenarios among them) and tooling, not scenarios. A path that does not
// exist is an error.
func FindScenarios(paths ...string) ([]string, error) { return scenariorun.FindScenarios(paths...) }

// LoadAll loads every scenario file, opts.Jobs at a time, and returns
// those that loaded, in order, and the errors of all the others, one for
// each problem, each naming its file:line:col.
func LoadAll(files []string, opts Options) ([]*expectations.Scenario, []error) {
	return scenariorun.LoadAll(files, opts.runner())
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
	return scenariorun.EvaluateAll(ctx, scenarios, opts.runner())
}

// CheckFiles loads every scenario file and evaluates those that load and
// that keep selects (every one when keep is nil), opts.Jobs at a time. It
// never stops at a bad file: it returns the results of every scenario it
// evaluated, in file order, and a ScenarioError for every file that did not
// load (with all of its problems) or whose traces could not be read, in
// file order too. A report built from both shows every scenario.
func CheckFiles(ctx context.Context, files []string, keep func(*expectations.Scenario) bool, opts Options) ([]*expectations.ScenarioResult, []*expectations.ScenarioError) {
	return scenariorun.CheckFiles(ctx, files, keep, opts.runner())
}

// runner is what the runner of scenarios takes of opts.
func (opts Options) runner() scenariorun.Options {
	return scenariorun.Options{
		Registry:     opts.Registry,
		Jobs:         opts.Jobs,
		Progress:     opts.Progress,
		Selected:     opts.Selected,
		MaxInputSize: opts.MaxInputSize,
		KeepResults:  opts.KeepResults,
		CWD:          opts.CWD,
		Recorder:     opts.Recorder,
		ReadsDone:    opts.ReadsDone,
	}
}
