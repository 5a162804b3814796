package runcmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/historycmd"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
)

// Merge runs the merge command; usage is its -h text.
func Merge(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) int {
	fs := cli.NewFlags("retrievaltest merge", usage, stderr)
	out := fs.String("out", "", "output `DIR` of the merged run (required)")
	columns := fs.String("metrics", strings.Join(report.DefaultRetrievalMetrics, ","), "metrics shown in the table on standard output, comma-separated `LIST`")
	maxInput := cli.AddMaxInput(fs)
	hist := historycmd.AddEvaluationFlags(fs, false)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	defer maxInput.Apply()()
	st, stderr := blobio.NewStage(maxInput.OrTrace(), stderr) // bucket URLs
	defer st.Close()
	fail := cli.Failer("retrievaltest merge", stderr)
	if *out == "" {
		fs.Usage()
		return fail("-out is required")
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no shard folder or file given")
	}
	if err := hist.Reachable(ctx); err != nil {
		return fail("%v", err)
	}
	// Of a shard folder in a bucket, only the shard summaries and their
	// trials files are copied: the merge reads nothing else, and the
	// artifacts stay where they are.
	st.Keep = func(rel string) bool { return runs.IsSummaryFile(rel) || runs.IsShardTrialsFile(rel) }
	shards, err := st.Inputs(ctx, fs.Args()...)
	if err == nil {
		*out, err = st.Output(*out)
	}
	if err != nil {
		return fail("%v", err)
	}
	inBucket := blobio.IsURL(st.Name(*out))
	for _, s := range shards {
		inBucket = inBucket || blobio.IsURL(st.Name(s))
	}
	rel := func(out, dir string) (string, error) {
		o, d := st.Name(out), st.Name(dir)
		if !blobio.IsURL(o) && !blobio.IsURL(d) {
			return runs.RelDir(out, dir)
		}
		r, err := blobio.Rel(o, d)
		if err != nil {
			return "", fmt.Errorf("%w: merge into a folder of the bucket the shards wrote to", err)
		}
		return r, nil
	}
	summary, err := runs.MergeShardFilesWith(*out, runs.MergeOptions{Rel: rel, SummaryValues: shownValues(*columns), SummaryWithoutEntries: true}, shards...)
	if err != nil {
		return fail("%v", err)
	}
	// The temporary file report.html's rows are read back from: nothing
	// is written to it, so closing it cannot lose anything.
	defer summary.Close()
	artifacts := *out // where report.html finds the artifacts the summary names
	if inBucket {
		artifacts = ""
	}
	if err := writeRun(ctx, "merge", summary, *out, artifacts, *columns, st, stdout, stderr); err != nil {
		return fail("%v", err)
	}
	if err := hist.Record(ctx, "merge", summary, "", stderr); err != nil {
		return fail("%v", err)
	}
	if err := summary.FailedError(); err != nil {
		// As run-dir does for the whole run: the summary is written, and
		// the run still ends in error.
		cli.PrintErrors(stderr, "retrievaltest merge", err)
		return cli.ExitBadInput
	}
	return cli.ExitOK
}
