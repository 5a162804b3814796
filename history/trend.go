package history

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
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
	// the latest run (of Config, when it is set).
	Branch string
	// Runs is how many of the branch's latest runs are shown (default 20).
	Runs int
	// Figures are the metric names shown; nil means
	// report.DefaultRetrievalMetrics.
	Figures []string
	// Scenario, when set, shows that scenario's figures alone; otherwise
	// each figure is the mean over the scenarios of each run that have it.
	Scenario string
	// Config, when set, shows that configuration of the evaluated runs
	// (run-dir, merge) alone, over the latest runs that recorded it;
	// otherwise every configuration recorded in the runs shown has its
	// series. Scenario and Config exclude each other.
	Config string
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

// A Series is one figure over the runs of a trend: the mean over the
// scenarios of each run, one scenario's, or one configuration's.
type Series struct {
	Figure string
	// Config is the configuration of the evaluated runs the series
	// follows; "" for the scenarios' figures.
	Config string
	// Values are in the order of Trend.Points; NaN where the run has no
	// value of the figure.
	Values []float64
	// Low and High bound each value's 95% confidence interval (a
	// configuration's bootstrap interval of the mean over tasks); nil for
	// the scenarios' figures.
	Low, High []float64
	// FailedTrials are, per run, the configuration's trials that could
	// not be evaluated; nil for the scenarios' figures, whose failures
	// are the points' (Point.Failed).
	FailedTrials []int
	// Thresholds are, per run, the bounds the run's expectations set on
	// the figure; nil when no expectation of the runs shown bounds it.
	Thresholds []Threshold
}

// Label names the series: its figure, and its configuration when it has
// one ("recall@5 · mcp-serena").
func (sr Series) Label() string {
	if sr.Config == "" {
		return sr.Figure
	}
	return sr.Figure + " · " + sr.Config
}

// failed reports whether run i of the series failed: a configuration
// with a failed trial, or a run with a failed scenario.
func (sr Series) failed(t *Trend, i int) bool {
	if sr.FailedTrials != nil {
		return sr.FailedTrials[i] > 0
	}
	return t.Points[i].Failed > 0
}

// A Trend is figures over the latest runs of a branch, oldest first.
type Trend struct {
	Branch   string
	Scenario string
	Config   string
	Points   []Point
	// Series are the scenarios' figures, in the order of
	// TrendOptions.Figures, then each configuration's (by name), figure
	// by figure.
	Series []Series
	// Checked reports whether a run shown recorded scenarios (check
	// -history): the expectations that passed are then shown.
	Checked bool
}

