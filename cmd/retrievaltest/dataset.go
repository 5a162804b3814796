package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/dataset"
)

func runDataset(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	validate := len(args) > 0 && args[0] == "validate"
	fs := newFlags("dataset", help("dataset"), stderr)
	var c dataset.Config
	fs.StringVar(&c.Diff, "diff", "", "unified diff `FILE` of the merged change")
	fs.StringVar(&c.Out, "out", "", "output `DIR`")
	fs.StringVar(&c.Repo, "repo", "", "git repository `DIR` that holds -base or -final")
	fs.StringVar(&c.Base, "base", "", "base commit `REV` (resolved with git when -repo is given)")
	fs.StringVar(&c.Final, "final", "", "merged commit `REV`; the base commit is its first parent (needs -repo)")
	fs.StringVar(&c.Query, "query", "", "the task's `TEXT` (default: the trace's first user prompt, if it has one)")
	fs.StringVar(&c.CaseID, "case-id", "", "case `ID` (default: the session's task or id, else the trace file name)")
	fs.StringVar(&c.Trace.Format, "format", "", "trace format `NAME` (default: detect; see retrievaltest formats)")
	fs.StringVar(&c.Trace.SessionID, "trace-id", "", "read only the session with this task or session `ID`")
	fs.BoolVar(&c.Full, "full", false, "rewrite the dataset files instead of adding to them")
	export := fs.String("export", "", "validate: write the complete rows to `OUT`")
	if validate {
		args = args[1:]
	}
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	st, stderr := blobio.NewStage(0, stderr) // bucket URLs
	defer st.Close()
	fail := failer("dataset", stderr)
	if validate {
		if fs.NArg() != 1 {
			return fail("validate takes one dataset file")
		}
		rep, err := dataset.Check(fs.Arg(0), *export)
		if err != nil {
			return fail("%v", err)
		}
		rep.WriteText(stdout)
		return map[bool]int{true: exitFailed, false: exitOK}[len(rep.Problems) > 0]
	}
	traces, err := st.Inputs(ctx, fs.Args()...)
	if err != nil {
		return fail("%v", err)
	}
	c.Traces, c.Warn = traces, func(w string) { fmt.Fprintln(stderr, "warning:", w) }
	res, err := dataset.Generate(ctx, c)
	if err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(stderr, "cases: %d written, %d already there\n", len(res.Written), len(res.Skipped))
	return exitOK
}
