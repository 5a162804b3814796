package history

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/report"
)

// TrendOptions select what Trend gathers.
type TrendOptions struct {
	// Branch is the branch whose runs are shown; "" means the branch of
	// the latest run.
	Branch string
	// Runs is how many of the branch's latest runs are shown (default 20).
	Runs int
	// Figures are the metric names shown; nil means
	// report.DefaultRetrievalMetrics.
	Figures []string
	// Scenario, when set, shows that scenario's figures; otherwise each
	// figure is the mean over the scenarios of each run that have it.
	Scenario string
}

// A Point is one run of a trend.
type Point struct {
	Key, Commit, URL, ReportURL string
	Time                        time.Time
	// Passed of Judged expectations passed in the run (of Scenario, when
	// the trend is of one); a flaky failure is judged and not passed.
	Passed, Judged int
	// Failed scenarios (status fail or error).
	Failed int
}

// A Series is one figure over the runs of a trend.
type Series struct {
	Figure string
	// Values are in the order of Trend.Points; NaN where the run has no
	// value of the figure.
	Values []float64
}

// A Trend is figures over the latest runs of a branch, oldest first.
type Trend struct {
	Branch   string
	Scenario string
	Points   []Point
	Series   []Series
}

// Trend gathers the figures of the latest runs of a branch.
func (s *Store) Trend(ctx context.Context, opts TrendOptions) (*Trend, error) {
	if opts.Runs == 0 {
		opts.Runs = 20
	}
	if opts.Runs < 1 {
		return nil, fmt.Errorf("history %s: %d runs (expected 1 or more)", s.name, opts.Runs)
	}
	figures := opts.Figures
	if figures == nil {
		figures = report.DefaultRetrievalMetrics
	}
	t := &Trend{Branch: opts.Branch, Scenario: opts.Scenario}
	if t.Branch == "" {
		err := s.db.QueryRowContext(ctx, `SELECT branch FROM runs ORDER BY recorded_at DESC, id DESC LIMIT 1`).Scan(&t.Branch)
		if err != nil {
			return nil, fmt.Errorf("history %s: no run recorded", s.name)
		}
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, run_key, recorded_at, commit_sha, url, report_url FROM runs
		WHERE branch = ? ORDER BY recorded_at DESC, id DESC LIMIT ?`), t.Branch, opts.Runs)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	var ids []int64
	for rows.Next() {
		var p Point
		var id, ms int64
		if err := rows.Scan(&id, &p.Key, &ms, &p.Commit, &p.URL, &p.ReportURL); err != nil {
			rows.Close()
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
		p.Time = time.UnixMilli(ms).UTC()
		ids = append(ids, id)
		t.Points = append(t.Points, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	if len(ids) == 0 {
		branches, _ := s.strings(ctx, `SELECT branch FROM runs GROUP BY branch ORDER BY MAX(recorded_at) DESC LIMIT 10`)
		return nil, fmt.Errorf("history %s: no run of branch %q (branches recorded: %s)", s.name, t.Branch, strings.Join(branches, ", "))
	}
	slices.Reverse(ids)
	slices.Reverse(t.Points)
	at := map[int64]int{}
	for i, id := range ids {
		at[id] = i
	}
	sums := make([][]float64, len(figures))
	counts := make([][]int, len(figures))
	for i := range figures {
		sums[i], counts[i] = make([]float64, len(ids)), make([]int, len(ids))
	}
	in := placeholders(len(ids))
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	cond := ""
	if opts.Scenario != "" {
		cond = " AND s.name = ?"
		args = append(args, opts.Scenario)
	}
	rows, err = s.db.QueryContext(ctx, s.q(`SELECT s.run_id, s.name, s.status, s.figures FROM scenarios s WHERE s.run_id IN (`+in+`)`+cond), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	seen := false
	for rows.Next() {
		var id int64
		var name, status, figs string
		if err := rows.Scan(&id, &name, &status, &figs); err != nil {
			rows.Close()
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
		seen = true
		i := at[id]
		if status == string(Fail) || status == string(Error) {
			t.Points[i].Failed++
		}
		m, err := decodeFigures(figs)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("history %s: scenario %s: %w", s.name, name, err)
		}
		for f, fig := range figures {
			if v, ok := m[fig]; ok {
				sums[f][i] += v
				counts[f][i]++
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	if opts.Scenario != "" && !seen {
		return nil, fmt.Errorf("history %s: scenario %q is in none of the last %d runs of branch %s", s.name, opts.Scenario, len(ids), t.Branch)
	}
	for f, fig := range figures {
		sr := Series{Figure: fig, Values: make([]float64, len(ids))}
		for i := range ids {
			sr.Values[i] = math.NaN()
			if counts[f][i] > 0 {
				sr.Values[i] = sums[f][i] / float64(counts[f][i])
			}
		}
		t.Series = append(t.Series, sr)
	}
	rows, err = s.db.QueryContext(ctx, s.q(`SELECT s.run_id, e.status, COUNT(*) FROM expectations e JOIN scenarios s ON e.scenario_id = s.id
		WHERE s.run_id IN (`+in+`)`+cond+` GROUP BY s.run_id, e.status`), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var status string
		var n int
		if err := rows.Scan(&id, &status, &n); err != nil {
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
		p := &t.Points[at[id]]
		switch Status(status) {
		case Pass:
			p.Passed += n
			p.Judged += n
		case Fail, Flaky:
			p.Judged += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	return t, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// sparks are the eight heights of a sparkline.
var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values as block characters scaled between their minimum
// and maximum (a flat series is drawn at the lowest height), with "·" for
// a NaN (a run without the figure).
func Sparkline(values []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if !math.IsNaN(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range values {
		switch {
		case math.IsNaN(v):
			b.WriteRune('·')
		case hi == lo:
			b.WriteRune(sparks[0])
		default:
			b.WriteRune(sparks[int(math.Round((v-lo)/(hi-lo)*float64(len(sparks)-1)))])
		}
	}
	return b.String()
}

// WriteMarkdown writes the trend as a markdown table, one row per figure
// and one for the expectations that passed: its sparkline (oldest run on
// the left), its first and latest values, the change between them with
// whether that is better or worse, and its range. flaky, when not empty,
// adds the table of flaky expectations.
func (t *Trend) WriteMarkdown(w io.Writer, flaky []FlakyExpectation) error {
	first, last := t.Points[0], t.Points[len(t.Points)-1]
	of := "mean over the scenarios of each run"
	if t.Scenario != "" {
		of = "scenario " + report.Escape(t.Scenario)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Retrieval trend of %s\n\n", report.Escape(t.Branch))
	fmt.Fprintf(&b, "%d run(s), %s (%s) to %s (%s); %s.\n\n", len(t.Points),
		first.Time.Format("2006-01-02 15:04"), shortCommit(first.Commit), last.Time.Format("2006-01-02 15:04"), shortCommit(last.Commit), of)
	b.WriteString("| Figure | Trend | First | Latest | Change | Min | Max |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, sr := range t.Series {
		lo, hi, firstV, lastV := math.NaN(), math.NaN(), math.NaN(), math.NaN()
		for _, v := range sr.Values {
			if math.IsNaN(v) {
				continue
			}
			if math.IsNaN(firstV) {
				firstV = v
			}
			lastV = v
			if math.IsNaN(lo) || v < lo {
				lo = v
			}
			if math.IsNaN(hi) || v > hi {
				hi = v
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", report.Escape(sr.Figure), Sparkline(sr.Values),
			figure(sr.Figure, firstV), figure(sr.Figure, lastV), change(sr.Figure, firstV, lastV), figure(sr.Figure, lo), figure(sr.Figure, hi))
	}
	rates := make([]float64, len(t.Points))
	for i, p := range t.Points {
		rates[i] = math.NaN()
		if p.Judged > 0 {
			rates[i] = float64(p.Passed) / float64(p.Judged)
		}
	}
	fmt.Fprintf(&b, "| expectations passed | %s | %s | %s | %s | | |\n", Sparkline(rates), passText(first), passText(last), change("pass_rate", rates[0], rates[len(rates)-1]))
	if len(flaky) > 0 {
		b.WriteString("\n")
		if err := WriteFlaky(&b, flaky); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func figure(name string, v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return report.FigureText(name, v)
}

// change is latest − first with better or worse by the figure's direction.
func change(name string, first, last float64) string {
	if math.IsNaN(first) || math.IsNaN(last) {
		return "n/a"
	}
	d := report.DeltaText(name, first, last)
	if name == "pass_rate" {
		d = strconv.FormatFloat(100*(last-first), 'f', 1, 64) + " pp"
		if last > first {
			d = "+" + d
		}
	}
	dir := report.DirectionOf(name)
	if name == "pass_rate" {
		dir = report.HigherIsBetter
	}
	switch {
	case last == first || dir == report.Neutral:
		return d
	case (last > first) == (dir == report.HigherIsBetter):
		return d + " better"
	}
	return "**" + d + " worse**"
}

func passText(p Point) string {
	if p.Judged == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d of %d", p.Passed, p.Judged)
}

func shortCommit(c string) string {
	if c == "" {
		return "no commit"
	}
	return c[:min(len(c), 12)]
}

func shortDigest(d string) string {
	d = strings.TrimPrefix(d, "sha256:")
	return d[:min(len(d), 12)]
}