// Trend gathers the figures of the latest runs of a branch. Only the
// figures shown are read: each is picked out of the scenarios' figures by
// the database (SQLite's json_extract, PostgreSQL's jsonb) and averaged
// there, so that a run of hundreds of scenarios of a hundred figures each
// sends one row per run.
func (s *Store) Trend(ctx context.Context, opts TrendOptions) (*Trend, error) {
	if opts.Runs == 0 {
		opts.Runs = 20
	}
	if opts.Runs < 1 {
		return nil, fmt.Errorf("history %s: %d runs (expected 1 or more)", s.name, opts.Runs)
	}
	if opts.Scenario != "" && opts.Config != "" {
		return nil, fmt.Errorf("history %s: a trend of scenario %q or of configuration %q, not both", s.name, opts.Scenario, opts.Config)
	}
	figures := opts.Figures
	if figures == nil {
		figures = report.DefaultRetrievalMetrics
	}
	for _, f := range figures {
		if !validFigureName(f) {
			return nil, fmt.Errorf("history %s: figure %q (expected a metric name: letters, digits and _ . @ - only)", s.name, f)
		}
	}
	t := &Trend{Branch: opts.Branch, Scenario: opts.Scenario, Config: opts.Config}
	hasConfig, configArgs := "", []any(nil)
	if opts.Config != "" {
		hasConfig, configArgs = ` AND EXISTS (SELECT 1 FROM configs c WHERE c.run_id = runs.id AND c.name = ?)`, []any{opts.Config}
	}
	if t.Branch == "" {
		err := s.db.QueryRowContext(ctx, s.q(`SELECT branch FROM runs WHERE 1 = 1`+hasConfig+` ORDER BY recorded_at DESC, id DESC LIMIT 1`), configArgs...).Scan(&t.Branch)
		if err != nil {
			if opts.Config != "" {
				return nil, fmt.Errorf("history %s: no run recorded configuration %q", s.name, opts.Config)
			}
			return nil, fmt.Errorf("history %s: no run recorded", s.name)
		}
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, run_key, recorded_at, commit_sha, url, report_url FROM runs
		WHERE branch = ?`+hasConfig+` ORDER BY recorded_at DESC, id DESC LIMIT ?`), append(append([]any{t.Branch}, configArgs...), opts.Runs)...)
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
		if opts.Config != "" {
			return nil, fmt.Errorf("history %s: no run of branch %q recorded configuration %q (branches recorded: %s)", s.name, t.Branch, opts.Config, strings.Join(branches, ", "))
		}
		return nil, fmt.Errorf("history %s: no run of branch %q (branches recorded: %s)", s.name, t.Branch, strings.Join(branches, ", "))
	}
	slices.Reverse(ids)
	slices.Reverse(t.Points)
	at := map[int64]int{}
	for i, id := range ids {
		at[id] = i
	}
	var configs []Series
	if opts.Scenario == "" {
		if configs, err = s.configSeries(ctx, ids, at, figures, opts.Config); err != nil {
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
	}
	if opts.Config == "" {
		scenarios, seen, err := s.scenarioSeries(ctx, t, ids, at, figures, opts.Scenario)
		if err != nil {
			return nil, fmt.Errorf("history %s: %w", s.name, err)
		}
		if opts.Scenario != "" && !seen {
			return nil, fmt.Errorf("history %s: scenario %q is in none of the last %d runs of branch %s", s.name, opts.Scenario, len(ids), t.Branch)
		}
		t.Checked = seen
		// A history of evaluated runs alone has no scenario figures to
		// show; one with neither shows them, empty, as it always did.
		if seen || len(configs) == 0 {
			t.Series = scenarios
		}
	}
	t.Series = append(t.Series, configs...)
	return t, nil
}

// validFigureName accepts the names of metrics.Definitions and the
// reward, and nothing that would need quoting in a JSON path.
func validFigureName(f string) bool {
	if f == "" {
		return false
	}
	for _, r := range f {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.@-", r)) {
			return false
		}
	}
	return true
}

// figureArg is the SQL expression of one figure of a scenario, picked out
// of its figures' JSON, and the argument it takes.
func (s *Store) figureArg(figure string) (expr string, arg any) {
	if s.dialect == postgresDialect {
		return `(j.f ->> ?::text)::double precision`, figure
	}
	// The quotes keep a name with a dot (read.recall@5) one key.
	return `json_extract(j.f, ?)`, `$."` + figure + `"`
}

// scenarioSeries gathers, per figure, the mean over each run's scenarios
// (of scenario alone, when it is set), each run's failed scenarios and
// expectations passed, and the thresholds the expectations set. seen
// reports whether any run shown recorded a scenario.
func (s *Store) scenarioSeries(ctx context.Context, t *Trend, ids []int64, at map[int64]int, figures []string, scenario string) (out []Series, seen bool, err error) {
	in := placeholders(len(ids))
	var runArgs []any
	for _, id := range ids {
		runArgs = append(runArgs, id)
	}
	cond := ""
	if scenario != "" {
		cond = " AND s.name = ?"
		runArgs = append(runArgs, scenario)
	}
	var sel []string
	var args []any
	for _, f := range figures {
		expr, arg := s.figureArg(f)
		sel = append(sel, "AVG("+expr+")")
		args = append(args, arg)
	}
	// The figures' JSON is parsed once per scenario: PostgreSQL's jsonb
	// in a subquery kept apart from the outer one (OFFSET 0), SQLite's by
	// its cache of the JSON it last parsed.
	from := `(SELECT s.run_id, s.status, s.figures AS f FROM scenarios s WHERE s.run_id IN (` + in + `)` + cond + `) j`
	if s.dialect == postgresDialect {
		from = `(SELECT s.run_id, s.status, s.figures::jsonb AS f FROM scenarios s WHERE s.run_id IN (` + in + `)` + cond + ` OFFSET 0) j`
	}
	query := `SELECT j.run_id, COALESCE(SUM(CASE WHEN j.status IN ('fail', 'error') THEN 1 ELSE 0 END), 0)`
	if len(sel) > 0 {
		query += ", " + strings.Join(sel, ", ")
	}
	query += ` FROM ` + from + ` GROUP BY j.run_id`
	out = make([]Series, len(figures))
	for f, fig := range figures {
		out[f] = Series{Figure: fig, Values: nanSlice(len(ids))}
	}
	rows, err := s.db.QueryContext(ctx, s.q(query), append(args, runArgs...)...)
	if err != nil {
		return nil, false, err
	}
	means := make([]sql.NullFloat64, len(figures))
	var id int64
	var failed int
	dest := []any{&id, &failed}
	for i := range means {
		dest = append(dest, &means[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return nil, false, err
		}
		i := at[id]
		seen = true // a run's group has a scenario at least
		t.Points[i].Failed = failed
		for f, m := range means {
			if m.Valid {
				out[f].Values[i] = m.Float64
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if !seen {
		return out, false, nil
	}
	rows, err = s.db.QueryContext(ctx, s.q(`SELECT s.run_id, e.status, COUNT(*) FROM expectations e JOIN scenarios s ON e.scenario_id = s.id
		WHERE s.run_id IN (`+in+`)`+cond+` GROUP BY s.run_id, e.status`), runArgs...)
	if err != nil {
		return nil, false, err
	}
	for rows.Next() {
		var id int64
		var status string
		var n int
		if err := rows.Scan(&id, &status, &n); err != nil {
			rows.Close()
			return nil, false, err
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
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if err := s.thresholds(ctx, out, in, cond, runArgs, at); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// configSeries gathers, per configuration recorded in the runs (config
// alone, when it is set) and per figure, its mean and interval in each
// run, and its failed trials. Only the figures shown are read.
func (s *Store) configSeries(ctx context.Context, ids []int64, at map[int64]int, figures []string, config string) ([]Series, error) {
	if len(figures) == 0 {
		return nil, nil
	}
	var args []any
	for _, id := range ids {
		args = append(args, id)
	}
	for _, f := range figures {
		args = append(args, f)
	}
	cond := ""
	if config != "" {
		cond = " AND c.name = ?"
		args = append(args, config)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT c.run_id, c.name, c.failed, f.figure, f.mean, f.ci_low, f.ci_high
		FROM configs c JOIN config_figures f ON f.config_id = c.id
		WHERE c.run_id IN (`+placeholders(len(ids))+`) AND f.figure IN (`+placeholders(len(figures))+`)`+cond), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byName := map[string][]Series{}
	for rows.Next() {
		var id int64
		var name, figure string
		var failed int
		var mean, lo, hi float64
		if err := rows.Scan(&id, &name, &failed, &figure, &mean, &lo, &hi); err != nil {
			return nil, err
		}
		list := byName[name]
		if list == nil {
			for _, f := range figures {
				list = append(list, Series{Figure: f, Config: name, Values: nanSlice(len(ids)), Low: nanSlice(len(ids)),
					High: nanSlice(len(ids)), FailedTrials: make([]int, len(ids))})
			}
			byName[name] = list
		}
		i := at[id]
		for k := range list {
			list[k].FailedTrials[i] = failed
			if list[k].Figure == figure {
				list[k].Values[i], list[k].Low[i], list[k].High[i] = mean, lo, hi
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []Series
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name]...)
	}
	return out, nil
}

