package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

// trendCSS is the page's only style; the page has no script.
const trendCSS = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:60em}
h1{font-size:1.4em}h2{font-size:1.1em;margin:1.6em 0 .3em}
.meta{color:#666}svg{display:block;background:#fafafa;border:1px solid #ddd}
.line{fill:none;stroke:#2463a6;stroke-width:2}.axis{stroke:#bbb;stroke-width:1}
.label{font-size:11px;fill:#666}.pt{fill:#2463a6}.pt.failed{fill:#c62828}
.legend .failed{color:#c62828}table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #eee;text-align:left}`

// TrendCSP is the Content-Security-Policy of the trend page: the rules of
// the HTML report (nothing is loaded from anywhere and the only style is
// the page's own, named by its SHA-256), with no script at all.
var TrendCSP = "default-src 'none'; img-src data:; style-src '" + cssHash() + "'; script-src 'none'; base-uri 'none'; form-action 'none'"

func cssHash() string {
	sum := sha256.Sum256([]byte(trendCSS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

var trendPage = template.Must(template.New("trend").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Retrieval trend of {{.Branch}}</title>
<style>{{.CSS}}</style></head>
<body>
<h1>Retrieval trend of {{.Branch}}</h1>
<p class="meta">{{.Summary}}</p>
<p class="legend">Oldest run on the left. Each point links to its run's report (or CI page) when one was recorded;
<span class="failed">red points</span> are runs in which a scenario failed or could not be checked.</p>
{{range .Charts}}
<h2>{{.Figure}}</h2>
<p class="meta">first {{.First}}, latest {{.Latest}} ({{.Change}}), range {{.Min}} to {{.Max}}</p>
<svg width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="{{.Figure}} over {{len .Points}} runs">
<line class="axis" x1="40" y1="{{.Bottom}}" x2="{{.Right}}" y2="{{.Bottom}}"></line>
<text class="label" x="2" y="{{.TopLabelY}}">{{.Max}}</text><text class="label" x="2" y="{{.Bottom}}">{{.Min}}</text>
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
	W, H, Bottom, Right, TopLabelY float64
	Lines                          []string
	Points                         []chartPoint
}

type flakyRow struct{ Scenario, Name, Rate, Passed string }

// WriteHTML writes the trend as a self-contained page: a chart per figure
// (the expectations that passed last), a point per run linked to the
// run's report when one was recorded (else its CI page), runs with a
// failed scenario marked, and the flaky expectations. Nothing is loaded
// from elsewhere and the page runs no script (see TrendCSP).
func (t *Trend) WriteHTML(w io.Writer, flaky []FlakyExpectation) error {
	rates := Series{Figure: "expectations passed", Values: make([]float64, len(t.Points))}
	for i, p := range t.Points {
		rates.Values[i] = math.NaN()
		if p.Judged > 0 {
			rates.Values[i] = float64(p.Passed) / float64(p.Judged)
		}
	}
	data := struct {
		CSP     string
		CSS     template.CSS
		Branch  string
		Summary string
		Charts  []chart
		Flaky   []flakyRow
	}{CSP: TrendCSP, CSS: template.CSS(trendCSS), Branch: t.Branch}
	first, last := t.Points[0], t.Points[len(t.Points)-1]
	of := "each figure is the mean over the scenarios of each run"
	if t.Scenario != "" {
		of = "figures of scenario " + t.Scenario
	}
	data.Summary = fmt.Sprintf("%d run(s), %s (%s) to %s (%s); %s.", len(t.Points), first.Time.Format("2006-01-02 15:04"),
		shortCommit(first.Commit), last.Time.Format("2006-01-02 15:04"), shortCommit(last.Commit), of)
	for _, sr := range append(t.Series, rates) {
		data.Charts = append(data.Charts, t.chart(sr))
	}
	for _, f := range flaky {
		name := f.Type
		if f.Description != "" {
			name += ": " + f.Description
		}
		data.Flaky = append(data.Flaky, flakyRow{f.Scenario, name, fmt.Sprintf("%.0f%%", 100*f.PassRate()), fmt.Sprintf("%d of %d", f.Passed, f.Judged)})
	}
	var b bytes.Buffer
	if err := trendPage.Execute(&b, data); err != nil {
		return fmt.Errorf("trend page: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// chart lays out one series: x evenly by run, y scaled between the
// series' extremes; a run without the figure breaks the line.
func (t *Trend) chart(sr Series) chart {
	const w, h, left, right, top, bottom = 720.0, 180.0, 44.0, 12.0, 14.0, 20.0
	c := chart{Figure: sr.Figure, W: w, H: h, Bottom: h - bottom, Right: w - right, TopLabelY: top}
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
	lo, hi, firstV, lastV := math.NaN(), math.NaN(), math.NaN(), math.NaN()
	for _, v := range sr.Values {
		if math.IsNaN(v) {
			continue
		}
		if math.IsNaN(firstV) {
			firstV = v
		}
		lastV = v
		lo, hi = minNaN(lo, v), maxNaN(hi, v)
	}
	c.First, c.Latest, c.Min, c.Max, c.Change = show(firstV), show(lastV), show(lo), show(hi), strings.Trim(change(name, firstV, lastV), "*")
	step := 0.0
	if n := len(sr.Values); n > 1 {
		step = (w - left - right) / float64(n-1)
	}
	var line []string
	for i, v := range sr.Values {
		p := t.Points[i]
		if math.IsNaN(v) {
			if len(line) > 0 {
				c.Lines = append(c.Lines, strings.Join(line, " "))
				line = nil
			}
			continue
		}
		y := top + (h-top-bottom)/2
		if hi > lo {
			y = top + (hi-v)/(hi-lo)*(h-top-bottom)
		}
		x := left + float64(i)*step
		line = append(line, fmt.Sprintf("%.1f,%.1f", x, y))
		link := p.ReportURL
		if link == "" {
			link = p.URL
		}
		c.Points = append(c.Points, chartPoint{X: math.Round(x*10) / 10, Y: math.Round(y*10) / 10, Link: link, Failed: p.Failed > 0,
			Title: fmt.Sprintf("%s: %s, run %s, commit %s, %s", sr.Figure, show(v), p.Key, shortCommit(p.Commit), p.Time.Format("2006-01-02 15:04"))})
	}
	if len(line) > 0 {
		c.Lines = append(c.Lines, strings.Join(line, " "))
	}
	return c
}

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
