package main

import (
	"context"
	"io"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
)

func runEvents(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("events", help("events"), stderr)
	tf := cli.AddTraceFlags(fs)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	defer tf.MaxInput.Apply()()
	fail := failer("events", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no trace given")
	}
	r, err := tf.Reader("events", stderr)
	if err != nil {
		return fail("%v", err)
	}
	return r.EachRun(ctx, "events", fs.Args(), stdin, stderr, func(run *cli.LoadedRun) error {
		return run.WriteJSON(stdout)
	})
}