func nanSlice(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
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

// WriteMarkdown writes the trend as a markdown table, one row per series
// and one for the expectations that passed: its sparkline (oldest run on
// the left), its first and latest values (a configuration's latest with
// its 95% interval), the change between them with whether that is better
// or worse, and its range. flaky, when not empty, adds the table of flaky
// expectations.
func (t *Trend) WriteMarkdown(w io.Writer, flaky []FlakyExpectation) error {
	first, last := t.Points[0], t.Points[len(t.Points)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "### Retrieval trend of %s\n\n", report.Escape(t.Branch))
	fmt.Fprintf(&b, "%d run(s), %s (%s) to %s (%s); %s.\n\n", len(t.Points),
		first.Time.Format("2006-01-02 15:04"), shortCommit(first.Commit), last.Time.Format("2006-01-02 15:04"), shortCommit(last.Commit), report.Escape(t.of()))
	b.WriteString("| Figure | Trend | First | Latest | Change | Min | Max |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, sr := range t.Series {
		st := statsOf(sr.Values)
		latest := figure(sr.Figure, st.last)
		if sr.Low != nil && st.lastAt >= 0 {
			n := st.lastAt
			latest += " [" + figure(sr.Figure, sr.Low[n]) + ", " + figure(sr.Figure, sr.High[n]) + "]"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", report.Escape(sr.Label()), Sparkline(sr.Values),
			figure(sr.Figure, st.first), latest, change(sr.Figure, st.first, st.last), figure(sr.Figure, st.lo), figure(sr.Figure, st.hi))
	}
	if t.showsPassed() {
		rates := t.passRates()
		fmt.Fprintf(&b, "| expectations passed | %s | %s | %s | %s | | |\n", Sparkline(rates), passText(first), passText(last), change("pass_rate", rates[0], rates[len(rates)-1]))
	}
	if len(flaky) > 0 {
		b.WriteString("\n")
		if err := WriteFlaky(&b, flaky); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// of says what the figures are.
func (t *Trend) of() string {
	switch {
	case t.Scenario != "":
		return "scenario " + t.Scenario
	case t.Config != "":
		return "configuration " + t.Config + ": mean over tasks with its 95% interval"
	case !t.Checked:
		return "each configuration's mean over tasks with its 95% interval"
	}
	for _, sr := range t.Series {
		if sr.Config != "" {
			return "mean over the scenarios of each run; each configuration's mean over tasks with its 95% interval"
		}
	}
	return "mean over the scenarios of each run"
}

// showsPassed reports whether the trend has a row of the expectations
// that passed: it has unless its runs are evaluated runs alone.
func (t *Trend) showsPassed() bool {
	if t.Checked {
		return true
	}
	for _, sr := range t.Series {
		if sr.Config != "" {
			return false
		}
	}
	return true
}

// passRates are the share of the expectations judged that passed, per
// run; NaN for a run that judged none.
func (t *Trend) passRates() []float64 {
	rates := make([]float64, len(t.Points))
	for i, p := range t.Points {
		rates[i] = math.NaN()
		if p.Judged > 0 {
			rates[i] = float64(p.Passed) / float64(p.Judged)
		}
	}
	return rates
}

// seriesStats are a series' first, latest, lowest and highest values,
// NaN when it has none.
type seriesStats struct {
	first, last, lo, hi float64
	// lastAt is the index of the latest value, -1 when there is none.
	lastAt int
}

func statsOf(values []float64) seriesStats {
	st := seriesStats{math.NaN(), math.NaN(), math.NaN(), math.NaN(), -1}
	for i, v := range values {
		if math.IsNaN(v) {
			continue
		}
		if math.IsNaN(st.first) {
			st.first = v
		}
		st.last, st.lastAt = v, i
		st.lo, st.hi = minNaN(st.lo, v), maxNaN(st.hi, v)
	}
	return st
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
