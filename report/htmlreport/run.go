package htmlreport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
)

// DefaultRunMetrics are the rows of a configuration's metric table when
// RunOptions.Metrics is nil: the retrieval table's default columns and the
// index-effectiveness figures.
var DefaultRunMetrics = append(slices.Clone(report.DefaultRetrievalMetrics), "semantic_ratio", "steps_to_target", "total_calls")

// runView is the report of a run folder.
type runView struct {
	ID, Aggregation string
	Configs         []configView
	Comparison      *comparisonView
	Coverage        *coverageChart
	CoverageNote    string
}

type configView struct {
	ID, Name string
	Counts   []figure
	Metrics  []metricRow
	Columns  []string
	// Trials is the number of rows of the task table, which writeRows
	// writes one at a time after the page is rendered.
	Trials int
}

type metricRow struct {
	Label, N, Mean, Median, Std, CI string
}

type taskRow struct {
	Name, Status, Reason, Reward string
	Values                       []string
}

type comparisonView struct {
	Baseline, Candidate string
	Matched             string
	Unmatched           []string
	Error               string
	Warning             string
	Rows                []comparisonRow
	Note                string
}

type comparisonRow struct {
	Label, N, BaseMean, CandMean, Diff, CI, Wilcoxon string
	Judgement, Class                                 string
	Plot                                             intervalPlot
}

// intervalPlot draws a CI of a paired difference against zero.
type intervalPlot struct {
	Width, Height              int
	Zero, Lo, Hi, Mean, Y      string
	LeftLabel, RightLabel, Cls string
	Label                      string
}

func newRunView(s *runs.Summary, opts RunOptions) runView {
	metricsList := opts.Metrics
	if metricsList == nil {
		metricsList = DefaultRunMetrics
	}
	rv := runView{ID: "run", Aggregation: s.Aggregation}
	for i, c := range s.Configs {
		cv := configView{ID: fmt.Sprintf("config-%d", i+1), Name: clean(c.Config)}
		add := func(label, value string) { cv.Counts = append(cv.Counts, figure{label, value}) }
		add("trials", fmt.Sprintf("%d (%d tasks)", c.Trials, c.Tasks))
		add("computable", strconv.Itoa(c.Computable.Count))
		add("non-computable", groupText(c.NonComputable))
		add("degraded", groupText(c.Degraded))
		if c.Failed != nil {
			add("failed", groupText(*c.Failed))
		}
		if c.Reward != nil {
			add("reward (mean over tasks)", fmt.Sprintf("%s [%s, %s], n = %d", fixed2(c.Reward.Mean), fixed2(c.Reward.CILow), fixed2(c.Reward.CIHigh), c.Reward.N))
		}
		for _, m := range metricsList {
			row := metricRow{Label: report.Label(m), N: "0", Mean: "n/a", Median: "n/a", Std: "n/a", CI: "n/a"}
			if st, ok := c.Metrics[m]; ok && st.N > 0 {
				row.N = strconv.Itoa(st.N)
				row.Mean, row.Median = report.FormatValue(m, st.Mean), report.FormatValue(m, st.Median)
				row.Std = fixed2(st.Std)
				row.CI = "[" + report.FormatValue(m, st.CILow) + ", " + report.FormatValue(m, st.CIHigh) + "]"
			}
			cv.Metrics = append(cv.Metrics, row)
		}
		for _, m := range metricsList {
			cv.Columns = append(cv.Columns, report.Label(m))
		}
		cv.Trials = c.Trials
		rv.Configs = append(rv.Configs, cv)
	}
	if len(s.Configs) >= 2 {
		rv.Comparison = newComparisonView(s, opts, metricsList)
	}
	if opts.Dir == "" {
		rv.CoverageNote = "No coverage curves: the folder of the run's artifacts is not known."
	} else {
		curves, notes := coverageCurves(s, opts.Dir)
		rv.Coverage = newCoverageChart(curves)
		if len(notes) > 0 {
			rv.CoverageNote = strings.Join(notes, " ")
		}
	}
	return rv
}

// writeRows writes the rendered page with each configuration's task rows
// in its table's body, which the page leaves empty.
func writeRows(w io.Writer, page []byte, s *runs.Summary, configs []configView, metricsList []string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	// at is the part of the page written so far; next, the configuration
	// whose rows come next.
	at, next := 0, 0
	// upTo writes the page up to the body of configuration i's table.
	upTo := func(i int) error {
		for ; next <= i; next++ {
			// The ID is the page's own, and every text of the run is
			// escaped, so this opening tag is nowhere else on the page.
			open := []byte(`<tbody id="` + configs[next].ID + `-tasks">`)
			j := bytes.Index(page[at:], open)
			if j < 0 {
				return fmt.Errorf("html report: no task table for configuration %s", configs[next].Name)
			}
			bw.Write(page[at : at+j+len(open)])
			at += j + len(open)
		}
		return nil
	}
	index := make(map[*runs.ConfigSummary]int, len(s.Configs))
	for i, c := range s.Configs {
		index[c] = i
	}
	err := s.EachEntry(func(c *runs.ConfigSummary, e *runs.TaskEntry) error {
		if err := upTo(index[c]); err != nil {
			return err
		}
		writeTaskRow(bw, newTaskRow(e, metricsList))
		return nil
	})
	if err == nil {
		err = upTo(len(configs) - 1)
	}
	if err != nil {
		return err
	}
	bw.Write(page[at:])
	return bw.Flush()
}

