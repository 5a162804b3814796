package history

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheTrendPageChartsEachFigureAndRunsNoScript(t *testing.T) {
	at := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	tr := &Trend{Branch: "main<script>alert(1)</script>", Points: []Point{
		{Key: "r1", Commit: "aaaa", Time: at(1), ReportURL: "https://reports.example/r1", Passed: 2, Judged: 2},
		{Key: "r2", Commit: "bbbb", Time: at(2), URL: "javascript:alert(1)", Passed: 1, Judged: 2, Failed: 1},
		{Key: "r3", Commit: "cccc", Time: at(3), URL: "https://ci.example/r3", Passed: 2, Judged: 2},
	}, Series: []Series{
		{Figure: "recall@5", Values: []float64{0.2, math.NaN(), 1}},
		{Figure: "mrr", Values: []float64{0.5, 0.5, 0.5}},
	}}
	var b strings.Builder
	require.NoError(t, tr.WriteHTML(&b, []FlakyExpectation{{Scenario: "s<b>", Type: "retrieval", Passed: 1, Judged: 2}}))
	page := b.String()

	assert.Contains(t, page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; img-src data:; style-src &#39;sha256-`)
	assert.Contains(t, page, "script-src &#39;none&#39;")
	assert.NotContains(t, page, "<script>", "the branch name is text, and the page has no script")
	assert.Contains(t, page, "main&lt;script&gt;alert(1)&lt;/script&gt;")
	assert.NotContains(t, page, "javascript:", "an unsafe link is dropped")
	assert.Contains(t, page, `<a href="https://reports.example/r1">`, "the report link wins")
	assert.Contains(t, page, `<a href="https://ci.example/r3">`, "else the CI page")

	assert.Equal(t, 3, strings.Count(page, "<svg "), "recall@5, mrr and the expectations that passed")
	assert.Contains(t, page, "<h2>recall@5</h2>")
	assert.Contains(t, page, "first 0.20, latest 1.00 (&#43;0.80 better), range 0.20 to 1.00")
	assert.Contains(t, page, "first 100.0%, latest 100.0% (0.0 pp), range 50.0% to 100.0%")
	// recall@5 is missing in run 2: two lines of one point each.
	assert.Equal(t, 2, strings.Count(sectionOf(page, "recall@5"), "<polyline"))
	assert.Equal(t, 1, strings.Count(sectionOf(page, "expectations passed"), `class="pt failed"`), "run 2 had a failed scenario")
	assert.Contains(t, page, "<td>s&lt;b&gt;</td><td>retrieval</td><td>50%</td><td>1 of 2</td>")

	css := regexp.MustCompile(`(?s)<style>(.*)</style>`).FindStringSubmatch(page)
	require.Len(t, css, 2)
	assert.Equal(t, trendCSS, css[1], "the style is the one the policy's hash names")
}

// sectionOf is the page from the chart of figure to the next chart.
func sectionOf(page, figure string) string {
	_, rest, _ := strings.Cut(page, "<h2>"+figure+"</h2>")
	section, _, _ := strings.Cut(rest, "<h2>")
	return section
}

// thresholdTrend is three runs of recall@5 whose threshold changed (a band
// of two scenarios' bounds, none, one bound), of ttfr_steps with an upper
// bound, and of a configuration with its interval and a failed trial.
func thresholdTrend() *Trend {
	at := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	nan := math.NaN()
	th := func(lo, lo2, hi, hi2 float64) Threshold {
		return Threshold{AtLeast: [2]float64{lo, lo2}, AtMost: [2]float64{hi, hi2}}
	}
	return &Trend{Branch: "main", Checked: true, Points: []Point{
		{Key: "r1", Commit: "aaaa", Time: at(1), Passed: 2, Judged: 2},
		{Key: "r2", Commit: "bbbb", Time: at(2), Passed: 2, Judged: 2},
		{Key: "r3", Commit: "cccc", Time: at(3), Passed: 2, Judged: 2},
		{Key: "r4", Commit: "dddd", Time: at(4), Passed: 1, Judged: 2, Failed: 1},
	}, Series: []Series{
		{Figure: "recall@5", Values: []float64{0.7, 0.65, 0.6, 0.4},
			Thresholds: []Threshold{th(0.5, 0.6, nan, nan), NoThreshold, th(0.5, 0.5, nan, nan), th(0.55, 0.55, nan, nan)}},
		{Figure: "ttfr_steps", Values: []float64{3, 4, 6, 5},
			Thresholds: []Threshold{th(nan, nan, 5, 5), th(nan, nan, 5, 5), th(nan, nan, 5, 5), th(nan, nan, 5, 5)}},
		{Figure: "mrr", Config: "mcp", Values: []float64{0.5, nan, 0.6, 0.7}, Low: []float64{0.4, nan, 0.5, 0.6},
			High: []float64{0.6, nan, 0.7, 0.8}, FailedTrials: []int{0, 0, 2, 0}},
	}}
}

func TestTheTrendPageDrawsThresholdsAsStepsAndIntervalsAsBands(t *testing.T) {
	var b strings.Builder
	require.NoError(t, thresholdTrend().WriteHTML(&b, nil))
	page := b.String()
	assert.NotContains(t, page, "<script")

	recall := sectionOf(page, "recall@5")
	assert.Contains(t, recall, "required ≥ 0.55</p>", "the latest threshold in the chart's line")
	assert.Contains(t, recall, ">required ≥ 0.55</text>", "and at the line's right end")
	paths := regexp.MustCompile(`<path class="thr" d="([^"]*)"`).FindAllStringSubmatch(recall, -1)
	require.Len(t, paths, 2, "the lower bounds' two edges: the scenarios of run 1 differ")
	low := paths[0][1]
	assert.Equal(t, 2, strings.Count(low, "M"), "broken where run 2 set no threshold: %s", low)
	assert.Equal(t, 1, strings.Count(low, "V"), "one step, where the threshold rose from 0.50 to 0.55: %s", low)
	assert.Equal(t, 1, strings.Count(recall, `class="thr-band"`), "a band in run 1 only")
	assert.Contains(t, recall, "threshold: recall@5 must be at or above the line")
	assert.Contains(t, recall, "required ≥ 0.50 to 0.60", "a point's title names its run's band")

	ttfr := sectionOf(page, "ttfr_steps")
	assert.Equal(t, 1, strings.Count(ttfr, `<path class="thr"`), "one upper bound, the same in every run")
	assert.NotContains(t, ttfr, " V", "a threshold that never changed has no step")
	assert.Contains(t, ttfr, "threshold: ttfr_steps must be at or below the line")
	assert.Contains(t, ttfr, ">required ≤ 5</text>")
	assert.Equal(t, 0, strings.Count(ttfr, `class="pt failed"`)+strings.Count(recall, `class="pt failed"`)-2,
		"the run with a failed scenario is marked in each scenario chart")

	mrr := sectionOf(page, "mrr · mcp")
	assert.Equal(t, 2, strings.Count(mrr, `<polygon class="ci"`), "the interval breaks where the configuration is missing")
	assert.Equal(t, 1, strings.Count(mrr, `class="pt failed"`), "run 3 of the configuration had failed trials")
	assert.Contains(t, mrr, "2 trial(s) could not be evaluated")
	assert.Contains(t, mrr, "95% interval 0.50 to 0.70")
	assert.NotContains(t, mrr, `class="thr"`)
}

// A chart's axis spans its thresholds: a threshold above every value is
// drawn inside the chart, not beyond its top.
func TestTheTrendChartsAxisSpansItsThresholds(t *testing.T) {
	tr := thresholdTrend()
	tr.Series = []Series{{Figure: "recall@5", Values: []float64{0.2, 0.3, 0.25, 0.3},
		Thresholds: []Threshold{{AtLeast: [2]float64{0.8, 0.8}, AtMost: [2]float64{math.NaN(), math.NaN()}}, NoThreshold, NoThreshold, NoThreshold}}}
	c := tr.chart(tr.Series[0])
	assert.Equal(t, "0.80", c.AxisMax)
	assert.Equal(t, "0.20", c.AxisMin)
	assert.Equal(t, "0.30", c.Max, "the series' own range is still its values'")
	require.Len(t, c.Thresholds, 1)
	assert.Equal(t, "M44.0,14.0 H154.7", c.Thresholds[0].D, "the top of the chart, half a step wide around run 1")
}

// The coordinates of what thresholdTrend draws, worked out by hand: the
// plot spans x 44 to 708 (720 wide, 44 left, 12 right), four runs a step
// of 664/3 = 221.33 apart, so each run's threshold segment spans 110.67
// either side of its point; y spans 14 to 160 (146 high) between the
// axis' extremes, y(v) = 14 + (hi − v) / (hi − lo) × 146.
func TestTheTrendPageDrawsAtTheCoordinatesWorkedOutByHand(t *testing.T) {
	tr := thresholdTrend()

	// recall@5: lo 0.40 (run 4), hi 0.70 (run 1); y(0.5) = 14 + 0.2/0.3 ×
	// 146 = 111.3, y(0.6) = 62.7, y(0.55) = 87.0.
	recall := tr.chart(tr.Series[0])
	require.Len(t, recall.Thresholds, 2)
	assert.Equal(t, "M44.0,111.3 H154.7 M376.0,111.3 H597.3 V87.0 H708.0", recall.Thresholds[0].D, "the lower edge")
	assert.Equal(t, "M44.0,62.7 H154.7 M376.0,111.3 H597.3 V87.0 H708.0", recall.Thresholds[1].D, "the upper edge")
	assert.Equal(t, []rect{{X: 44, Y: 62.7, W: 110.7, H: 48.7}}, recall.Bands)
	assert.Equal(t, []label{{X: 706, Y: 84, Text: "required ≥ 0.55"}}, recall.ThresholdLabels, "3 above the line")
	assert.Equal(t, "≥ 0.55", recall.Required)
	assert.Equal(t, []string{"44.0,14.0 265.3,38.3 486.7,62.7 708.0,160.0"}, recall.Lines)
	assert.Equal(t, "0.70", recall.AxisMax)
	assert.Equal(t, "0.40", recall.AxisMin)
	assert.Equal(t, [3]float64{160, 708, 14}, [3]float64{recall.Bottom, recall.Right, recall.TopLabelY}, "the axis along the bottom, to the right edge")

	// ttfr_steps: lo 3, hi 6; y(5) = 14 + 1/3 × 146 = 62.7; its label is
	// 11 below the line, under an upper bound.
	ttfr := tr.chart(tr.Series[1])
	require.Len(t, ttfr.Thresholds, 1)
	assert.Equal(t, "M44.0,62.7 H154.7 H376.0 H597.3 H708.0", ttfr.Thresholds[0].D)
	assert.Empty(t, ttfr.Bands)
	assert.Equal(t, []label{{X: 706, Y: 73.7, Text: "required ≤ 5"}}, ttfr.ThresholdLabels)
	assert.Equal(t, "≤ 5", ttfr.Required)

	// mrr · mcp: lo 0.40 (run 1's interval), hi 0.80 (run 4's); y(0.6) =
	// 87, y(0.4) = 160, y(0.7) = 50.5, y(0.8) = 14, y(0.5) = 123.5. Run 1
	// stands alone: a bar 3 either side of it.
	mrr := tr.chart(tr.Series[2])
	assert.Equal(t, []string{"41.0,87.0 47.0,87.0 47.0,160.0 41.0,160.0", "486.7,50.5 708.0,14.0 708.0,87.0 486.7,123.5"}, mrr.Intervals)
	assert.Equal(t, []string{"44.0,123.5", "486.7,87.0 708.0,50.5"}, mrr.Lines)
	assert.Equal(t, "0.80", mrr.AxisMax)
	assert.Equal(t, "0.40", mrr.AxisMin)
	assert.Empty(t, mrr.Required)
	require.Len(t, mrr.Points, 3)
	assert.Equal(t, chartPoint{X: 486.7, Y: 87, Failed: true,
		Title: "mrr · mcp: 0.60 (95% interval 0.50 to 0.70), 2 trial(s) could not be evaluated, run r3, commit cccc, 2026-11-03 09:00"}, mrr.Points[1])
	assert.False(t, mrr.Points[2].Failed)
}

// A threshold on both sides of a figure, the same in its only run: one
// line each, centred on the point, 12 either side of a chart of one run.
func TestAChartOfOneRunDrawsBothSidesOfARange(t *testing.T) {
	tr := &Trend{Branch: "main", Points: []Point{{Key: "r1", Time: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}}, Series: []Series{
		{Figure: "mrr", Values: []float64{0.5}, Thresholds: []Threshold{{AtLeast: [2]float64{0.2, 0.2}, AtMost: [2]float64{0.9, 0.9}}}},
	}}
	c := tr.chart(tr.Series[0])
	// lo 0.2, hi 0.9: y(0.2) = 160, y(0.9) = 14; the point's x is 44, so
	// the segment is cut at the left edge.
	require.Len(t, c.Thresholds, 2)
	assert.Equal(t, "M44.0,160.0 H56.0", c.Thresholds[0].D)
	assert.Equal(t, "M44.0,14.0 H56.0", c.Thresholds[1].D)
	assert.Contains(t, c.Thresholds[1].Title, "at or below")
	assert.Equal(t, "≥ 0.20 and ≤ 0.90", c.Required)
	assert.Equal(t, []label{{X: 706, Y: 157, Text: "required ≥ 0.20"}, {X: 706, Y: 25, Text: "required ≤ 0.90"}}, c.ThresholdLabels)
	assert.Contains(t, c.Points[0].Title, "required ≥ 0.20 and ≤ 0.90")
}

func TestRequiredTextNamesEachSideAndABand(t *testing.T) {
	show := func(v float64) string { return figure("recall@5", v) }
	nan := math.NaN()
	for _, tc := range []struct {
		th   Threshold
		want string
	}{
		{Threshold{AtLeast: [2]float64{0.5, 0.5}, AtMost: [2]float64{nan, nan}}, "≥ 0.50"},
		{Threshold{AtLeast: [2]float64{0.4, 0.6}, AtMost: [2]float64{nan, nan}}, "≥ 0.40 to 0.60"},
		{Threshold{AtLeast: [2]float64{nan, nan}, AtMost: [2]float64{0.7, 0.8}}, "≤ 0.70 to 0.80"},
		{NoThreshold, ""},
	} {
		assert.Equal(t, tc.want, requiredText(tc.th, show))
	}
	assert.Equal(t, NoThreshold.AtLeast[0] != NoThreshold.AtLeast[0], true)
	assert.False(t, latestThreshold([]Threshold{NoThreshold, NoThreshold}).Has())
	latest := latestThreshold([]Threshold{{AtLeast: [2]float64{0.1, 0.1}, AtMost: [2]float64{nan, nan}}, NoThreshold})
	assert.Equal(t, [2]float64{0.1, 0.1}, latest.AtLeast, "the latest run that set one")
}

// A flat series is drawn across the middle of its chart (y 14 + 146/2 =
// 87), and a run without the figure before the first that has it starts
// no line.
func TestAFlatSeriesIsDrawnAcrossTheMiddle(t *testing.T) {
	tr := thresholdTrend()
	c := tr.chart(Series{Figure: "mrr", Values: []float64{math.NaN(), 0.5, 0.5, 0.5}})
	assert.Equal(t, []string{"265.3,87.0 486.7,87.0 708.0,87.0"}, c.Lines)
	trailing := tr.chart(Series{Figure: "mrr", Values: []float64{0.5, 0.5, math.NaN(), math.NaN()}})
	assert.Equal(t, []string{"44.0,87.0 265.3,87.0"}, trailing.Lines, "nor does a gap after the last")
	require.Len(t, c.Points, 3)
	assert.Equal(t, 87.0, c.Points[0].Y)
	assert.Equal(t, "0.50", c.AxisMin)
	assert.Equal(t, "0.50", c.AxisMax)
}
