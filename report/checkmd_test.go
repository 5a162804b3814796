package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
)

func pos(file string, line int) expectations.Pos {
	return expectations.Pos{File: file, Line: line, Col: 5}
}

// sampleCheck is a check of two passing scenarios, a failing one, a
// flaky one, a scenario whose trace could not be read and a file that
// did not load.
func sampleCheck() *Check {
	results := []*expectations.ScenarioResult{
		{Name: "add-service", File: "scenarios/add-service.yaml", Runs: []*expectations.Run{measuredRun(0.72, 2, "direct")}, Results: []*expectations.Result{
			{Type: "index_usage", Status: expectations.Pass, Measured: "semantic ratio = 0.72", Threshold: "≥ 0.70", Pos: pos("scenarios/add-service.yaml", 9)},
			{Type: "compiles", Status: expectations.Skipped, Measured: "n/a", Message: "needs a live run", Pos: pos("scenarios/add-service.yaml", 12)},
		}},
		{Name: "fix-bug", File: "scenarios/fix-bug.yaml", Runs: []*expectations.Run{measuredRun(0.2, 9, "fishing")}, Results: []*expectations.Result{
			{Type: "retrieval", Status: expectations.Fail, Measured: "recall@5 = 0.00", Threshold: "≥ 1.00",
				Message: "recall@5 measured 0.00, required ≥ 1.00 (relevant: pkg/auth/token.go not surfaced)", Pos: pos("scenarios/fix-bug.yaml", 7)},
			{Type: "index_usage", Status: expectations.Fail, Measured: "steps to target = n/a", Threshold: "≤ 3",
				Evidence: []string{"steps to target is n/a: no call touched a ground-truth file"},
				Message:  "steps to target has no figure (no call touched a ground-truth file), required ≤ 3", Pos: pos("scenarios/fix-bug.yaml", 10)},
			{Type: "patterns", Status: expectations.Pass, Measured: "guessing = none", Threshold: "none", Pos: pos("scenarios/fix-bug.yaml", 13)},
		}},
		{Name: "rename-flag", File: "scenarios/rename-flag.yaml", Runs: []*expectations.Run{measuredRun(0.5, 3)}, Results: []*expectations.Result{
			{Type: "index_usage", Status: expectations.Fail, Flaky: true, Measured: "semantic ratio = 0.50", Threshold: "≥ 0.60",
				Message: "semantic ratio measured 0.50, required ≥ 0.60", Pos: pos("scenarios/rename-flag.yaml", 6)},
		}},
		{Name: "search-read-edit", File: "scenarios/search-read-edit.yaml", Runs: []*expectations.Run{measuredRun(1, 1, "direct")}, Results: []*expectations.Result{
			{Type: "retrieval", Status: expectations.Pass, Measured: "ndcg@3 = 0.97", Threshold: "≥ 0.95", Pos: pos("scenarios/search-read-edit.yaml", 11)},
		}},
	}
	bad := []*expectations.ScenarioError{
		expectations.NewScenarioError("scenarios/typo.yaml", "", expectations.Errors{
			{File: "scenarios/typo.yaml", Line: 6, Col: 5, Msg: `unknown key "min_aura_tool_raito" in index_usage; did you mean min_aura_tool_ratio?`},
			{File: "scenarios/typo.yaml", Line: 8, Col: 5, Msg: `unknown metric "recal@5" in retrieval; did you mean recall@5?`},
		}),
		expectations.NewScenarioError("scenarios/broken-trace.yaml", "broken-trace",
			&yamlerr.Error{File: "scenarios/broken-trace.yaml", Line: 2, Col: 8, Msg: "trace runs/notes.txt: not a known trace format; the input is text starting \"hello\""}),
	}
	return NewCheck(results, bad...)
}

func checkMarkdown(t *testing.T, c *Check, opts CheckOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, c.WriteMarkdown(&b, opts))
	return b.Bytes()
}

// The report puts the verdict and the failures first, scenarios that
// could not be checked at the top of them, and collapses the rest.
func TestCheckMarkdownGolden(t *testing.T) {
	t.Parallel()
	md := checkMarkdown(t, sampleCheck(), CheckOptions{})
	golden(t, "check.md", md)
	s := string(md)
	failures, index, collapsed := strings.Index(s, "## Failures"), strings.Index(s, "## Index effectiveness"), strings.Index(s, "<details>")
	assert.True(t, 0 < failures && failures < index && index < collapsed, "failures, then the tables, then the collapsed expectations")
	assert.Contains(t, s, "**FAIL:** 3 of 6 scenarios passed; 2 could not be checked (bad input); 1 failed.")
}

