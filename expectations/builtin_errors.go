package expectations

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// CallErrors are the parameters of the errors expectation: bounds on the calls
// whose result the trace marks as an error, and on retry loops.
type CallErrors struct {
	MaxFailed     *int             `yaml:"max_failed" doc:"most failed calls in all" min:"0"`
	Failed        map[string]Bound `yaml:"failed" doc:"failed-call bounds per tool name or glob (path.Match)"`
	FailedByClass map[string]Bound `yaml:"failed_by_class" doc:"failed-call bounds per class: semantic, file_level, edit, other"`
	MaxRetries    *int             `yaml:"max_retries" doc:"most times a failed call is repeated right after itself (same tool, same arguments) while it keeps failing: a retry loop" min:"0"`
}

func errorsType() Type {
	return Type{
		Name:        "errors",
		Description: "failed tool calls, by tool and class, and retry loops of the same failing call",
		Params:      CallErrors{},
		// Only a retry, the same call failing again, compares arguments.
		ReadsCalls: func(params any) bool { return params.(*CallErrors).MaxRetries != nil },
		Check:      func(p any, run *Run) Outcome { return checkErrors(p.(*CallErrors), run) },
		Validate: func(p any) error {
			e := p.(*CallErrors)
			if e.MaxFailed == nil && len(e.Failed) == 0 && len(e.FailedByClass) == 0 && e.MaxRetries == nil {
				return errors.New("no rule: give at least one of max_failed, failed, failed_by_class, max_retries")
			}
			for _, g := range slices.Sorted(maps.Keys(e.Failed)) {
				if _, err := path.Match(g, ""); err != nil {
					return fmt.Errorf("failed: %q is not a glob: %v", g, err)
				}
				if err := boundPair("failed."+g, e.Failed[g]); err != nil {
					return err
				}
			}
			for _, c := range slices.Sorted(maps.Keys(e.FailedByClass)) {
				if !slices.Contains(knownClasses, c) {
					return fmt.Errorf("failed_by_class: %s", unknownMessage("unknown class", c, "", knownClasses))
				}
				if err := boundPair("failed_by_class."+c, e.FailedByClass[c]); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func boundPair(name string, b Bound) error {
	switch {
	case b.Min == nil && b.Max == nil:
		return fmt.Errorf("%s: give min, max or both", name)
	case b.Min != nil && b.Max != nil && *b.Min > *b.Max:
		return fmt.Errorf("%s: min %s is above max %s", name, formatNumber(*b.Min), formatNumber(*b.Max))
	}
	return nil
}

func checkErrors(e *CallErrors, run *Run) Outcome {
	calls, _, ok := callViews(run)
	if !ok {
		return fail("the run has no trace to read tool calls from")
	}
	var failed []callView
	for _, c := range calls {
		if c.failed {
			failed = append(failed, c)
		}
	}
	var cs checks
	if len(failed) > 0 {
		cs.evidenceOf("failed calls at " + stepsText(stepsOf(failed)))
	}
	if e.MaxFailed != nil {
		cs.add(numberCheck("failed calls", ptr(float64(len(failed))), nil, intPtrToFloat(e.MaxFailed), false, ""))
	}
	for _, g := range slices.Sorted(maps.Keys(e.Failed)) {
		var steps []int
		for _, c := range failed {
			if ok, _ := path.Match(g, c.name); ok {
				steps = append(steps, c.step)
			}
		}
		c := numberCheck("failed "+g+" calls", ptr(float64(len(steps))), e.Failed[g].Min, e.Failed[g].Max, false, "")
		if len(steps) > 0 {
			c.detail = "at " + stepsText(steps)
		}
		cs.add(c)
	}
	for _, class := range slices.Sorted(maps.Keys(e.FailedByClass)) {
		var steps []int
		for _, c := range failed {
			if c.class == class {
				steps = append(steps, c.step)
			}
		}
		c := numberCheck("failed "+class+" calls", ptr(float64(len(steps))), e.FailedByClass[class].Min, e.FailedByClass[class].Max, false, "")
		if len(steps) > 0 {
			c.detail = "at " + stepsText(steps)
		}
		if run.Document == nil || run.Document.Coverage.TraceSource == nil {
			c.missing = "the run has no classified events"
		}
		cs.add(c)
	}
	if e.MaxRetries != nil {
		loop := longestRetryLoop(calls)
		retries := max(len(loop)-1, 0)
		c := numberCheck("retries of a failing call", ptr(float64(retries)), nil, intPtrToFloat(e.MaxRetries), false, "")
		if len(loop) > 1 {
			c.detail = fmt.Sprintf("%s %s failed %d times in a row at %s", loop[0].name, argsSummary(loop[0].key()), len(loop), stepsText(stepsOf(loop)))
			cs.evidenceOf("retry loop: " + c.detail)
		}
		cs.add(c)
	}
	return cs.outcome()
}

// longestRetryLoop returns the longest run of consecutive calls that all
// failed with the same tool and the same arguments (the first such run
// when several are as long).
func longestRetryLoop(calls []callView) []callView {
	var best, cur []callView
	for _, c := range calls {
		switch {
		case !c.failed:
			cur = nil
			continue
		case len(cur) > 0 && cur[0].name == c.name && cur[0].key() == c.key():
			cur = append(cur, c)
		default:
			cur = []callView{c}
		}
		if len(cur) > len(best) {
			best = cur
		}
	}
	return best
}

// argsSummary shortens a call's arguments for a message.
func argsSummary(key string) string {
	const limit = 80
	if key == "" {
		return "(no arguments)"
	}
	if r := []rune(key); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return strings.TrimSpace(key)
}
