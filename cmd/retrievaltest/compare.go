package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
)

// runCompare is the "compare" command.
func runCompare(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("compare", help("compare"), stderr)
	baseName := fs.String("baseline-config", "", "baseline configuration `NAME` (default: the one starting with \"baseline\")")
	candName := fs.String("candidate-config", "", "candidate configuration `NAME` (default: the other one)")
	list := fs.String("metrics", strings.Join(runs.DefaultCompareMetrics, ","), "metrics to compare, comma-separated `LIST`")
	maxInput := cli.AddMaxInput(fs)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	defer maxInput.Apply()()
	st, stderr := blobio.NewStage(maxInput.OrTrace(), stderr) // bucket URLs
	defer st.Close()
	fail := failer("compare", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no run folder or summary given")
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
	base, cand, err := runs.PickConfigs(summary.ConfigNames(), *baseName, *candName)
	if err != nil {
		return fail("%v", err)
	}
	c, err := runs.Compare(summary, base, cand, cli.SplitList(*list))
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
