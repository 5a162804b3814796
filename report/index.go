package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// DefaultSemanticTarget is the default semantic-ratio target: at least
// 60% of discovery through the index.
const DefaultSemanticTarget = 0.60

// An IndexRow is one scenario's line in the index-effectiveness table.
type IndexRow struct {
	Scenario string
	// SemanticRatio is semantic / (semantic + file-level) calls; nil when
	// the run had neither.
	SemanticRatio *float64
	// StepsToTarget is the 1-based step that first touched the target; nil
	// when never reached.
	StepsToTarget *int
	// Patterns are the behaviour patterns seen (fishing, guessing, direct).
	Patterns []string
	// Result is the scenario's overall result (every expectation of it;
	// for a task of a run summary, its verifier reward), or "" when it has
	// none.
	Result Status
	// NoSemanticTool is set when the agent's tool list had no semantic
	// tool: its patterns are information, and its semantic ratio, 0 by
	// construction, is left out of the aggregate.
	NoSemanticTool bool
}

// IndexRowOf builds a row from an index-effectiveness analysis (nil for a
// run without a usable trace: every figure is then missing).
func IndexRowOf(scenario string, ie *metrics.IndexEffectiveness, result Status) IndexRow {
	row := IndexRow{Scenario: scenario, Result: result}
	if ie == nil {
		return row
	}
	row.SemanticRatio = ie.SemanticRatio
	row.StepsToTarget = ie.StepsToTarget
	row.NoSemanticTool = ie.SemanticToolOffered != nil && !*ie.SemanticToolOffered
	for _, p := range ie.Patterns {
		row.Patterns = append(row.Patterns, p.Name)
	}
	return row
}

// IndexOptions configure WriteIndexTable.
type IndexOptions struct {
	// Target is the aggregate semantic-ratio target in [0, 1]; 0 means
	// DefaultSemanticTarget, and a negative target means none was set:
	// the aggregate line then names no target.
	Target float64
	// Baseline, when set, adds each figure's change against the baseline's
	// "semantic_ratio" and "steps_to_target" of the same scenario.
	Baseline *Baseline
	// MaxRegression marks changes worse than this as regressions (see
	// Regressions); in percentage points / 100 for the ratio, in steps for
	// steps to target.
	MaxRegression float64
	// Tolerances, when set, takes the place of MaxRegression.
	Tolerances *Tolerances
	// FirstColumn heads the name column; default "Scenario".
	FirstColumn string
}

