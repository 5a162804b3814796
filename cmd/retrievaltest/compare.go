package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
)

const compareUsage = `Usage: retrievaltest compare [flags] RUN_DIR|SUMMARY...

Compares two configurations of a benchmark run on the tasks they share. Each
argument is a run folder that run-dir has evaluated, an output folder of
run-dir, or a run_retrieval_summary.json; with several, their configurations
are pooled (a configuration name may appear only once).

A task is matched when its retrieval is computable in both configurations;
at least 3 are needed. For each metric: the mean paired difference
(candidate − baseline) with a bootstrap 95% CI (fixed seed), the exact
Wilcoxon signed-rank and sign test p-values, and per configuration
Spearman's correlation of the metric with the verifier reward (see "go doc
github.com/agentretrieval/agentretrieval/runs.Compare"). Unmatched tasks are
listed. These are associations, not causes, and the report says so.

The baseline is the configuration whose name starts with "baseline", the
candidate the other one (or the one starting with "mcp"), unless the flags
name them. Exit status: 0 with a report, 2 for bad input or fewer than 3
matched tasks.

Flags:
`

// runCompare is the "compare" command.
func runCompare(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("compare", compareUsage, stderr)
	baseName := fs.String("baseline-config", "", "baseline configuration `NAME` (default: the one starting with \"baseline\")")
	candName := fs.String("candidate-config", "", "candidate configuration `NAME` (default: the other one)")
	list := fs.String("metrics", strings.Join(runs.DefaultCompareMetrics, ","), "metrics to compare, comma-separated `LIST`")
	maxInput := addMaxInputFlag(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	defer maxInput.apply()()
	fail := failer("compare", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no run folder or summary given")
	}
	summary, err := runs.ReadSummaries(fs.Args()...)
	if err != nil {
		return fail("%v", err)
	}
	base, cand, err := runs.PickConfigs(summary.ConfigNames(), *baseName, *candName)
	if err != nil {
		return fail("%v", err)
	}
	c, err := runs.Compare(summary, base, cand, splitList(*list))
	if errors.Is(err, runs.ErrTooFewMatched) {
		fmt.Fprintf(stderr, "retrievaltest compare: %v\n", err)
		for _, u := range c.Unmatched() {
			fmt.Fprintf(stderr, "  not matched: %s\n", u)
		}
		return exitBadInput
	}
	if err != nil {
		return fail("%v", err)
	}
	if err := report.WriteComparison(stdout, c); err != nil {
		return fail("%v", err)
	}
	return exitOK
}
