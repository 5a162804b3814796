package judge

import (
	"fmt"

	"github.com/agentretrieval/agentretrieval/expectations"
)

// Check checks e against run with the types of reg (nil means
// expectations.DefaultRegistry()): nil when e holds, else an error that
// says what was measured against what. An expectation that cannot be
// judged on the run fails too: the caller asked for it explicitly.
func Check(reg *expectations.Registry, run *expectations.Run, e *expectations.Expectation) error {
	if reg == nil {
		reg = expectations.DefaultRegistry()
	}
	o := expectations.CheckOne(e, run, reg)
	switch o.Status {
	case expectations.Pass:
		return nil
	case expectations.Skipped:
		return fmt.Errorf("%s\n    (cannot be judged on this run)", Outcome(e.Type, o))
	default:
		return fmt.Errorf("%s", Outcome(e.Type, o))
	}
}

// SemanticRatio is index_usage with min_semantic_ratio min.
func SemanticRatio(min float64) *expectations.Expectation {
	return &expectations.Expectation{Type: "index_usage", Params: &expectations.IndexUsage{MinSemanticRatio: &min}}
}

// StepsToTarget is index_usage with max_steps_to_target max.
func StepsToTarget(max int) *expectations.Expectation {
	return &expectations.Expectation{Type: "index_usage", Params: &expectations.IndexUsage{MaxStepsToTarget: &max}}
}

// MetricBound is retrieval with one metric's bounds (nil for none).
func MetricBound(name string, min, max *float64) *expectations.Expectation {
	return &expectations.Expectation{Type: "retrieval", Params: &expectations.Retrieval{
		Metrics: map[string]expectations.Bound{name: {Min: min, Max: max}},
	}}
}

// Patterns is patterns with the patterns to forbid and to require.
func Patterns(forbid, require []string) *expectations.Expectation {
	return &expectations.Expectation{Type: "patterns", Params: &expectations.Patterns{Forbid: forbid, Require: require}}
}

// Tools is tools with the tools that must be called and those that must not.
func Tools(mustCall, mustNotCall []string) *expectations.Expectation {
	return &expectations.Expectation{Type: "tools", Params: &expectations.Tools{MustCall: mustCall, MustNotCall: mustNotCall}}
}
