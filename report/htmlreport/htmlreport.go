package htmlreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/runs"
)

var (
	//go:embed assets/report.html.tmpl
	pageTemplate string
	//go:embed assets/report.css
	pageCSS string
	//go:embed assets/report.js
	pageJS string

	// tmpl is parsed when a report is first rendered, not when the
	// program starts: most commands write none.
	tmpl = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("report").Parse(pageTemplate))
	})
)

// ContentSecurityPolicy is the policy every report declares: nothing is
// loaded from anywhere, and the only style and script that apply are the
// report's own, named by their SHA-256. Even text that escaped its context
// could neither run a script nor fetch a URL. The digests are computed when
// the assets change (csp_generated.go), not each time the program starts.
var ContentSecurityPolicy = "default-src 'none'; img-src data:; style-src '" + pageCSSHash + "'; script-src '" + pageJSHash + "'; base-uri 'none'; form-action 'none'"

// page is what the template renders: one of Scenarios, Traces or Run.
type page struct {
	Title, Subtitle string
	Verdict         *verdict
	CSP             string
	CSS             template.CSS
	JS              template.JS
	Scenarios       []scenarioView
	Failures        []failureView
	Summary         *summaryView
	Traces          []traceView
	Run             *runView
	// Skip is the link that comes first on the page, past the header to
	// what a reader came for.
	Skip *skipLink
}

type skipLink struct{ Href, Text string }

func render(w io.Writer, p *page) error {
	p.CSP, p.CSS, p.JS = ContentSecurityPolicy, template.CSS(pageCSS), template.JS(pageJS)
	// The page is rendered whole before anything is written, so that a
	// failure leaves no half page behind.
	var b bytes.Buffer
	if err := tmpl().ExecuteTemplate(&b, "page", p); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteCheck writes the report of evaluated scenarios (the check
// command's): the overall verdict, then for each scenario its verdict, its
// expectations with measured value, threshold and evidence, and the
// timeline and calls of each of its runs. Each of bad, a scenario that
// could not be checked, comes first with an ERROR verdict and its problems
// at their file:line:col.
func WriteCheck(w io.Writer, results []*expectations.ScenarioResult, bad ...*expectations.ScenarioError) error {
	p := &page{Title: "Retrieval check"}
	for i, e := range bad {
		p.Scenarios = append(p.Scenarios, newErrorView(i, e))
	}
	for i, r := range results {
		p.Scenarios = append(p.Scenarios, newScenarioView(len(bad)+i, r))
	}
	v := checkVerdict(p.Scenarios)
	p.Verdict = &v
	p.Failures = failuresOf(p.Scenarios)
	p.Summary = newSummary(results, p.Scenarios[len(bad):])
	switch {
	case len(p.Failures) > 0:
		p.Skip = &skipLink{"failures", "Skip to the failures"}
	case len(p.Scenarios) > 0:
		p.Skip = &skipLink{p.Scenarios[0].ID, "Skip to the scenarios"}
	}
	return render(w, p)
}

// WriteTraces writes the report of measured traces without expectations
// (the view command's): for each, its figures, its timeline and its calls.
func WriteTraces(w io.Writer, measured []*expectations.Run) error {
	p := &page{Title: "Retrieval trace view"}
	var names []string
	for i, r := range measured {
		tv := newTraceView(fmt.Sprintf("t%d", i+1), r)
		p.Traces = append(p.Traces, tv)
		names = append(names, tv.Name)
	}
	p.Subtitle = strings.Join(names, ", ")
	if len(p.Traces) > 0 {
		p.Skip = &skipLink{p.Traces[0].ID + "-calls", "Skip to the calls"}
		if len(p.Traces[0].Calls) == 0 {
			p.Skip.Href = p.Traces[0].ID
		}
	}
	return render(w, p)
}

// RunReportFile is the name of the HTML report the run-dir command writes
// beside run_retrieval_summary.json.
const RunReportFile = "report.html"

// RunOptions control WriteRun.
type RunOptions struct {
	// Dir is the folder the summary's artifact paths are relative to
	// (the folder of run_retrieval_summary.json); the coverage curves
	// are drawn from the retrieval-events documents there. Empty: no
	// curves.
	Dir string
	// Metrics are the rows of each configuration's metric table and of the
	// comparison; nil means DefaultRunMetrics.
	Metrics []string
	// Baseline and Candidate name the configurations to compare; empty
	// ones are picked as runs.PickConfigs picks them.
	Baseline, Candidate string
}

// WriteRun writes the report of an evaluated run folder (runs.Summary):
// per configuration its counts, the statistics of each metric over tasks
// and the task table; the paired comparison of two configurations with
// each CI drawn against zero; and the coverage-over-calls curve of every
// configuration.
//
// The page but its task tables is rendered first; the tables' rows are
// then written one at a time, from the entries the summary holds or, for
// a summary returned without them (runs.Options.SummaryWithoutEntries),
// read back one at a time from its file: the page of a run of any size
// is written without holding its rows. An entry that cannot be read
// leaves w with part of the page; WriteFile puts nothing in place then.
func WriteRun(w io.Writer, s *runs.Summary, opts RunOptions) error {
	rv := newRunView(s, opts)
	title := "Retrieval report"
	if s.RunID != "" {
		title += ": " + clean(s.RunID)
	}
	var b bytes.Buffer
	if err := render(&b, &page{Title: title, Run: &rv}); err != nil {
		return err
	}
	metricsList := opts.Metrics
	if metricsList == nil {
		metricsList = DefaultRunMetrics
	}
	return writeRows(w, b.Bytes(), s, rv.Configs, metricsList)
}

// WriteFile writes a report to path atomically (a temporary file in the
// same folder, renamed over path), so that a reader never sees half a
// report.
func WriteFile(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, write)
}
