package expectations

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/lazyre"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// IndexUsage are the parameters of the index_usage expectation: how much
// the agent used the semantic index and how soon it found the target.
type IndexUsage struct {
	MinSemanticRatio         *float64 `yaml:"min_semantic_ratio" doc:"lowest semantic / (semantic + file-level) tool-call ratio" min:"0" max:"1" alias:"min_aura_tool_ratio"`
	MinSemanticRatioAllCalls *float64 `yaml:"min_semantic_ratio_all_calls" doc:"lowest semantic / all tool-call ratio" min:"0" max:"1"`
	MaxStepsToTarget         *int     `yaml:"max_steps_to_target" doc:"most tool calls up to and including the first that touches a ground-truth file (the first edit without ground truth)" min:"1"`
	MinGrade                 string   `yaml:"min_grade" doc:"lowest index-usage grade" enum:"poor,fair,good,excellent"`
}

func indexUsageType() Type {
	return Type{
		Name:        "index_usage",
		Description: "how much the agent used the semantic index, and how soon it reached the code",
		Params:      IndexUsage{},
		ReadsCalls:  readsNoCalls,
		Check:       func(p any, run *Run) Outcome { return checkIndexUsage(p.(*IndexUsage), run) },
		Validate: func(p any) error {
			u := p.(*IndexUsage)
			if u.MinSemanticRatio == nil && u.MinSemanticRatioAllCalls == nil && u.MaxStepsToTarget == nil && u.MinGrade == "" {
				return errors.New("no threshold: give at least one of min_semantic_ratio (alias min_aura_tool_ratio), min_semantic_ratio_all_calls, max_steps_to_target, min_grade")
			}
			return nil
		},
	}
}

func checkIndexUsage(p *IndexUsage, run *Run) Outcome {
	ie, why := indexOf(run)
	if ie == nil {
		return fail("no index analysis: %s", why)
	}
	var cs checks
	patterns := patternSummary(ie, metrics.PatternFishing, metrics.PatternGuessing)
	if p.MinSemanticRatio != nil {
		pair := ie.SemanticCalls + ie.FileLevelCalls
		detail := fmt.Sprintf("%d semantic of %d semantic + file-level calls", ie.SemanticCalls, pair)
		if patterns != "" {
			detail += "; " + patterns
		}
		c := numberCheck("semantic ratio", ie.SemanticRatio, p.MinSemanticRatio, nil, true,
			"the trace has no semantic or file-level call")
		c.detail = detail
		cs.add(c)
	}
	if p.MinSemanticRatioAllCalls != nil {
		c := numberCheck("semantic ratio over all calls", ie.SemanticRatioAllCalls, p.MinSemanticRatioAllCalls, nil, true,
			"the trace has no tool call")
		c.detail = fmt.Sprintf("%d semantic of %d calls", ie.SemanticCalls, ie.TotalCalls)
		cs.add(c)
	}
	if p.MaxStepsToTarget != nil {
		c := numberCheck("steps to target", intPtrToFloat(ie.StepsToTarget), nil, intPtrToFloat(p.MaxStepsToTarget), false,
			ie.StepsToTargetReason)
		if ie.StepsToTarget != nil {
			detail, ev := targetStep(run.Document, ie)
			c.detail = detail
			cs.evidenceOf(ev)
		} else if c.missing == "" {
			c.missing = "the target was never reached"
		}
		cs.add(c)
	}
	if p.MinGrade != "" {
		c := check{name: "grade", threshold: "≥ " + p.MinGrade, measured: ie.Grade}
		if ie.Grade == "" {
			c.missing = "the trace has no semantic or file-level call"
		} else {
			c.ok = metrics.GradeRank(ie.Grade) >= metrics.GradeRank(p.MinGrade)
			if ie.SemanticRatio != nil {
				c.detail = fmt.Sprintf("semantic ratio %.2f", *ie.SemanticRatio)
			}
		}
		cs.add(c)
	}
	if p.MinSemanticRatio != nil || p.MinSemanticRatioAllCalls != nil || p.MinGrade != "" {
		// Fishing and guessing are what pulls the ratio (and the grade)
		// down; steps to target has its own evidence line above, and a
		// direct edit says nothing about either.
		cs.evidenceOf(patternEvidence(ie, metrics.PatternFishing, metrics.PatternGuessing)...)
	}
	return cs.outcome()
}

// indexOf returns the run's index analysis, or why there is none.
func indexOf(run *Run) (*metrics.IndexEffectiveness, string) {
	if run == nil || run.Metrics == nil {
		return nil, "the run was not measured"
	}
	if ie := run.Metrics.IndexEffectiveness; ie != nil {
		return ie, ""
	}
	if r := run.Metrics.Coverage.DegradedReason; r != nil {
		return nil, *r
	}
	return nil, "the trace has no usable tool calls"
}

// targetStep explains steps to target: which call reached the target, and
// an evidence line naming its step and files.
func targetStep(doc *events.Document, ie *metrics.IndexEffectiveness) (detail, evidence string) {
	n := *ie.StepsToTarget
	what := "the first to touch a ground-truth file"
	if ie.StepsToTargetRule == metrics.RuleFirstEdit {
		what = "the first edit (no ground truth)"
	}
	detail = fmt.Sprintf("step %d is %s", n, what)
	if doc == nil || n < 1 || n > len(doc.Events) {
		return detail, ""
	}
	ev := doc.Events[n-1]
	files := ev.GroundTruthHits
	if ie.StepsToTargetRule == metrics.RuleFirstEdit || len(files) == 0 {
		files = ev.FilesWritten
	}
	evidence = fmt.Sprintf("step %d: %s", ev.StepIndex+1, ev.ToolName)
	if len(files) > 0 {
		evidence += " " + strings.Join(files, ", ")
		detail += ": " + ev.ToolName + " " + strings.Join(files, ", ")
	}
	return detail, evidence
}

// patternSummary names where the given patterns occurred: "fishing at
// steps 1–5".
func patternSummary(ie *metrics.IndexEffectiveness, names ...string) string {
	var parts []string
	for _, name := range names {
		var steps []int
		for _, o := range ie.Occurrences(name) {
			steps = append(steps, o.Steps...)
		}
		if len(steps) > 0 {
			parts = append(parts, name+" at "+stepsText(steps))
		}
	}
	return strings.Join(parts, "; ")
}

// patternEvidence lists every occurrence of the named patterns with its
// steps and what was seen.
func patternEvidence(ie *metrics.IndexEffectiveness, names ...string) []string {
	var out []string
	for _, o := range ie.Patterns {
		if !slices.Contains(names, o.Name) {
			continue
		}
		s := o.Name + " at " + stepsText(o.Steps)
		if d := patternDetail(o); d != "" {
			s += ": " + d
		}
		out = append(out, s)
	}
	return out
}

// patternDetail is an occurrence's description without the leading "step
// N: " that the evidence line already carries.
// A trailing list of the steps goes too ("… between them (steps 1–5)"),
// for the same reason.
func patternDetail(o metrics.Pattern) string {
	d := trailingSteps().ReplaceAllString(o.Detail, "")
	if len(o.Steps) == 0 {
		return d
	}
	return strings.TrimPrefix(d, fmt.Sprintf("step %d: ", o.Steps[0]+1))
}

var trailingSteps = lazyre.New(` \(steps? [0-9, –-]+\)$`)
