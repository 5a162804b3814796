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
