package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
)

const reportUsage = `Usage: retrievaltest report [flags] RUN_DIR|SUMMARY

Writes a markdown report of a run that run-dir has evaluated: for each
configuration, the index-effectiveness table (semantic ratio, steps to
target, patterns, and the aggregate against -target) and a retrieval table
of the -metrics, one row per task run, headed by each metric's definition.

With -baseline, every figure shows its change against the baseline file
("0.62 (+0.08) ▲", ▲ better and ▼ worse by the metric's direction), and
the figures worse by more than -max-regression are listed as regressions;
a figure that had a value in the baseline and has none now is one too.
-write-baseline writes the run's figures as a baseline file (atomically),
keyed "<config>/<task>".

Exit status: 0, 1 when a figure regressed beyond -max-regression, 2 for bad
input.

Flags:
`

// runReport is the "report" command.
func runReport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("report", reportUsage, stderr)
	list := fs.String("metrics", strings.Join(report.DefaultRetrievalMetrics, ","), "columns of the retrieval table, comma-separated `LIST`")
	target := fs.Float64("target", report.DefaultSemanticTarget, "semantic-ratio target of the aggregate line, in [0, 1]")
	basePath := fs.String("baseline", "", "baseline `FILE` to compare the figures with")
	maxReg := fs.Float64("max-regression", 0, "largest allowed worsening of a figure against the baseline, in its units (0.05 for a ratio, 1 for steps)")
	writeBase := fs.String("write-baseline", "", "write the run's figures to baseline `FILE`")
	only := fs.String("config", "", "report only this configuration `NAME`")
	htmlFile := fs.String("html", "", "also write a self-contained HTML report (metric tables, paired comparison, coverage over calls) to `FILE`")
	maxInput := addMaxInputFlag(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	defer maxInput.apply()()
	fail := failer("report", stderr)
	if fs.NArg() != 1 {
		fs.Usage()
		return fail("want exactly one run folder or summary, got %d arguments", fs.NArg())
	}
	if *target <= 0 || *target > 1 {
		return fail("-target %g: want a ratio in (0, 1]", *target)
	}
	if *maxReg < 0 {
		return fail("-max-regression %g: want 0 or more", *maxReg)
	}
	summary, err := runs.ReadSummaries(fs.Args()...)
	if err != nil {
		return fail("%v", err)
	}
	opts := report.RunOptions{Metrics: splitList(*list), Target: *target, MaxRegression: *maxReg, BaselineName: *basePath, Config: *only}
	if *basePath != "" {
		if opts.Baseline, err = report.ReadBaseline(*basePath); err != nil {
			return fail("%v", err)
		}
	}
	regs, err := report.WriteRun(stdout, summary, opts)
	if err != nil {
		return fail("%v", err)
	}
	if *htmlFile != "" {
		dir := "" // the artifacts the coverage curves are drawn from are beside the summary
		if p, err := runs.FindSummary(fs.Arg(0)); err == nil {
			dir = filepath.Dir(p)
		}
		if err := htmlreport.WriteFile(*htmlFile, func(w io.Writer) error { return htmlreport.WriteRun(w, summary, htmlreport.RunOptions{Dir: dir}) }); err != nil {
			return fail("%v", err)
		}
	}
	if *writeBase != "" {
		if err := report.WriteBaseline(*writeBase, report.RunBaseline(summary, *only)); err != nil {
			return fail("%v", err)
		}
	}
	if len(regs) > 0 {
		return exitFailed
	}
	return exitOK
}
