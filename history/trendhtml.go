package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
)

// trendCSS is the page's only style; the page has no script.
const trendCSS = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:60em}
h1{font-size:1.4em}h2{font-size:1.1em;margin:1.6em 0 .3em}
.meta{color:#666}svg{display:block;background:#fafafa;border:1px solid #ddd}
.line{fill:none;stroke:#2463a6;stroke-width:2}.axis{stroke:#bbb;stroke-width:1}
.label{font-size:11px;fill:#666}.pt{fill:#2463a6}.pt.failed{fill:#c62828}
.legend .failed{color:#c62828}.ci{fill:#2463a6;fill-opacity:.15;stroke:none}
.thr{fill:none;stroke:#c62828;stroke-width:1.5;stroke-dasharray:5 3}.thr-band{fill:#c62828;fill-opacity:.12;stroke:none}
.thr-label{font-size:11px;fill:#c62828}table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #eee;text-align:left}`

// TrendCSP is the Content-Security-Policy of the trend page: the rules of
// the HTML report (nothing is loaded from anywhere and the only style is
// the page's own, named by its SHA-256), with no script at all.
var TrendCSP = "default-src 'none'; img-src data:; style-src '" + cssHash() + "'; script-src 'none'; base-uri 'none'; form-action 'none'"

func cssHash() string {
	sum := sha256.Sum256([]byte(trendCSS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// trendPage is parsed when a trend page is first written, not at every
// start of the command.
var trendPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("trend").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Retrieval trend of {{.Branch}}</title>
<style>{{.CSS}}</style></head>
<body>
<h1>Retrieval trend of {{.Branch}}</h1>
<p class="meta">{{.Summary}}</p>
<p class="legend">Oldest run on the left. Each point links to its run's report (or CI page) when one was recorded;
<span class="failed">red points</span> are runs in which a scenario failed or could not be checked, or in which a
configuration had trials that could not be evaluated. <span class="failed">Dashed red lines</span> are the thresholds the
runs' expectations set on the figure (≥: the figure passes above it, ≤: below it), drawn as steps where a threshold
changed; a shaded band spans the thresholds when scenarios set different ones. A blue band is the 95% interval of a
configuration's mean over tasks.</p>
{{range .Charts}}
<h2>{{.Figure}}</h2>
<p class="meta">first {{.First}}, latest {{.Latest}} ({{.Change}}), range {{.Min}} to {{.Max}}{{if .Required}}; required {{.Required}}{{end}}</p>
<svg width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="{{.Figure}} over {{len .Points}} runs">
<line class="axis" x1="40" y1="{{.Bottom}}" x2="{{.Right}}" y2="{{.Bottom}}"></line>
<text class="label" x="2" y="{{.TopLabelY}}">{{.AxisMax}}</text><text class="label" x="2" y="{{.Bottom}}">{{.AxisMin}}</text>
{{range .Intervals}}<polygon class="ci" points="{{.}}"></polygon>{{end}}
{{range .Bands}}<rect class="thr-band" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"></rect>{{end}}
{{range .Thresholds}}<path class="thr" d="{{.D}}"><title>{{.Title}}</title></path>{{end}}
{{range .ThresholdLabels}}<text class="thr-label" x="{{.X}}" y="{{.Y}}" text-anchor="end">{{.Text}}</text>{{end}}
{{range .Lines}}<polyline class="line" points="{{.}}"></polyline>{{end}}
{{range .Points}}{{if .Link}}<a href="{{.Link}}">{{end}}<circle class="pt{{if .Failed}} failed{{end}}" cx="{{.X}}" cy="{{.Y}}" r="4"><title>{{.Title}}</title></circle>{{if .Link}}</a>{{end}}
{{end}}</svg>
{{end}}
{{if .Flaky}}<h2>Flaky expectations</h2>
<table><tr><th>Scenario</th><th>Expectation</th><th>Pass rate</th><th>Passed</th></tr>
{{range .Flaky}}<tr><td>{{.Scenario}}</td><td>{{.Name}}</td><td>{{.Rate}}</td><td>{{.Passed}}</td></tr>
{{end}}</table>{{end}}
</body></html>
`))
})

type chartPoint struct {
	X, Y   float64
	Link   string
	Failed bool
	Title  string
}

type chart struct {
	Figure                         string
	First, Latest, Change          string
	Min, Max                       string
	AxisMin, AxisMax               string
	Required                       string
	W, H, Bottom, Right, TopLabelY float64
	Lines                          []string
	Points                         []chartPoint
	// Intervals are polygons of a configuration's 95% interval.
	Intervals []string
	// Thresholds are stepped paths of the thresholds, Bands the spans
	// between different scenarios' thresholds of one run.
	Thresholds      []thresholdPath
	Bands           []rect
	ThresholdLabels []label
}

type thresholdPath struct{ D, Title string }

type rect struct{ X, Y, W, H float64 }

type label struct {
	X, Y float64
	Text string
}

type flakyRow struct{ Scenario, Name, Rate, Passed string }

// WriteHTML writes the trend as a self-contained page: a chart per figure
// (the expectations that passed last), a point per run linked to the
// run's report when one was recorded (else its CI page), runs with a
// failed scenario marked, and the flaky expectations. Nothing is loaded
// from elsewhere and the page runs no script (see TrendCSP).
func (t *Trend) WriteHTML(w io.Writer, flaky []FlakyExpectation) error {
	data := struct {
		CSP     string
		CSS     template.CSS
		Branch  string
		Summary string
		Charts  []chart
		Flaky   []flakyRow
	}{CSP: TrendCSP, CSS: template.CSS(trendCSS), Branch: t.Branch}
	first, last := t.Points[0], t.Points[len(t.Points)-1]
	data.Summary = fmt.Sprintf("%d run(s), %s (%s) to %s (%s); %s.", len(t.Points), first.Time.Format("2006-01-02 15:04"),
		shortCommit(first.Commit), last.Time.Format("2006-01-02 15:04"), shortCommit(last.Commit), t.of())
	for _, sr := range t.Series {
		data.Charts = append(data.Charts, t.chart(sr))
	}
	if t.showsPassed() {
		data.Charts = append(data.Charts, t.chart(Series{Figure: "expectations passed", Values: t.passRates()}))
	}
	for _, f := range flaky {
		name := f.Type
		if f.Description != "" {
			name += ": " + f.Description
		}
		data.Flaky = append(data.Flaky, flakyRow{f.Scenario, name, fmt.Sprintf("%.0f%%", 100*f.PassRate()), fmt.Sprintf("%d of %d", f.Passed, f.Judged)})
	}
	var b bytes.Buffer
	if err := trendPage().Execute(&b, data); err != nil {
		return fmt.Errorf("trend page: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// chart lays out one series: x evenly by run, y scaled between the
// extremes of its values, its intervals and its thresholds; a run without
// the figure breaks the line.
func (t *Trend) chart(sr Series) chart {
	const w, h, left, right, top, bottom = 720.0, 180.0, 44.0, 12.0, 14.0, 20.0
	c := chart{Figure: sr.Label(), W: w, H: h, Bottom: h - bottom, Right: w - right, TopLabelY: top}
	name := sr.Figure
	if name == "expectations passed" {
		name = "pass_rate"
	}
	show := func(v float64) string {
		if name == "pass_rate" {
			if math.IsNaN(v) {
				return "n/a"
			}
			return fmt.Sprintf("%.1f%%", 100*v)
		}
		return figure(name, v)
	}
	st := statsOf(sr.Values)
	c.First, c.Latest, c.Min, c.Max, c.Change = show(st.first), show(st.last), show(st.lo), show(st.hi), strings.Trim(change(name, st.first, st.last), "*")
	// The axis spans what is drawn: values, intervals and thresholds.
	lo, hi := st.lo, st.hi
	for i := range sr.Values {
		if sr.Low != nil && !math.IsNaN(sr.Values[i]) {
			lo, hi = minNaN(lo, sr.Low[i]), maxNaN(hi, sr.High[i])
		}
		if sr.Thresholds != nil {
			th := sr.Thresholds[i]
			for _, v := range []float64{th.AtLeast[0], th.AtLeast[1], th.AtMost[0], th.AtMost[1]} {
				if !math.IsNaN(v) {
					lo, hi = minNaN(lo, v), maxNaN(hi, v)
				}
			}
		}
	}
	c.AxisMin, c.AxisMax = show(lo), show(hi)
	step := 0.0
	if n := len(sr.Values); n > 1 {
		step = (w - left - right) / float64(n-1)
	}
	xOf := func(i int) float64 { return left + float64(i)*step }
	yOf := func(v float64) float64 {
		if hi > lo {
			return top + (hi-v)/(hi-lo)*(h-top-bottom)
		}
		return top + (h-top-bottom)/2
	}
	var line []string
	var upper, lower []string
	var lastX, lastHi, lastLo float64
	endInterval := func() {
		switch {
		case len(upper) == 1:
			// A run alone between gaps: its interval as a narrow bar,
			// which a polygon of one x would not show.
			c.Intervals = append(c.Intervals, fmt.Sprintf("%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f",
				lastX-3, lastHi, lastX+3, lastHi, lastX+3, lastLo, lastX-3, lastLo))
		case len(upper) > 1:
			slices.Reverse(lower)
			c.Intervals = append(c.Intervals, strings.Join(append(upper, lower...), " "))
		}
		upper, lower = nil, nil
	}
	for i, v := range sr.Values {
		p := t.Points[i]
		if math.IsNaN(v) {
			if len(line) > 0 {
				c.Lines = append(c.Lines, strings.Join(line, " "))
				line = nil
			}
			endInterval()
			continue
		}
		x, y := xOf(i), yOf(v)
		line = append(line, fmt.Sprintf("%.1f,%.1f", x, y))
		title := fmt.Sprintf("%s: %s", c.Figure, show(v))
		if sr.Low != nil {
			lastX, lastHi, lastLo = x, yOf(sr.High[i]), yOf(sr.Low[i])
			upper = append(upper, fmt.Sprintf("%.1f,%.1f", x, lastHi))
			lower = append(lower, fmt.Sprintf("%.1f,%.1f", x, lastLo))
			title += fmt.Sprintf(" (95%% interval %s to %s)", show(sr.Low[i]), show(sr.High[i]))
		}
		if sr.Thresholds != nil && sr.Thresholds[i].Has() {
			title += ", required " + requiredText(sr.Thresholds[i], show)
		}
		link := p.ReportURL
		if link == "" {
			link = p.URL
		}
		failed := sr.failed(t, i)
		if failed && sr.FailedTrials != nil {
			title += fmt.Sprintf(", %d trial(s) could not be evaluated", sr.FailedTrials[i])
		}
		c.Points = append(c.Points, chartPoint{X: math.Round(x*10) / 10, Y: math.Round(y*10) / 10, Link: link, Failed: failed,
			Title: title + fmt.Sprintf(", run %s, commit %s, %s", p.Key, shortCommit(p.Commit), p.Time.Format("2006-01-02 15:04"))})
	}
	if len(line) > 0 {
		c.Lines = append(c.Lines, strings.Join(line, " "))
	}
	endInterval()
	if sr.Thresholds != nil {
		t.drawThresholds(&c, sr, xOf, yOf, step, left, w-right, show)
	}
	return c
}

// drawThresholds draws each side of a series' thresholds as steps: a
// horizontal segment per run, centred on its point, joined to the next
// run's by a vertical one where the threshold changed, broken where a run
// set none; a band where a run's scenarios set different thresholds; and
// the latest threshold named at the right end.
func (t *Trend) drawThresholds(c *chart, sr Series, xOf func(int) float64, yOf func(float64) float64, step, minX, maxX float64, show func(float64) string) {
	half := step / 2
	if step == 0 {
		half = 12
	}
	type side struct {
		get  func(Threshold) [2]float64
		sign string
	}
	for _, sd := range []side{{func(th Threshold) [2]float64 { return th.AtLeast }, "≥"}, {func(th Threshold) [2]float64 { return th.AtMost }, "≤"}} {
		span := func(i int) (x0, x1 float64) { return max(minX, xOf(i)-half), min(maxX, xOf(i)+half) }
		// A side is one line, or the two edges of a band when the
		// scenarios of any run set different thresholds on it.
		edges := 1
		for i, th := range sr.Thresholds {
			if v := sd.get(th); v[1] > v[0] {
				edges = 2
				x0, x1 := span(i)
				c.Bands = append(c.Bands, rect{X: round1(x0), Y: round1(yOf(v[1])), W: round1(x1 - x0), H: round1(yOf(v[0]) - yOf(v[1]))})
			}
		}
		for edge := range edges {
			var d strings.Builder
			open, lastY := false, 0.0
			for i, th := range sr.Thresholds {
				v := sd.get(th)
				if math.IsNaN(v[0]) {
					open = false
					continue
				}
				x0, x1 := span(i)
				y := round1(yOf(v[edge]))
				switch {
				case !open:
					fmt.Fprintf(&d, " M%.1f,%.1f H%.1f", x0, y, x1)
				case y != lastY:
					fmt.Fprintf(&d, " V%.1f H%.1f", y, x1)
				default:
					// The same threshold as the run before: the
					// segment goes on.
					fmt.Fprintf(&d, " H%.1f", x1)
				}
				open, lastY = true, y
			}
			if d.Len() > 0 {
				title := fmt.Sprintf("threshold: %s must be %s the line", c.Figure, map[string]string{"≥": "at or above", "≤": "at or below"}[sd.sign])
				c.Thresholds = append(c.Thresholds, thresholdPath{D: strings.TrimSpace(d.String()), Title: title})
			}
		}
		// The latest run that set this side's threshold names it.
		for i := len(sr.Thresholds) - 1; i >= 0; i-- {
			v := sd.get(sr.Thresholds[i])
			if math.IsNaN(v[0]) {
				continue
			}
			text := sd.sign + " " + show(v[0])
			if v[1] > v[0] {
				text = sd.sign + " " + show(v[0]) + " to " + show(v[1]) + " (by scenario)"
			}
			y := yOf(v[0]) - 3
			if sd.sign == "≤" {
				y = yOf(v[1]) + 11
			}
			c.ThresholdLabels = append(c.ThresholdLabels, label{X: maxX - 2, Y: round1(y), Text: "required " + text})
			break
		}
	}
	c.Required = requiredText(latestThreshold(sr.Thresholds), show)
}

// latestThreshold is the threshold of the latest run that set one.
func latestThreshold(ths []Threshold) Threshold {
	for i := len(ths) - 1; i >= 0; i-- {
		if ths[i].Has() {
			return ths[i]
		}
	}
	return NoThreshold
}

// requiredText words a threshold: "≥ 0.50", "≥ 0.40 to 0.60" when the
// scenarios differ, "≥ 0.20 and ≤ 0.90" with both sides.
func requiredText(th Threshold, show func(float64) string) string {
	var parts []string
	for _, s := range []struct {
		v    [2]float64
		sign string
	}{{th.AtLeast, "≥"}, {th.AtMost, "≤"}} {
		if math.IsNaN(s.v[0]) {
			continue
		}
		p := s.sign + " " + show(s.v[0])
		if s.v[1] > s.v[0] {
			p += " to " + show(s.v[1])
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " and ")
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

func minNaN(a, b float64) float64 {
	if math.IsNaN(a) || b < a {
		return b
	}
	return a
}

func maxNaN(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}
