package expectations

import (
	"errors"
	"fmt"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// Budget are the parameters of the budget expectation: the cost of
// reaching the first relevant file, and of the whole run.
type Budget struct {
	MaxCallsBeforeFirstRelevant   *int     `yaml:"max_calls_before_first_relevant" doc:"most calls before the first call that names a relevant file" min:"0"`
	MaxTokensBeforeFirstRelevant  *int64   `yaml:"max_tokens_before_first_relevant" doc:"most cumulative tokens at the first call that names a relevant file" min:"0"`
	MaxSecondsBeforeFirstRelevant *float64 `yaml:"max_seconds_before_first_relevant" doc:"most seconds from the start of the run to the first call that names a relevant file" min:"0"`
	MaxTotalCalls                 *int     `yaml:"max_total_calls" doc:"most tool calls in the run" min:"0"`
	MaxTotalTokens                *int64   `yaml:"max_total_tokens" doc:"most tokens in the session" min:"0"`
}

func budgetType() Type {
	return Type{
		Name:        "budget",
		Description: "the cost of reaching the first relevant file (calls, tokens, seconds), and of the whole run",
		Params:      Budget{},
		ReadsCalls:  readsNoCalls,
		Check:       func(p any, run *Run) Outcome { return checkBudget(p.(*Budget), run) },
		Validate: func(p any) error {
			b := p.(*Budget)
			if b.MaxCallsBeforeFirstRelevant == nil && b.MaxTokensBeforeFirstRelevant == nil && b.MaxSecondsBeforeFirstRelevant == nil &&
				b.MaxTotalCalls == nil && b.MaxTotalTokens == nil {
				return errors.New("no limit: give at least one of max_calls_before_first_relevant, max_tokens_before_first_relevant, max_seconds_before_first_relevant, max_total_calls, max_total_tokens")
			}
			return nil
		},
	}
}

// checkBudget reads the milestone of the first relevant file in the
// surfaced view (the event that first named a relevant file, in arguments
// or results): calls before it are the calls spent looking, while tokens
// and seconds are the run's totals at that event, as metrics records them.
func checkBudget(p *Budget, run *Run) Outcome {
	if run == nil || run.Metrics == nil {
		return fail("the run was not measured")
	}
	res := run.Metrics
	first, why := firstRelevant(res)
	var cs checks
	if p.MaxCallsBeforeFirstRelevant != nil {
		var v *float64
		if first != nil && first.Steps != nil {
			v = ptr(float64(*first.Steps - 1))
		}
		c := numberCheck("calls before the first relevant file", v, nil, intPtrToFloat(p.MaxCallsBeforeFirstRelevant), false, why)
		cs.add(withMilestone(c, first))
	}
	if p.MaxTokensBeforeFirstRelevant != nil {
		var v *float64
		w := why
		if first != nil {
			v = intPtrToFloat(first.Tokens)
			if v == nil {
				w = "the trace records no token counts"
			}
		}
		c := numberCheck("tokens at the first relevant file", v, nil, intPtrToFloat(p.MaxTokensBeforeFirstRelevant), false, w)
		cs.add(withMilestone(c, first))
	}
	if p.MaxSecondsBeforeFirstRelevant != nil {
		var v *float64
		w := why
		if first != nil {
			v = first.Seconds
			if v == nil {
				w = "the trace records no timestamps"
			}
		}
		c := numberCheck("seconds to the first relevant file", v, nil, p.MaxSecondsBeforeFirstRelevant, false, w)
		cs.add(withMilestone(c, first))
	}
	if p.MaxTotalCalls != nil {
		calls, ok := callsOf(run)
		var v *float64
		if ok {
			v = ptr(float64(len(calls)))
		}
		cs.add(numberCheck("total tool calls", v, nil, intPtrToFloat(p.MaxTotalCalls), false, "the run has no trace"))
	}
	if p.MaxTotalTokens != nil {
		v, detail := totalTokens(run)
		c := numberCheck("total tokens", v, nil, intPtrToFloat(p.MaxTotalTokens), false, "the trace records no token usage")
		if v != nil {
			c.detail = detail
		}
		cs.add(c)
	}
	if first != nil && first.StepIndex != nil {
		cs.evidenceOf(fmt.Sprintf("step %d: first relevant file %s", *first.StepIndex+1, first.File))
	}
	return cs.outcome()
}

// firstRelevant returns the first-relevant milestone of the surfaced view,
// or why there is none.
func firstRelevant(res *metrics.Result) (*metrics.Milestone, string) {
	if !res.Computable || res.Time == nil {
		reason := "no ground truth"
		if res.NonComputableReason != nil {
			reason = *res.NonComputableReason
		}
		return nil, "not computable: " + reason
	}
	m := res.Time.View(metrics.Surfaced).First
	if !m.Reached {
		reason := m.Reason
		if reason == "" {
			reason = "no relevant file was reached"
		}
		return nil, reason
	}
	return &m, ""
}

func withMilestone(c check, m *metrics.Milestone) check {
	if m != nil && m.Steps != nil && c.missing == "" {
		c.detail = fmt.Sprintf("%s first surfaced at step %d", m.File, *m.Steps)
	}
	return c
}

// totalTokens is the session's token total. A trace that records only
// cumulative counts per call (tool-call records with a running token
// count) gives the count at its last call instead: the
// tokens of the turns that followed it, the final answer's, are not in
// it, and the detail says so.
func totalTokens(run *Run) (*float64, string) {
	if run.Session == nil {
		return nil, ""
	}
	if u := run.Session.Usage; u != nil {
		return ptr(float64(u.Total())), ""
	}
	// CallTokens, not Calls: the calls may have been dropped as they
	// were read (MeasureOptions.DropCalls).
	for i := run.Session.NumCalls() - 1; i >= 0; i-- {
		if n := run.Session.CallTokens(i); n != nil {
			return ptr(float64(*n)), fmt.Sprintf("up to the last tool call, step %d; the trace records no session total", i+1)
		}
	}
	return nil, ""
}
