package htmlreport_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/retrievaltest"
	"github.com/agentretrieval/agentretrieval/runs"
)

// A trace view: load a trace with its ground truth and write the report
// of its calls to a file.
func Example() {
	measured, err := htmlreport.Load([]string{"testdata/session-expiry.toolcalls.json"},
		htmlreport.LoadOptions{GroundTruth: "testdata/session-expiry.groundtruth.json"})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "htmlreport-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "view.html")
	if err := htmlreport.WriteFile(out, func(w io.Writer) error { return htmlreport.WriteTraces(w, measured) }); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(measured), "trace,", len(measured[0].Session.Calls), "calls on its timeline")
	// Output: 1 trace, 18 calls on its timeline
}

// The report of evaluated scenarios, as check -html writes it.
func ExampleWriteCheck() {
	files, err := retrievaltest.FindScenarios("testdata/session-expiry.yaml")
	if err != nil {
		log.Fatal(err)
	}
	scenarios, errs := retrievaltest.LoadAll(files, retrievaltest.Options{})
	if len(errs) > 0 {
		log.Fatal(errs)
	}
	results, errs := retrievaltest.EvaluateAll(context.Background(), scenarios, retrievaltest.Options{KeepResults: htmlreport.ShownResult})
	if len(errs) > 0 {
		log.Fatal(errs)
	}
	var page strings.Builder
	if err := htmlreport.WriteCheck(&page, results); err != nil {
		log.Fatal(err)
	}
	// The failures come first, in their own table, then again in their
	// scenario's.
	failures, scenario, _ := strings.Cut(page.String(), `<section class="scenario"`)
	fmt.Println(strings.Count(failures, `<tr class="v-fail">`), "failures first,",
		strings.Count(scenario, `<tr class="v-fail">`), "failed expectations in the scenario,",
		strings.Count(scenario, `<rect class="call `), "calls on the timeline")
	// Output: 2 failures first, 2 failed expectations in the scenario, 18 calls on the timeline
}

// The report of a run folder evaluated by runs.Evaluate, as run-dir
// writes it beside the summary.
func ExampleWriteRun() {
	out, err := os.MkdirTemp("", "htmlreport-run")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	summary, err := runs.Evaluate(context.Background(), "../../testdata/runs/mini", runs.Options{GroundTruthRoot: "../../testdata/runs/gt", Out: out})
	if err != nil {
		log.Fatal(err)
	}
	var page strings.Builder
	if err := htmlreport.WriteRun(&page, summary, htmlreport.RunOptions{Dir: out}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(summary.Configs), "configurations,", strings.Count(page.String(), "<polyline"), "coverage curves")
	// Output: 2 configurations, 2 coverage curves
}