func TestCheckMarkdownOnlyFailuresGolden(t *testing.T) {
	t.Parallel()
	md := checkMarkdown(t, sampleCheck(), CheckOptions{OnlyFailures: true})
	golden(t, "check-only-failures.md", md)
	assert.NotContains(t, string(md), "search-read-edit", "a passing scenario is left out of every table")
	assert.Contains(t, string(md), "3 passing scenario(s) left out (-only-failures).")
	assert.Contains(t, string(md), "| rename-flag | index_usage | semantic ratio = 0.50 | ≥ 0.60 | flaky |", "a flaky failure is still shown")
}

// A report cut for the step summary keeps whole lines, closes the
// <details> it cut into and says where the full report is.
func TestStepSummaryCutGolden(t *testing.T) {
	t.Parallel()
	md := checkMarkdown(t, sampleCheck(), CheckOptions{})
	cut := FitStepSummary(md, 2500, "in report.md (the -o file)")
	golden(t, "check-step-summary.md", cut)
	assert.LessOrEqual(t, len(cut), 2500)
	assert.Contains(t, string(cut), "the full report is in report.md (the -o file).")
	assert.Equal(t, md, FitStepSummary(md, len(md), "x"), "a report that fits is left as it is")
}

// Two hundred scenarios, twenty of them failing with long evidence, make a
// report far over GitHub's limit; its step summary stays within 65,536
// characters and keeps every failing row whole.
func TestStepSummaryOf200ScenariosKeepsTheFailingRows(t *testing.T) {
	t.Parallel()
	c := bigCheck()
	md := checkMarkdown(t, c, CheckOptions{})
	require.Greater(t, utf8.RuneCount(md), StepSummaryLimit, "the test needs a report over the limit")

	summary := FitStepSummary(md, StepSummaryLimit, "in report.md")
	assert.LessOrEqual(t, utf8.RuneCount(summary), StepSummaryLimit)
	failing := tableRowsAfter(string(md), "## Failures")
	require.Len(t, failing, 20)
	for _, row := range failing {
		assert.Contains(t, string(summary), row+"\n", "a failing row is kept whole")
	}
	assert.Contains(t, string(summary), "**The report was cut to fit the step summary**")
	assert.Equal(t, strings.Count(string(summary), "<details>"), strings.Count(string(summary), "</details>"))
}

// Publish writes the whole report to the -o file and a step summary cut
// to the limit that says so.
func TestPublishCutsTheStepSummaryAndNamesTheFullReport(t *testing.T) {
	dir := t.TempDir()
	summary, full := dir+"/summary.md", dir+"/report.md"
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	var annotations strings.Builder
	require.NoError(t, bigCheck().Publish(CheckOutput{Format: "md", File: full, Annotations: &annotations}, CheckOptions{}))
	fullData, err := readFile(full)
	require.NoError(t, err)
	sumData, err := readFile(summary)
	require.NoError(t, err)
	assert.Greater(t, len(fullData), StepSummaryLimit, "the -o file has the whole report")
	assert.LessOrEqual(t, utf8.RuneCountInString(sumData), StepSummaryLimit)
	assert.Contains(t, sumData, "the full report is in "+full+" (the -o file; upload it as an artifact to keep it).")
	assert.Equal(t, 20, strings.Count(annotations.String(), "::error "), "one annotation per failure")
}

