package main

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/blobio"
	"github.com/agentretrieval/agentretrieval/internal/cli"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
)

// runMerge is the "merge" command.
func runMerge(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("merge", help("merge"), stderr)
	out := fs.String("out", "", "output `DIR` of the merged run (required)")
	columns := fs.String("metrics", strings.Join(report.DefaultRetrievalMetrics, ","), "metrics shown in the table on standard output, comma-separated `LIST`")
	maxInput := cli.AddMaxInput(fs)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	defer maxInput.Apply()()
	st, stderr := blobio.NewStage(maxInput.OrTrace(), stderr) // bucket URLs
	defer st.Close()
	fail := failer("merge", stderr)
	if *out == "" {
		fs.Usage()
		return fail("-out is required")
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no shard folder or file given")
	}
	shards, err := st.Inputs(ctx, fs.Args()...)
	if err == nil {
		*out, err = st.Output(*out)
	}
	if err != nil {
		return fail("%v", err)
	}
	summary, err := runs.MergeShardFiles(*out, shards...)
	if err != nil {
		return fail("%v", err)
	}
	if err := report.WriteSummaryTable(stdout, summary, cli.SplitList(*columns)); err != nil {
		return fail("%v", err)
	}
	htmlFile := filepath.Join(*out, htmlreport.RunReportFile)
	if err := htmlreport.WriteFile(htmlFile, func(w io.Writer) error { return htmlreport.WriteRun(w, summary, htmlreport.RunOptions{Dir: *out}) }); err != nil {
		return fail("%v", err)
	}
	if err := st.Commit(ctx, runs.IsSummaryFile); err != nil {
		return fail("%v", err)
	}
	trials, comp, non, deg := summary.Totals()
	fmt.Fprintf(stderr, "retrievaltest merge: %d trial(s) in %d configuration(s): %d computable, %d non-computable, %d degraded, %d failed; wrote %s and %s\n",
		trials, len(summary.Configs), comp, non, deg, len(summary.FailedEntries()), htmlFile, filepath.Join(*out, runs.SummaryFile))
	if len(summary.FailedEntries()) > 0 {
		// As run-dir does for the whole run: the summary is written, and
		// the run still ends in error.
		for _, c := range summary.Configs {
			for _, e := range c.Entries {
				if e.Status == runs.Failed {
					fmt.Fprintf(stderr, "retrievaltest merge: %s: %v: %s\n", path.Join(c.Config, e.Batch, e.Trial), runs.ErrTrialFailed, e.Reason)
				}
			}
		}
		return exitBadInput
	}
	return exitOK
}
