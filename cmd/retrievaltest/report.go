package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
)

// runReport is the "report" command.
func runReport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("report", help("report"), stderr)
	list := fs.String("metrics", strings.Join(report.DefaultRetrievalMetrics, ","), "columns of the retrieval table, comma-separated `LIST`")
	target := fs.Float64("target", report.DefaultSemanticTarget, "semantic-ratio target of the aggregate line, in [0, 1]")
	basePath := fs.String("baseline", "", "baseline `FILE` to compare the figures with")
	maxReg := fs.String("max-regression", "", "changes for the worse allowed against -baseline, as `TOLERANCES` such as ratio=0.05,steps=2 (see above)")
	writeBase := fs.String("write-baseline", "", "write the run's figures to baseline `FILE`")
	only := fs.String("config", "", "report only this configuration `NAME`")
	htmlFile := fs.String("html", "", "also write a self-contained HTML report (metric tables, paired comparison, coverage over calls) to `FILE`")
	maxInput := cli.AddMaxInput(fs)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	defer maxInput.Apply()()
	st, stderr := blobio.NewStage(maxInput.OrTrace(), stderr) // bucket URLs
	defer st.Close()
	fail := failer("report", stderr)
	if fs.NArg() != 1 {
		fs.Usage()
		return fail("want exactly one run folder or summary, got %d arguments", fs.NArg())
	}
	if *target <= 0 || *target > 1 {
		return fail("-target %g: want a ratio in (0, 1]", *target)
	}
	tol, err := report.ParseTolerances(*maxReg)
	if err != nil {
		return fail("-max-regression %v", err)
	}
	st.Siblings = func(string) []string { return []string{runs.TrialsFile} } // a summary's entries are in its table
	names, err := st.Inputs(ctx, fs.Args()...)
	if err != nil {
		return fail("%v", err)
	}
	summary, err := runs.ReadSummaries(names...)
	if err != nil {
		return fail("%v", err)
	}
	opts := report.RunOptions{Metrics: cli.SplitList(*list), Target: *target, Tolerances: tol, BaselineName: *basePath, Config: *only}
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
		if p, err := runs.FindSummary(names[0]); err == nil {
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