// newTaskRow is the row of an entry in its configuration's task table.
func newTaskRow(e *runs.TaskEntry, metricsList []string) taskRow {
	tr := taskRow{Name: clean(e.Name), Status: strings.ReplaceAll(string(e.Status), "_", "-"), Reason: clean(e.Reason), Reward: "—"}
	if e.Reward != nil {
		tr.Reward = fixed2(*e.Reward)
	}
	tr.Values = make([]string, len(metricsList))
	for i, m := range metricsList {
		tr.Values[i] = "n/a"
		if v, ok := e.Values[m]; ok {
			tr.Values[i] = report.FormatValue(m, v)
		}
	}
	return tr
}

func groupText(g runs.TaskGroup) string {
	if g.Count == 0 {
		return "0"
	}
	names := make([]string, len(g.Names))
	for i, n := range g.Names {
		names[i] = clean(n)
	}
	return fmt.Sprintf("%d: %s", g.Count, strings.Join(names, ", "))
}

// newComparisonView compares the baseline and the candidate configuration
// (picked as the compare command picks them unless named).
func newComparisonView(s *runs.Summary, opts RunOptions, metricsList []string) *comparisonView {
	cv := &comparisonView{Note: report.AssociationNote}
	base, cand, err := runs.PickConfigs(s.ConfigNames(), opts.Baseline, opts.Candidate)
	if err != nil {
		cv.Error = "No paired comparison: " + clean(err.Error()) + "."
		return cv
	}
	cv.Baseline, cv.Candidate = clean(base), clean(cand)
	c, err := runs.Compare(s, base, cand, metricsList)
	if c != nil {
		matched := make([]string, len(c.Matched))
		for i, t := range c.Matched {
			matched[i] = clean(t)
		}
		cv.Matched = fmt.Sprintf("%d: %s", len(c.Matched), strings.Join(matched, ", "))
		for _, u := range c.Unmatched() {
			cv.Unmatched = append(cv.Unmatched, clean(u))
		}
		if bm, cm := c.Models[base], c.Models[cand]; len(bm) > 0 && len(cm) > 0 && !slices.Equal(bm, cm) {
			cv.Warning = clean(fmt.Sprintf("The configurations ran different models (%s: %s; %s: %s); a paired comparison assumes the same model and harness.",
				base, strings.Join(bm, ", "), cand, strings.Join(cm, ", ")))
		}
	}
	if err != nil {
		if errors.Is(err, runs.ErrTooFewMatched) {
			cv.Error = "No paired comparison: " + clean(err.Error()) + "."
		} else {
			cv.Error = clean(err.Error())
		}
		return cv
	}
	for _, m := range c.Metrics {
		r := comparisonRow{Label: report.Label(m.Metric), N: strconv.Itoa(m.N), BaseMean: "n/a", CandMean: "n/a", Diff: "n/a", CI: "n/a", Wilcoxon: "n/a", Judgement: "no data", Class: "unclear"}
		if m.N > 0 {
			r.BaseMean, r.CandMean = report.FormatValue(m.Metric, m.BaselineMean), report.FormatValue(m.Metric, m.CandidateMean)
			r.Diff = report.FormatDelta(m.Metric, 0, m.Diff.Mean)
			r.CI = "[" + report.FormatDelta(m.Metric, 0, m.Diff.CILow) + ", " + report.FormatDelta(m.Metric, 0, m.Diff.CIHigh) + "]"
			r.Wilcoxon = strconv.FormatFloat(m.Wilcoxon.P, 'f', 3, 64)
			r.Judgement, r.Class = judge(m.Metric, m.Diff.CILow, m.Diff.CIHigh)
			r.Plot = newIntervalPlot(m.Metric, m.Diff.CILow, m.Diff.Mean, m.Diff.CIHigh, r.Class)
		}
		cv.Rows = append(cv.Rows, r)
	}
	return cv
}

// judge says in words what a CI of a paired difference shows: better or
// worse when it excludes zero, by the metric's direction.
func judge(metric string, lo, hi float64) (string, string) {
	dir := report.DirectionOf(metric)
	switch {
	case lo <= 0 && hi >= 0:
		return "CI includes 0", "unclear"
	case dir == report.Neutral:
		if lo > 0 {
			return "higher (neutral figure)", "neutral"
		}
		return "lower (neutral figure)", "neutral"
	case (lo > 0) == (dir == report.HigherIsBetter):
		return "candidate better", "better"
	}
	return "candidate worse", "worse"
}

// newIntervalPlot scales a CI so that zero is in the middle and the
// farther bound near an edge.
func newIntervalPlot(metric string, lo, mean, hi float64, class string) intervalPlot {
	const w, h, pad = 160, 36, 14
	span := math.Max(math.Abs(lo), math.Abs(hi))
	if span == 0 {
		span = 1
	}
	x := func(v float64) string { return num(w/2 + v/span*(w/2-pad)) }
	return intervalPlot{
		Width: w, Height: h, Zero: num(w / 2), Lo: x(lo), Hi: x(hi), Mean: x(mean), Y: num(12),
		LeftLabel: report.FormatDelta(metric, 0, -span), RightLabel: report.FormatDelta(metric, 0, span), Cls: class,
		Label: fmt.Sprintf("mean difference %s, 95%% CI from %s to %s", report.FormatDelta(metric, 0, mean),
			report.FormatDelta(metric, 0, lo), report.FormatDelta(metric, 0, hi)),
	}
}

func fixed2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