// bigCheck is 200 scenarios of six expectations with long evidence, every
// tenth failing one.
func bigCheck() *Check {
	var results []*expectations.ScenarioResult
	for i := range 200 {
		name := fmt.Sprintf("scenario-%03d-%s", i, strings.Repeat("x", 40))
		file := "scenarios/" + name + ".yaml"
		res := &expectations.ScenarioResult{Name: name, File: file, Runs: []*expectations.Run{measuredRun(0.5, 4, "fishing")}}
		var evidence []string
		for s := range 30 {
			evidence = append(evidence, fmt.Sprintf("fishing at steps %d–%d: a run of 5 file-level calls with no semantic call between them", s*5+1, s*5+5))
		}
		for e := range 6 {
			r := &expectations.Result{Type: "index_usage", Status: expectations.Pass, Measured: "semantic ratio = 0.50", Threshold: "≥ 0.40",
				Evidence: evidence, Message: "semantic ratio 0.50, required ≥ 0.40", Pos: pos(file, 5+3*e)}
			if i%10 == 0 && e == 0 {
				r.Status, r.Threshold, r.Message = expectations.Fail, "≥ 0.60", "semantic ratio measured 0.50, required ≥ 0.60"
			}
			res.Results = append(res.Results, r)
		}
		results = append(results, res)
	}
	return NewCheck(results)
}

func tableRowsAfter(md, heading string) []string {
	_, after, _ := strings.Cut(md, heading+"\n\n")
	var rows []string
	for i, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i >= 2 {
			rows = append(rows, line)
		}
	}
	return rows
}

// A long cell is cut in the table; the JSON report keeps the whole text.
func TestLongCellsAreCutInTheTableOnly(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("guessing at step 4: grep searched text for an identifier; ", 30)
	c := NewCheck([]*expectations.ScenarioResult{{Name: "s", Results: []*expectations.Result{
		{Type: "patterns", Status: expectations.Fail, Measured: "guessing = 30 occurrences", Threshold: "none", Evidence: []string{long}, Message: "guessing measured 30 occurrences"},
	}}})
	md := string(checkMarkdown(t, c, CheckOptions{}))
	row := tableRowsAfter(md, "## Failures")[0]
	assert.Less(t, utf8.RuneCountInString(row), maxEvidenceCell+200)
	assert.Contains(t, row, "…")
	var js bytes.Buffer
	require.NoError(t, c.WriteJSON(&js, CheckOptions{}))
	assert.Contains(t, js.String(), strings.TrimSpace(long))
}

// Without padding, a row is as long as its cells.
func TestTablesAreNotPadded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	require.NoError(t, writeTable(&b, []string{"A", "B"}, [][]string{{"x", strings.Repeat("y", 300)}, {"z", "w"}}))
	assert.Equal(t, "| A | B |\n|:--|:--|\n| x | "+strings.Repeat("y", 300)+" |\n| z | w |\n", b.String())
}

func TestTableRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header []string
		rows   [][]string
		want   string
	}{
		{"an empty cell is one space, so that it does not close on its bar", []string{"A", "B"}, [][]string{{"", "b"}},
			"| A | B |\n|:--|:--|\n|   | b |\n"},
		{"a short row gets empty cells", []string{"A", "B", "C"}, [][]string{{"a"}},
			"| A | B | C |\n|:--|:--|:--|\n| a |   |   |\n"},
		{"cells keep their spaces and markup", []string{"A"}, [][]string{{"  x  "}, {"**ERROR**"}, {`a\|b<br>c`}},
			"| A |\n|:--|\n|   x   |\n| **ERROR** |\n| a\\|b<br>c |\n"},
		{"a table without rows is its header", []string{"Δ", "≥"}, nil, "| Δ | ≥ |\n|:--|:--|\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			require.NoError(t, writeTable(&b, tt.header, tt.rows))
			assert.Equal(t, tt.want, b.String())
		})
	}
}

func TestGitHubAnnotationsPointAtTheExpectation(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	require.NoError(t, WriteGitHubAnnotations(&b, sampleCheck().Expectations))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 4, "two failures and two scenarios that could not be checked; no pass, skip or flaky failure:\n%s", b.String())
	assert.Equal(t, "::error file=scenarios/broken-trace.yaml,line=2,col=8,title=broken-trace%3A input%3A a trace cannot be read::"+
		`scenarios/broken-trace.yaml:2:8: trace runs/notes.txt: not a known trace format; the input is text starting "hello"`, lines[0])
	assert.Equal(t, "::error file=scenarios/fix-bug.yaml,line=7,col=5,title=fix-bug%3A retrieval::recall@5 measured 0.00, required ≥ 1.00 (relevant: pkg/auth/token.go not surfaced)", lines[1])
	assert.Contains(t, lines[3], "scenarios/typo.yaml:6:5: unknown key", "every problem of a file, in one message")
	assert.Contains(t, lines[3], "%0Ascenarios/typo.yaml:8:5", "the line break between problems is escaped")
}

