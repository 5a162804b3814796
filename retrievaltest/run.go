package retrievaltest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/scenariorun"
	"github.com/agentretrieval/agentretrieval/retrievaltest/internal/judge"
)

// Run checks the scenario files that patterns name (see CheckWith) as
// subtests of t: one per scenario, named by the scenario's name, and
// within it one per expectation, named by its type ("index_usage", a
// second one "index_usage#2"), so that
//
//	go test -run 'TestScenarios/fix-bug/index_usage'
//
// runs one expectation. A failed expectation fails its subtest with the
// measured value, the threshold, the evidence and the expectation's
// file:line:col; a skipped one (a type that needs a live run) skips its
// subtest with the reason; a flaky one that failed is logged and passes.
// A scenario whose traces cannot be read fails its subtest. Files that do
// not load fail t itself, with every error of every file listed; the
// scenarios that did load still run.
func Run(t *testing.T, patterns ...string) {
	t.Helper()
	run(t, Options{}, patterns)
}

// RunWith is Run with options, for example a registry holding your own
// expectation types.
func RunWith(t *testing.T, opts Options, patterns ...string) {
	t.Helper()
	run(t, opts, patterns)
}

// tester is the part of *testing.T that Run uses, generic in its own type
// so that Run's tests can drive it with a recording fake.
type tester[T any] interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
	Skip(args ...any)
	Parallel()
	Run(name string, f func(T)) bool
}

func run[T tester[T]](t T, opts Options, patterns []string) {
	t.Helper()
	scenarios, err := load(opts, patterns)
	if err != nil {
		t.Errorf("scenario files did not load:\n%v", err)
	}
	for _, s := range scenarios {
		// The subtests are helpers too, so that go test shows a failure at
		// the line that called Run, followed by the scenario's
		// file:line:col, rather than at a line of this file.
		t.Run(scenarioName(s), func(t T) {
			t.Helper()
			if opts.Parallel {
				t.Parallel()
			}
			res, err := scenariorun.Evaluate(context.Background(), opts.runner(), s)
			if err != nil {
				t.Errorf("%v", err)
				return
			}
			names := subtestNames(res.Results)
			for i, r := range res.Results {
				t.Run(names[i], func(t T) {
					t.Helper()
					reportResult(t, r)
				})
			}
		})
	}
}

// reportResult turns one expectation's result into the subtest's outcome.
func reportResult[T tester[T]](t T, r *expectations.Result) {
	t.Helper()
	switch {
	case r.Status == expectations.Skipped:
		t.Skip(judge.Result(r))
	case r.Status == expectations.Fail && r.Flaky:
		t.Logf("flaky, not failing:\n%s", judge.Result(r))
	case r.Status == expectations.Fail:
		t.Errorf("%s", judge.Result(r))
	case r.Status == expectations.Pass:
		t.Logf("%s", judge.Result(r))
	default:
		t.Errorf("%s: unknown status %q", r.Pos, r.Status)
	}
}

// scenarioName is the scenario's name, or its file name without extension
// when it has none.
func scenarioName(s *expectations.Scenario) string {
	if s.Name != "" {
		return s.Name
	}
	base := filepath.Base(s.File)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// subtestNames names each result by its type, numbering repeats from the
// second on: index_usage, index_usage#2. (The testing package would number
// them itself, but from #01 and without saying so in the scenario's terms.)
func subtestNames(results []*expectations.Result) []string {
	names := make([]string, len(results))
	seen := map[string]int{}
	for i, r := range results {
		seen[r.Type]++
		names[i] = r.Type
		if n := seen[r.Type]; n > 1 {
			names[i] = fmt.Sprintf("%s#%d", r.Type, n)
		}
	}
	return names
}