// WriteIndexTable writes the index-effectiveness table,
//
//	| Scenario | Semantic ratio | Steps to target | Patterns | Result |
//
// rows sorted by scenario, then the aggregate line
//
//	**Aggregate:** 58.5% semantic tool usage (target: 60%)
//
// where the aggregate is the mean of the scenarios' semantic ratios, and a
// line naming the scenarios that had no ratio (they are left out of the
// mean, not counted as 0%). Scenarios whose agent was offered no semantic
// tool are left out too, and named; when no scenario had one, the
// aggregate says "no semantic tool offered". The Result column, headed
// "Scenario result", is the scenario's overall result.
func WriteIndexTable(w io.Writer, rows []IndexRow, opts IndexOptions) error {
	target := opts.Target
	if target == 0 {
		target = DefaultSemanticTarget
	}
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b IndexRow) int { return cmp.Compare(a.Scenario, b.Scenario) })

	var cells [][]string
	var sum float64
	var n int
	var noRatio, noTool []string
	for _, r := range rows {
		ratio := "n/a"
		if r.NoSemanticTool {
			noTool = append(noTool, r.Scenario)
		}
		if r.SemanticRatio != nil && r.NoSemanticTool {
			ratio = "no semantic tool offered"
		} else if r.SemanticRatio != nil {
			v := *r.SemanticRatio
			sum += v
			n++
			ratio = percent(v)
			if b, ok := opts.Baseline.Get(r.Scenario, "semantic_ratio"); ok {
				ratio += " " + change("semantic_ratio", b, v, tolerancesOr(opts.Tolerances, opts.MaxRegression).For("semantic_ratio"))
			}
		} else if !r.NoSemanticTool {
			noRatio = append(noRatio, r.Scenario)
		}
		steps := "not reached"
		if r.StepsToTarget != nil {
			v := float64(*r.StepsToTarget)
			steps = strconv.Itoa(*r.StepsToTarget)
			if b, ok := opts.Baseline.Get(r.Scenario, "steps_to_target"); ok {
				steps += " " + change("steps_to_target", b, v, tolerancesOr(opts.Tolerances, opts.MaxRegression).For("steps_to_target"))
			}
		}
		cells = append(cells, []string{Escape(r.Scenario), ratio, steps, patternCell(r.Patterns, r.NoSemanticTool), r.Result.cell()})
	}
	first := cmp.Or(opts.FirstColumn, "Scenario")
	header := []string{Escape(first), "Semantic ratio", "Steps to target", "Patterns", Escape(first + " result")}
	if err := writeTable(w, header, cells); err != nil {
		return err
	}

	agg := "n/a semantic tool usage"
	switch {
	case n > 0:
		agg = percent(sum/float64(n)) + " semantic tool usage"
	case len(noTool) > 0:
		agg = "no semantic tool offered"
	}
	against := " (target: " + percentTrim(target) + ")"
	if target < 0 {
		against = " (no target set)"
	}
	if _, err := fmt.Fprintf(w, "\n**Aggregate:** %s%s\n", agg, against); err != nil {
		return err
	}
	if len(noTool) > 0 && n > 0 {
		names := make([]string, len(noTool))
		for i, s := range noTool {
			names[i] = Escape(s)
		}
		if _, err := fmt.Fprintf(w, "\nNo semantic tool offered, left out of the aggregate: %s.\n", strings.Join(names, ", ")); err != nil {
			return err
		}
	}
	if len(noRatio) > 0 {
		names := make([]string, len(noRatio))
		for i, s := range noRatio {
			names[i] = Escape(s)
		}
		_, err := fmt.Fprintf(w, "\nNo semantic ratio (no semantic or file-level calls, or no usable trace), left out of the aggregate: %s.\n",
			strings.Join(names, ", "))
		return err
	}
	return nil
}

// patternCell lists the distinct patterns, sorted; for an agent offered no
// semantic tool (the ratio cell says so), fishing and guessing are marked
// as information.
func patternCell(ps []string, noSemanticTool bool) string {
	ps = slices.Clone(ps)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	if len(ps) == 0 {
		return "none"
	}
	info := false
	for i, p := range ps {
		ps[i] = Escape(p)
		info = info || noSemanticTool && (p == metrics.PatternFishing || p == metrics.PatternGuessing)
	}
	if info {
		return strings.Join(ps, ", ") + " (information)"
	}
	return strings.Join(ps, ", ")
}

// signed puts a "+" before a formatted non-negative change, and "±" before
// a zero one.
func signed(s string) string {
	switch {
	case strings.HasPrefix(s, "-"):
		return s
	case strings.Trim(s, "0.") == "":
		return "±" + s
	}
	return "+" + s
}

// tolerancesOr is t, or maxDelta for every figure when t is nil.
func tolerancesOr(t *Tolerances, maxDelta float64) *Tolerances {
	if t != nil {
		return t
	}
	return UniformTolerance(maxDelta)
}

// change renders a figure's change against its baseline in the unit of
// DeltaText, "(+0.08) ▲": ▲ when better, ▼ when worse, in bold when worse
// by more than maxDelta (a regression), no arrow for a neutral figure or
// no change.
func change(name string, base, cur, maxDelta float64) string {
	s := "(" + DeltaText(name, base, cur) + ")"
	w := worse(name, base, cur)
	switch {
	case w > maxDelta+regressionSlack:
		return "**" + s + " ▼**"
	case w > regressionSlack:
		return s + " ▼"
	case w < -regressionSlack:
		return s + " ▲"
	}
	return s
}
