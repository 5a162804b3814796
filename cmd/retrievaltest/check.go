package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/internal/progress"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/retrievaltest"
)

const checkUsage = `Usage: retrievaltest check [flags] PATH...

Runs scenario files and reports whether every expectation holds. A PATH is a
scenario file or a folder, searched recursively for *.yaml and *.yml files
(folders named testdata, vendor or starting with "." are skipped unless
given directly).

The report (markdown by default) has the index-effectiveness table, a
retrieval table and every expectation with its measured value, threshold
and evidence. When GITHUB_STEP_SUMMARY is set the markdown report is also
appended to that file. Progress goes to standard error.

Exit status: 0 when every expectation holds (flaky ones are reported only),
1 when one fails or a figure regressed past -max-regression against
-baseline, 2 on bad input (a scenario that does not load, a trace that
cannot be read, bad flags).

Flags:
`

func runCheck(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("check", checkUsage, stderr)
	var (
		outFile    = fs.String("o", "", "write the report to `FILE` (atomically) instead of standard output")
		format     = fs.String("format", "md", "report format: "+strings.Join(report.CheckFormats, ", "))
		baseline   = fs.String("baseline", "", "compare figures with the baseline `FILE`")
		maxReg     = fs.Float64("max-regression", 0, "largest change for the worse allowed against the baseline, in each figure's own units")
		update     = fs.Bool("update-baseline", false, "write this run's figures to the -baseline file (atomically)")
		jobs       = fs.Int("j", runtime.GOMAXPROCS(0), "scenarios evaluated in parallel")
		runPattern = fs.String("run", "", "run only the scenarios whose name matches the regular expression `EXPR`")
		columns    = fs.String("metrics", strings.Join(report.DefaultRetrievalMetrics, ","), "retrieval table columns, comma-separated metric names")
		target     = fs.Float64("target", report.DefaultSemanticTarget, "aggregate semantic-ratio target of the index-effectiveness table, in [0, 1]")
		htmlFile   = fs.String("html", "", "also write a self-contained HTML report, with a timeline of each run's calls, to `FILE` (atomically)")
	)
	maxInput := addMaxInputFlag(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	defer maxInput.apply()()
	fail := failer("check", stderr)
	switch {
	case fs.NArg() == 0:
		fs.Usage()
		return fail("no scenario file or folder given")
	case !slices.Contains(report.CheckFormats, *format):
		return fail("-format %q: expected one of %s", *format, strings.Join(report.CheckFormats, ", "))
	case *update && *baseline == "":
		return fail("-update-baseline needs -baseline FILE")
	case *jobs < 1:
		return fail("-j %d: expected 1 or more", *jobs)
	case *maxReg < 0:
		return fail("-max-regression %v: expected 0 or more", *maxReg)
	case *target < 0 || *target > 1:
		return fail("-target %v: expected a ratio in [0, 1]", *target)
	}
	var filter *regexp.Regexp
	if *runPattern != "" {
		var err error
		if filter, err = regexp.Compile(*runPattern); err != nil {
			return fail("-run: %v", err)
		}
	}
	opts := report.CheckOptions{Metrics: splitList(*columns), Target: *target, MaxRegression: *maxReg}
	for _, m := range opts.Metrics {
		if _, ok := metrics.Define(m); !ok {
			return fail("-metrics: %s", metrics.UnknownMetricError(m))
		}
	}

	files, err := retrievaltest.FindScenarios(fs.Args()...)
	if err != nil {
		return fail("%v", err)
	}
	scenarios, loadErrs := retrievaltest.LoadAll(files, retrievaltest.Options{MaxInputSize: int64(*maxInput)})
	for _, e := range loadErrs {
		fmt.Fprintln(stderr, e)
	}
	if len(loadErrs) > 0 {
		return fail("%d scenario file(s) did not load", len(files)-len(scenarios))
	}
	if filter != nil {
		scenarios = slices.DeleteFunc(scenarios, func(s *expectations.Scenario) bool { return !filter.MatchString(s.Name) })
	}
	if len(scenarios) == 0 {
		return fail("no scenario to run in %s", strings.Join(fs.Args(), ", "))
	}
	if *baseline != "" && !*update {
		if opts.Baseline, err = report.ReadBaseline(*baseline); err != nil {
			return fail("%v", err)
		}
	}

	prog := progress.New(stderr, "check", len(scenarios))
	results, evalErrs := retrievaltest.EvaluateAll(ctx, scenarios, retrievaltest.Options{Jobs: *jobs, MaxInputSize: int64(*maxInput),
		Progress: func(s *expectations.Scenario, res *expectations.ScenarioResult, err error) {
			status := "pass"
			if err != nil {
				status = "error"
			} else if res.Failed() {
				status = "FAIL"
			}
			prog.Done(s.Name, status, status != "pass")
		}})
	prog.Finish()
	for _, e := range evalErrs {
		fmt.Fprintf(stderr, "retrievaltest check: %v\n", e)
	}
	if len(evalErrs) > 0 {
		return exitBadInput
	}

	c := report.NewCheck(results)
	var md, out bytes.Buffer
	if err := c.WriteMarkdown(&md, opts); err != nil {
		return fail("%v", err)
	}
	if err := c.Write(&out, *format, opts); err != nil {
		return fail("%v", err)
	}
	if *outFile != "" {
		err = atomicfile.WriteBytes(*outFile, out.Bytes())
	} else {
		_, err = stdout.Write(out.Bytes())
	}
	if err != nil {
		return fail("%v", err)
	}
	if *htmlFile != "" {
		if err := htmlreport.WriteFile(*htmlFile, func(w io.Writer) error { return htmlreport.WriteCheck(w, results) }); err != nil {
			return fail("%v", err)
		}
	}
	if err := report.AppendGitHubStepSummary(md.Bytes()); err != nil {
		return fail("%v", err)
	}
	if *update {
		if err := report.WriteBaseline(*baseline, c.Figures); err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(stderr, "retrievaltest check: baseline written to %s\n", *baseline)
	}

	failed, regs := c.Failed(), c.Regressions(opts)
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "retrievaltest check: FAIL: %s\n", strings.Join(failed, ", "))
	}
	if len(regs) > 0 {
		fmt.Fprintf(stderr, "retrievaltest check: %d figure(s) regressed past %v against %s\n", len(regs), *maxReg, *baseline)
	}
	if len(failed) > 0 || len(regs) > 0 {
		return exitFailed
	}
	return exitOK
}
