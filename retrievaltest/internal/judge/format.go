// Package judge holds what the go test helpers of retrievaltest and the
// Gherkin steps of retrievaltest/steps share: checking one expectation on
// one run, the messages that say what was measured against what, and the
// expectations the helpers and steps build from their arguments.
package judge

import (
	"fmt"
	"strings"

	"github.com/agentretrieval/agentretrieval/expectations"
)

// Result says what an expectation found, for a failure message or a
// log line:
//
//	scenarios/fix-bug.yaml:12:5: index_usage: semantic ratio measured 0.33, required ≥ 0.60 (…)
//	    measured:  semantic ratio 0.33
//	    threshold: semantic ratio ≥ 0.60
//	    evidence:  step 1: mcp__sourcegraph__sg_keyword_search pkg/auth/token.go
//	               step 2: Grep ErrTokenExpired
//	    expects:   Agent should use semantic tools for discovery
//
// With several runs the evidence has a line per run; the per-run outcomes
// are listed only when it does not.
func Result(r *expectations.Result) string {
	var b strings.Builder
	if r.Pos.File != "" {
		fmt.Fprintf(&b, "%s: ", r.Pos)
	}
	writeOutcome(&b, r.Type, expectations.Outcome{
		Status:    r.Status,
		Measured:  r.Measured,
		Threshold: r.Threshold,
		Evidence:  r.Evidence,
		Message:   r.Message,
	})
	if r.Description != "" {
		fmt.Fprintf(&b, "\n    expects:   %s", r.Description)
	}
	if len(r.Runs) > 1 && len(r.Evidence) == 0 {
		for _, ro := range r.Runs {
			fmt.Fprintf(&b, "\n    run %s: %s, measured %s", ro.Trace, ro.Status, orNone(ro.Measured))
			if ro.Status == expectations.Fail && ro.Message != "" {
				fmt.Fprintf(&b, " (%s)", ro.Message)
			}
		}
	}
	return b.String()
}

// Outcome is Result for an outcome of one run.
func Outcome(typ string, o expectations.Outcome) string {
	var b strings.Builder
	writeOutcome(&b, typ, o)
	return b.String()
}

func writeOutcome(b *strings.Builder, typ string, o expectations.Outcome) {
	msg := o.Message
	if msg == "" {
		msg = string(o.Status)
	}
	fmt.Fprintf(b, "%s: %s", typ, msg)
	// A skipped expectation was not measured; its message says why.
	if o.Status != expectations.Skipped || o.Measured != "" || o.Threshold != "" {
		fmt.Fprintf(b, "\n    measured:  %s", orNone(o.Measured))
		fmt.Fprintf(b, "\n    threshold: %s", orNone(o.Threshold))
	}
	for i, e := range o.Evidence {
		label := "           "
		if i == 0 {
			label = "evidence: "
		}
		fmt.Fprintf(b, "\n    %s %s", label, e)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
