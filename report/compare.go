package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/runs"
)

// AssociationNote is the sentence every comparison report carries.
const AssociationNote = "Association only, not causation: these figures describe how retrieval and reward moved together " +
	"on the tasks of this run; they do not show that a change in retrieval caused a change in reward, " +
	"and a difference between configurations may come from anything else that differs between them."

// WriteComparison writes a comparison (runs.Compare) as markdown: the matched and
// unmatched tasks, a table of paired differences, a table of correlations
// with the reward, and the association note.
func WriteComparison(w io.Writer, c *runs.Comparison) error {
	bw := &errWriter{w: w}
	b, cn := Escape(c.Baseline), Escape(c.Candidate)
	bw.printf("## Matched comparison: %s vs %s\n\n", cn, b)
	bw.printf("Matched tasks (computable in both): %d: %s.\n", len(c.Matched), escapeList(c.Matched))
	if len(c.OnlyBaseline) > 0 {
		bw.printf("\nOnly in %s (not compared): %s.\n", b, escapeList(c.OnlyBaseline))
	}
	if len(c.OnlyCandidate) > 0 {
		bw.printf("\nOnly in %s (not compared): %s.\n", cn, escapeList(c.OnlyCandidate))
	}
	if len(c.NotComputable) > 0 {
		bw.printf("\nNot computable in both (not compared):\n\n")
		for _, t := range slices.Sorted(maps.Keys(c.NotComputable)) {
			bw.printf("- %s: %s\n", Escape(t), Escape(c.NotComputable[t]))
		}
	}
	if bm, cm := c.Models[c.Baseline], c.Models[c.Candidate]; len(bm) > 0 && len(cm) > 0 && !slices.Equal(bm, cm) {
		bw.printf("\n**Warning:** the configurations ran different models (%s: %s; %s: %s); a paired comparison assumes the same model and harness.\n",
			b, escapeList(bm), cn, escapeList(cm))
	}
	if bw.err != nil {
		return bw.err
	}

	bw.printf("\n### Paired differences (%s − %s)\n\n", cn, b)
	header := []string{"Metric", "n", b + " mean", cn + " mean", "Mean difference", "95% CI (bootstrap)", "Wilcoxon p", "Sign test p (+/−/0)"}
	var cells [][]string
	for _, m := range c.Metrics {
		label := Escape(Label(m.Metric))
		if m.N == 0 {
			cells = append(cells, []string{label, "0", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"})
			continue
		}
		diff := FormatDelta(m.Metric, 0, m.Diff.Mean)
		switch w := worse(m.Metric, 0, m.Diff.Mean); {
		case w > regressionSlack:
			diff += " ▼"
		case w < -regressionSlack:
			diff += " ▲"
		}
		cells = append(cells, []string{
			label, fmt.Sprint(m.N),
			FormatValue(m.Metric, m.BaselineMean), FormatValue(m.Metric, m.CandidateMean),
			diff,
			fmt.Sprintf("[%s, %s]", signedValue(m.Metric, m.Diff.CILow), signedValue(m.Metric, m.Diff.CIHigh)),
			formatP(m.Wilcoxon.P, m.Wilcoxon.Exact),
			fmt.Sprintf("%s (%d/%d/%d)", formatP(m.Sign.P, true), m.Sign.Plus, m.Sign.Minus, m.Sign.Zeros),
		})
	}
	bw.do(func(w io.Writer) error { return writeTable(w, header, cells) })
	bw.printf("\n▲ the candidate is better on average, ▼ worse (by each metric's direction). Wilcoxon p is exact (zero differences dropped, tied ranks averaged) unless marked ≈.\n")

	bw.printf("\n### Association with reward (Spearman ρ)\n\n")
	header = []string{"Metric", b + " ρ (n, p)", cn + " ρ (n, p)"}
	cells = nil
	byMetric := map[string][]runs.Correlation{}
	for _, co := range c.Correlations {
		byMetric[co.Metric] = append(byMetric[co.Metric], co)
	}
	for _, m := range c.Metrics {
		line := []string{Escape(Label(m.Metric))}
		for _, cfg := range []string{c.Baseline, c.Candidate} {
			cell := "n/a"
			for _, co := range byMetric[m.Metric] {
				if co.Config == cfg && co.Rho != nil {
					p := "n/a"
					if co.P != nil {
						p = formatP(*co.P, co.Method == metrics.SpearmanExact)
					}
					cell = fmt.Sprintf("%s (%d, %s)", fixed(*co.Rho, 2), co.N, p)
				}
			}
			line = append(line, cell)
		}
		cells = append(cells, line)
	}
	bw.do(func(w io.Writer) error { return writeTable(w, header, cells) })
	bw.printf("\np is exact below %d tasks (over all n! pairings of figure and reward) and from Student's t with n − 2 degrees of freedom from %d on (marked ≈); n/a: fewer than two tasks with both the figure and a reward, or one of them constant.\n",
		metrics.SpearmanExactBelow, metrics.SpearmanExactBelow)
	bw.printf("\n%s\n", AssociationNote)
	return bw.err
}

// signedValue formats a bound of a difference with its sign.
func signedValue(name string, v float64) string { return FormatDelta(name, 0, v) }

// formatP formats a p-value with three significant decimals; "≈" marks an
// approximation.
func formatP(p float64, exact bool) string {
	s := fixed(p, 3)
	if p < 0.001 {
		s = "<0.001"
	}
	if !exact {
		s = "≈" + s
	}
	return s
}

func escapeList(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = Escape(x)
	}
	return strings.Join(out, ", ")
}

// errWriter keeps the first write error, so that a report is written as a
// sequence of prints checked once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func (e *errWriter) do(f func(io.Writer) error) {
	if e.err == nil {
		e.err = f(e.w)
	}
}
