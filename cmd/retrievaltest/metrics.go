package main

import (
	"context"
	"io"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// runMetrics is the "metrics" command.
func runMetrics(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("metrics", help("metrics"), stderr)
	tf := cli.AddTraceFlags(fs)
	mf := cli.AddMetricFlags(fs, tf.EventFlags)
	list := fs.Bool("list", false, "print every metric name with its definition, and exit")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if *list {
		if err := metrics.WriteDefinitions(stdout); err != nil {
			return failer("metrics", stderr)("%v", err)
		}
		return exitOK
	}
	defer tf.MaxInput.Apply()()
	fail := failer("metrics", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no trace given")
	}
	mopts, err := mf.Options()
	if err != nil {
		return fail("%v", err)
	}
	r, err := tf.Reader("metrics", stderr)
	if err != nil {
		return fail("%v", err)
	}
	return r.EachRun(ctx, "metrics", fs.Args(), stdin, stderr, func(run *cli.LoadedRun) error {
		o := mopts
		o.Grades = run.Grades
		return run.Metrics(o).WriteJSON(stdout)
	})
}