func TestWorkflowCommandEscaping(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, data, property string }{
		{"percent first, so escapes are not escaped again", "100%", "100%25", "100%25"},
		{"line breaks", "a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"colons and commas only in properties", "a: b, c", "a: b, c", "a%3A b%2C c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.data, escapeData(tt.in))
			assert.Equal(t, tt.property, escapeProperty(tt.in))
		})
	}
}

func TestAnnotationPositions(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"file=a.yaml", "line=3", "col=5"}, annotationPos("a.yaml:3:5"))
	assert.Equal(t, []string{"file=C%3A\\s\\a.yaml", "line=3", "col=5"}, annotationPos(`C:\s\a.yaml:3:5`))
	assert.Equal(t, []string{"file=a.yaml"}, annotationPos("a.yaml"))
	assert.Nil(t, annotationPos(""))
}

func TestParseTolerances(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     map[string]float64 // figure name → tolerance
		err      string
	}{
		{"the defaults by kind", "", map[string]float64{"recall@5": 0.05, "steps_to_target": 2, "ttfr_seconds": 30, "ttfr_tokens": 2000, "total_calls": 2, "semantic_ratio": 0.05}, ""},
		{"a kind keeps the other defaults", "ratio=0.1", map[string]float64{"recall@5": 0.1, "steps_to_target": 2}, ""},
		{"a name wins over its kind", "ratio=0.1,recall@5=0.3", map[string]float64{"recall@5": 0.3, "recall@3": 0.1, "read.recall@5": 0.1}, ""},
		{"one number is every figure's, in its units", "0.5", map[string]float64{"recall@5": 0.5, "steps_to_target": 0.5}, ""},
		{"one number of 1 or more is an error", "1", nil, "give it by kind"},
		{"an unknown name suggests one", "recal@5=0.1", nil, "did you mean recall@5?"},
		{"a figure that never regresses", "num_ret=1", nil, "never regresses"},
		{"a negative tolerance", "steps=-1", nil, "not a number of 0 or more"},
		{"no equals sign", "steps", nil, "expected KIND=DELTA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tol, err := ParseTolerances(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			for name, want := range tt.want {
				assert.InDelta(t, want, tol.For(name), 1e-12, name)
			}
		})
	}
}

// Each figure's change is in one unit, in the tables and in the list of
// regressions: percentage points for a percentage.
func TestDeltasReadInOneUnit(t *testing.T) {
	t.Parallel()
	base, cur := NewBaseline("scenario"), NewBaseline("scenario")
	base.Set("s", "semantic_ratio", 0.75)
	cur.Set("s", "semantic_ratio", 0.25)
	regs := RegressionsWithin(*base, *cur, NewTolerances())
	require.Len(t, regs, 1)
	assert.Equal(t, "s semantic_ratio: 75.0% → 25.0% (-50.0 pp, allowed 5.0 pp; higher is better)", regs[0].String())
	var b strings.Builder
	ratio := 0.25
	require.NoError(t, WriteIndexTable(&b, []IndexRow{{Scenario: "s", SemanticRatio: &ratio}}, IndexOptions{Baseline: base, Tolerances: NewTolerances()}))
	assert.Contains(t, b.String(), "25.0% **(-50.0 pp) ▼**")
}

// With the main report on standard output in another format, the step
// summary names the markdown file among the further reports.
func TestPublishWritesEveryReportFileAndNamesTheMarkdownOne(t *testing.T) {
	dir := t.TempDir()
	summary, md, js := dir+"/summary.md", dir+"/report.md", dir+"/report.json"
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	var stdout strings.Builder
	require.NoError(t, bigCheck().Publish(CheckOutput{Format: "junit", Stdout: &stdout,
		Files: []ReportFile{{Format: "md", File: md}, {Format: "json", File: js}}}, CheckOptions{}))
	assert.True(t, strings.HasPrefix(stdout.String(), "<?xml"), "the main report is JUnit")
	mdData, err := readFile(md)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(mdData, "# Retrieval check"))
	jsData, err := readFile(js)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(jsData, "{"))
	sumData, err := readFile(summary)
	require.NoError(t, err)
	assert.Contains(t, sumData, "the full report is in "+md+" (upload it as an artifact to keep it).")
}
