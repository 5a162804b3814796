package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/historycmd"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/progress"
	"github.com/agentretrieval/agentretrieval/collect"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/scenariorun"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

func runCheck(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("check", help("check"), stderr)
	outputs := cli.AddReportFlags(fs)
	var (
		baseline   = fs.String("baseline", "", "compare figures with the baseline `FILE`")
		maxReg     = fs.String("max-regression", "", "changes for the worse allowed against -baseline, as `TOLERANCES` such as ratio=0.05,steps=2 (see above)")
		writeBase  = fs.String("write-baseline", "", "write this run's figures to the baseline `FILE` (atomically)")
		update     = fs.Bool("update-baseline", false, "deprecated: -write-baseline with the -baseline file")
		jobs       = fs.Int("j", runtime.GOMAXPROCS(0), "scenario files loaded, and traces read and judged, in parallel")
		runPattern = fs.String("run", "", "run only the scenarios whose name matches the regular expression `EXPR`")
		columns    = fs.String("metrics", strings.Join(report.DefaultRetrievalMetrics, ","), "retrieval table columns, comma-separated metric names")
		target     = fs.Float64("target", -1, "aggregate semantic-ratio target of the index-effectiveness table, in [0, 1] (default: none)")
		only       = fs.Bool("only-failures", false, "leave passing scenarios out of the markdown report (default: collapsed)")
		cwd        = fs.String("cwd", "", "working `DIR` of the agent for the scenarios that set no cwd: absolute paths below it are made relative to it (default: from each trace)")
		annotate   = fs.Bool("annotations", os.Getenv("GITHUB_ACTIONS") == "true", "also write a GitHub annotation of each failure to standard error (default: true under GitHub Actions)")
	)
	maxInput := cli.AddMaxInput(fs)
	hist := historycmd.AddFlags(fs)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	defer maxInput.Apply()()
	fail := failer("check", stderr)
	tol, err := report.ParseTolerances(*maxReg)
	format, reports, htmlFile, outErr := outputs.Reports(*writeBase)
	switch {
	case fs.NArg() == 0:
		fs.Usage()
		return fail("no scenario file or folder given")
	case outErr != nil:
		return fail("%v", outErr)
	case *update && *baseline == "":
		return fail("-update-baseline needs -baseline FILE (or use -write-baseline FILE)")
	case *update && historycmd.IsRef(*baseline):
		return fail("-update-baseline writes a file, and -baseline %s names a run of a history: record runs with -history DB instead", *baseline)
	case *jobs < 1:
		return fail("-j %d: expected 1 or more", *jobs)
	case err != nil:
		return fail("-max-regression %v", err)
	case (*target < 0 && *target != -1) || *target > 1:
		return fail("-target %v: expected a ratio in [0, 1]", *target)
	case *target == 0:
		return fail("-target 0: a target of 0%% is no target; leave -target out")
	}
	if *update {
		*writeBase = *baseline
	}
	keep := func(*expectations.Scenario) bool { return true }
	if *runPattern != "" {
		filter, err := regexp.Compile(*runPattern)
		if err != nil {
			return fail("-run: %v", err)
		}
		keep = func(s *expectations.Scenario) bool { return filter.MatchString(s.Name) }
	}
	opts := report.CheckOptions{Metrics: cli.SplitList(*columns), Target: *target, Tolerances: tol, BaselineName: *baseline, OnlyFailures: *only}
	for _, m := range opts.Metrics {
		if _, ok := metrics.Define(m); !ok {
			return fail("-metrics: %s", metrics.UnknownMetricError(m))
		}
	}
	found, err := scenariorun.FindJobs(*jobs, fs.Args()...)
	if err != nil {
		return fail("%v", err)
	}
	files := found.Files
	if n := len(found.Skipped); n > 0 {
		fmt.Fprintf(stderr, "retrievaltest check: skipped %d %s that %s not scenarios (no trace, expectations or other key only a scenario has): %s\n",
			n, map[bool]string{true: "file", false: "files"}[n == 1], map[bool]string{true: "is", false: "are"}[n == 1], strings.Join(found.Skipped, ", "))
	}
	if *baseline != "" && *writeBase != *baseline {
		if opts.Baseline, err = historycmd.ReadBaseline(ctx, *baseline, stderr); err != nil {
			return fail("%v", err)
		}
	}

	prog := progress.New(stderr, "check", len(files))
	// Once every trace is read, what is left to do holds the runs and
	// allocates little: the collector runs at a lower percent until the
	// scenarios are judged (on one big trace, the document made after the
	// read would otherwise grow the heap to twice the size of the events).
	// Until then it runs at the reading percent, raised while the heap is
	// small.
	readsDone, gcDone := cli.ReadThenWork()
	results, bad := scenariorun.CheckFound(ctx, found, keep, scenariorun.Options{CWD: *cwd, Jobs: *jobs, MaxInputSize: int64(*maxInput), KeepResults: keepResults(htmlFile != ""), Selected: prog.SetTotal, Recorder: collect.Record,
		ReadsDone: readsDone,
		Progress: func(s *expectations.Scenario, res *expectations.ScenarioResult, err error) {
			status := "pass"
			switch {
			case err != nil:
				status = "error"
			case res.Failed():
				status = "FAIL"
			case slices.ContainsFunc(res.Results, func(r *expectations.Result) bool { return r.Flaky && r.Status == expectations.Fail }):
				// Reported, never failing: not a plain pass either.
				status = "pass (flaky failed)"
			}
			prog.Done(s.Name, status, status != "pass")
		}})
	gcDone()
	prog.Finish()
	for _, e := range bad {
		fmt.Fprintf(stderr, "retrievaltest check: %v\n", e)
	}
	if len(results)+len(bad) == 0 {
		return fail("no scenario to run in %s", strings.Join(fs.Args(), ", "))
	}

	c := report.NewCheck(results, bad...)
	out := report.CheckOutput{Format: format, File: *outputs.Out, Stdout: stdout, Files: reports}
	if *annotate && format != "github" {
		out.Annotations = stderr
	}
	if err := c.Publish(out, opts); err != nil {
		return fail("%v", err)
	}
	if htmlFile != "" {
		if err := htmlreport.WriteFile(htmlFile, func(w io.Writer) error { return htmlreport.WriteCheck(w, results, bad...) }); err != nil {
			return fail("%v", err)
		}
	}
	if err := hist.Record(ctx, c, stderr); err != nil {
		return fail("%v", err)
	}
	if *writeBase != "" {
		if err := report.WriteBaseline(*writeBase, c.Figures); err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(stderr, "retrievaltest check: baseline written to %s\n", *writeBase)
	}
	failed, regs := c.Failed(), c.Regressions(opts)
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "retrievaltest check: FAIL: %s\n", strings.Join(failed, ", "))
	}
	if len(regs) > 0 {
		fmt.Fprintf(stderr, "retrievaltest check: %d figure(s) regressed past the allowed change against %s\n", len(regs), *baseline)
	}
	switch {
	case len(bad) > 0:
		return exitBadInput
	case len(failed) > 0 || len(regs) > 0:
		return exitFailed
	}
	return exitOK
}

// keepResults is what check keeps of the calls' results: what the HTML
// report shows, when there is one.
func keepResults(html bool) func(string) string {
	if html {
		return htmlreport.ShownResult
	}
	return nil
}
