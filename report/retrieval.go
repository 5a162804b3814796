package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// DefaultRetrievalMetrics are the columns of a retrieval table when none
// are asked for.
var DefaultRetrievalMetrics = []string{"recall@5", "precision@5", "mrr", "map", "ndcg@10", "file_recall", "ttfr_steps"}

// A RetrievalRow is one scenario's (or task's) figures in a retrieval
// table.
type RetrievalRow struct {
	// Name is the scenario or task; it is also the baseline key.
	Name string
	// Values maps metric names to values; a metric that is absent has no
	// value (not computable, or null) and shows as n/a.
	Values map[string]float64
	// Reason says why figures are missing, for every metric without its
	// own entry in Reasons ("the task has no ground-truth files").
	Reason string
	// Reasons gives the reason of one missing metric.
	Reasons map[string]string
}

// RetrievalRowOf builds a row from a metrics result: its values, and as
// the reason for missing figures the non-computable reason, or for a
// computable result the figure's definition (which says when it is null).
func RetrievalRowOf(name string, r *metrics.Result) RetrievalRow {
	row := RetrievalRow{Name: name, Values: r.Values()}
	if !r.Computable && r.NonComputableReason != nil {
		row.Reason = "non-computable: " + *r.NonComputableReason
	}
	return row
}

// reason returns why the row has no value for metric.
func (r RetrievalRow) reason(metric string) string {
	if s, ok := r.Reasons[metric]; ok && s != "" {
		return s
	}
	if r.Reason != "" {
		return r.Reason
	}
	if d, ok := metrics.Define(metric); ok {
		return fmt.Sprintf("%s has no value for this run: %s", d.Label, d.Definition)
	}
	return metric + " was not measured for this run"
}

// RetrievalOptions configure WriteRetrievalTable.
type RetrievalOptions struct {
	// Metrics are the columns, by metric name ("recall@5", "read.mrr");
	// empty means DefaultRetrievalMetrics.
	Metrics []string
	// FirstColumn heads the name column; default "Scenario".
	FirstColumn string
	// Baseline, when set, adds each figure's change against the baseline
	// entry of the row's name: "0.62 (+0.08) ▲".
	Baseline *Baseline
	// MaxRegression: a change worse than this (in the figure's units) is
	// shown in bold as a regression; see Regressions. Tolerances, when
	// set, takes its place.
	MaxRegression float64
	Tolerances    *Tolerances
}

// WriteRetrievalTable writes one row per scenario and one column per
// metric, each column headed by the metric's label, which names its
// definition ("Recall@5 (TREC)", see metrics.Define). Rows are sorted by
// name. A figure without a value shows as "n/a" with a footnote marker;
// the footnotes after the table give the reasons. With a baseline, a line
// after the table explains the arrows.
func WriteRetrievalTable(w io.Writer, rows []RetrievalRow, opts RetrievalOptions) error {
	names := opts.Metrics
	if len(names) == 0 {
		names = DefaultRetrievalMetrics
	}
	first := opts.FirstColumn
	if first == "" {
		first = "Scenario"
	}
	header := []string{Escape(first)}
	for _, m := range names {
		header = append(header, Escape(Label(m)))
	}
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b RetrievalRow) int { return cmp.Compare(a.Name, b.Name) })

	var notes footnotes
	var cells [][]string
	for _, r := range rows {
		line := []string{Escape(r.Name)}
		for _, m := range names {
			v, ok := r.Values[m]
			if !ok {
				line = append(line, "n/a"+notes.mark(r.reason(m)))
				continue
			}
			cell := FormatValue(m, v)
			if b, ok := opts.Baseline.Get(r.Name, m); ok {
				cell += " " + change(m, b, v, tolerancesOr(opts.Tolerances, opts.MaxRegression).For(m))
			}
			line = append(line, cell)
		}
		cells = append(cells, line)
	}
	if err := writeTable(w, header, cells); err != nil {
		return err
	}
	if err := notes.write(w); err != nil {
		return err
	}
	if opts.Baseline != nil {
		_, err := fmt.Fprintf(w, "\nChanges against the baseline: ▲ better, ▼ worse; in bold, worse by more than allowed (%s), a regression.\n",
			Escape(tolerancesOr(opts.Tolerances, opts.MaxRegression).String()))
		return err
	}
	return nil
}

// Label returns the report heading of a metric: its label from
// metrics.Define ("Recall@5 (TREC)"), "Reward" for the verifier reward, or
// the name itself.
func Label(name string) string {
	if d, ok := metrics.Define(name); ok {
		return d.Label
	}
	if name == RewardName {
		return "Reward"
	}
	return name
}
