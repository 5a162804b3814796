package expectations

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
)

// Tools are the parameters of the tools expectation.
type Tools struct {
	MustCall    []string         `yaml:"must_call" doc:"tool names or globs each called at least once" format:"glob"`
	MustNotCall []string         `yaml:"must_not_call" doc:"tool names or globs never called" format:"glob"`
	Calls       map[string]Bound `yaml:"calls" doc:"call-count bounds per tool name or glob"`
	MaxCalls    *int             `yaml:"max_calls" doc:"most tool calls in all" min:"0"`
}

func toolsType() Type {
	return Type{
		Name:        "tools",
		Description: "which tools the agent called and how often, by tool name or glob (path.Match)",
		Params:      Tools{},
		ReadsCalls:  readsNoCalls,
		Check:       func(p any, run *Run) Outcome { return checkTools(p.(*Tools), run) },
		Validate: func(p any) error {
			t := p.(*Tools)
			if len(t.MustCall) == 0 && len(t.MustNotCall) == 0 && len(t.Calls) == 0 && t.MaxCalls == nil {
				return errors.New("no rule: give at least one of must_call, must_not_call, calls, max_calls")
			}
			for _, g := range slices.Sorted(maps.Keys(t.Calls)) {
				b := t.Calls[g]
				if _, err := path.Match(g, ""); err != nil {
					return fmt.Errorf("calls: %q is not a glob: %v", g, err)
				}
				switch {
				case b.Min == nil && b.Max == nil:
					return fmt.Errorf("calls.%s: give min, max or both", g)
				case b.Min != nil && b.Max != nil && *b.Min > *b.Max:
					return fmt.Errorf("calls.%s: min %s is above max %s", g, formatNumber(*b.Min), formatNumber(*b.Max))
				}
			}
			for _, g := range t.MustCall {
				if slices.Contains(t.MustNotCall, g) {
					return fmt.Errorf("%s is in both must_call and must_not_call: no run can pass", g)
				}
			}
			return nil
		},
	}
}

// toolCall is one call's step and name.
type toolCall struct {
	step int
	name string
}

func callsOf(run *Run) ([]toolCall, bool) {
	switch {
	case run == nil:
		return nil, false
	case run.Document != nil && run.Document.Coverage.TraceSource != nil:
		out := make([]toolCall, len(run.Document.Events))
		for i, ev := range run.Document.Events {
			out[i] = toolCall{ev.StepIndex, ev.ToolName}
		}
		return out, true
	case run.Session != nil:
		out := make([]toolCall, len(run.Session.Calls))
		for i, c := range run.Session.Calls {
			out[i] = toolCall{c.Index, c.Name}
		}
		return out, true
	}
	return nil, false
}

// matching returns the steps of the calls whose tool name matches glob.
func matching(calls []toolCall, glob string) []int {
	var steps []int
	for _, c := range calls {
		if ok, _ := path.Match(glob, c.name); ok {
			steps = append(steps, c.step)
		}
	}
	return steps
}

func checkTools(p *Tools, run *Run) Outcome {
	calls, ok := callsOf(run)
	if !ok {
		return fail("the run has no trace to count tool calls in")
	}
	var cs checks
	for _, g := range p.MustCall {
		steps := matching(calls, g)
		c := check{name: g + " calls", measured: callCount(steps), threshold: "at least one", ok: len(steps) > 0}
		if len(steps) > 0 {
			cs.evidenceOf(fmt.Sprintf("%s called at %s", g, stepsText(steps)))
		}
		cs.add(c)
	}
	for _, g := range p.MustNotCall {
		steps := matching(calls, g)
		c := check{name: g + " calls", measured: callCount(steps), threshold: "none", ok: len(steps) == 0}
		if len(steps) > 0 {
			cs.evidenceOf(fmt.Sprintf("%s called at %s", g, stepsText(steps)))
		}
		cs.add(c)
	}
	for _, g := range slices.Sorted(maps.Keys(p.Calls)) {
		b := p.Calls[g]
		steps := matching(calls, g)
		c := numberCheck(g+" calls", ptr(float64(len(steps))), b.Min, b.Max, false, "")
		if len(steps) > 0 {
			c.detail = "at " + stepsText(steps)
		}
		cs.add(c)
	}
	if p.MaxCalls != nil {
		cs.add(numberCheck("tool calls", ptr(float64(len(calls))), nil, intPtrToFloat(p.MaxCalls), false, ""))
	}
	return cs.outcome()
}

func callCount(steps []int) string {
	if len(steps) == 0 {
		return "none"
	}
	return plural1(len(steps), "call", "calls") + " at " + stepsText(steps)
}
