package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/runs"
)

// RunOptions control WriteRun.
type RunOptions struct {
	// Metrics are the columns of the retrieval tables; nil means
	// DefaultRetrievalMetrics.
	Metrics []string
	// Target is the semantic-ratio target of each aggregate line; 0 means
	// DefaultSemanticTarget.
	Target float64
	// Baseline, when set, holds figures keyed "<config>/<task>" (as
	// RunBaseline writes them): every figure shows its change, and the
	// report ends with the regressions against it, headed by BaselineName.
	Baseline      *Baseline
	BaselineName  string
	MaxRegression float64
	// Tolerances, when set, takes the place of MaxRegression.
	Tolerances *Tolerances
	// Config, when set, limits the report to that configuration.
	Config string
}

// WriteRun writes the markdown report of an evaluated run: for each
// configuration, the index-effectiveness table and the retrieval table of
// its task runs, and with a baseline the regressions, which it returns.
// The report is written to w in one piece.
func WriteRun(w io.Writer, s *runs.Summary, opts RunOptions) ([]Regression, error) {
	if opts.Target == 0 {
		opts.Target = DefaultSemanticTarget
	}
	// Tables are written to a buffer, which cannot fail, and the report to
	// w once.
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Retrieval report: %s\n", Escape(s.RunID))
	tol := tolerancesOr(opts.Tolerances, opts.MaxRegression)
	var regs []Regression
	if opts.Baseline != nil {
		regs = RegressionsWithin(*opts.Baseline, *RunBaseline(s, opts.Config), tol)
		b.WriteString("\n" + regressionVerdict(regs) + "\n")
	}
	for _, c := range s.Configs {
		if opts.Config != "" && c.Config != opts.Config {
			continue
		}
		// The baseline's keys are "<config>/<task>"; each table looks its
		// rows up by task.
		var view *Baseline
		if opts.Baseline != nil {
			view = NewBaseline("task")
			prefix := c.Config + "/"
			for key, figures := range opts.Baseline.Entries {
				if task, ok := strings.CutPrefix(key, prefix); ok {
					for m, v := range figures {
						view.Set(task, m, v)
					}
				}
			}
		}
		var index []IndexRow
		var rows []RetrievalRow
		for _, e := range c.Entries {
			index = append(index, entryIndexRow(e))
			row := RetrievalRow{Name: e.Name, Values: e.Values}
			if e.Status != runs.Computable {
				row.Reason = string(e.Status) + ": " + e.Reason
			}
			rows = append(rows, row)
		}
		fmt.Fprintf(&b, "\n## %s\n\n### Index effectiveness\n\n", Escape(c.Config))
		if err := WriteIndexTable(&b, index, IndexOptions{Target: opts.Target, Baseline: view, Tolerances: tol, FirstColumn: "Task"}); err != nil {
			return nil, err
		}
		b.WriteString("\n### Retrieval\n\n")
		if err := WriteRetrievalTable(&b, rows, RetrievalOptions{Metrics: opts.Metrics, FirstColumn: "Task", Baseline: view, Tolerances: tol}); err != nil {
			return nil, err
		}
	}
	if opts.Baseline != nil {
		fmt.Fprintf(&b, "\n## Regressions against %s\n\n", Escape(opts.BaselineName))
		if err := WriteRegressions(&b, regs, tol); err != nil {
			return nil, err
		}
	}
	_, err := w.Write(b.Bytes())
	return regs, err
}

// RunBaseline returns the figures of a run's task runs as a baseline keyed
// "<config>/<name>", of every configuration or only the one named.
func RunBaseline(s *runs.Summary, config string) *Baseline {
	b := NewBaseline("config/task")
	for _, c := range s.Configs {
		if config != "" && c.Config != config {
			continue
		}
		for _, e := range c.Entries {
			for m, v := range e.Values {
				b.Set(c.Config+"/"+e.Name, m, v)
			}
		}
	}
	return b
}

// entryIndexRow turns a summary entry's index-effectiveness figures into a
// row: a pattern is listed when it occurred at least once. The task's
// result is its verifier reward: pass at 1, fail at 0, the reward itself
// in between, none without one.
func entryIndexRow(e runs.TaskEntry) IndexRow {
	row := IndexRow{Scenario: e.Name}
	if r := e.Reward; r != nil {
		switch {
		case *r >= 1:
			row.Result = Pass
		case *r <= 0:
			row.Result = Fail
		default:
			row.Result = Status(fmt.Sprintf("reward %.2f", *r))
		}
	}
	if v, ok := e.Values["semantic_ratio"]; ok {
		row.SemanticRatio = &v
	}
	if v, ok := e.Values["steps_to_target"]; ok {
		n := int(v)
		row.StepsToTarget = &n
	}
	for figure, pattern := range map[string]string{"direct_edits": "direct", "fishing_runs": "fishing", "guessing_searches": "guessing"} {
		if e.Values[figure] > 0 {
			row.Patterns = append(row.Patterns, pattern)
		}
	}
	return row
}
