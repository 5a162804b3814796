package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/metrics"
)

const metricsUsage = `Usage: retrievaltest metrics [flags] TRACE...

Reads each trace (a file, a folder for the formats stored as folders, or -
for standard input), turns its tool calls into retrieval events and writes
one retrieval-metrics JSON document per session to standard output (a trace
that holds several sessions gives one each; -trace-id picks one): the ranked
files of both views (surfaced, read), P@k, Recall@k, F1@k, Success@k, RR,
AP, R-precision, nDCG (trec_eval's definitions), line and chunk coverage,
symbol recall, time to relevance, utilization probes, the error taxonomy and
the calibration slices.

With -list, prints every metric name with its definition instead, and
reads no trace.

A task whose ground truth has no file is reported with "computable": false
and a reason, never scored. Warnings about skipped trace lines go to
standard error.

Flags:
`

// runMetrics is the "metrics" command.
func runMetrics(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("metrics", metricsUsage, stderr)
	tf := addTraceFlags(fs)
	mf := addMetricFlags(fs, tf.eventFlags)
	list := fs.Bool("list", false, "print every metric name with its definition, and exit")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *list {
		if err := writeMetricList(stdout); err != nil {
			return failer("metrics", stderr)("%v", err)
		}
		return exitOK
	}
	defer tf.maxInput.apply()()
	fail := failer("metrics", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no trace given")
	}
	mopts, err := mf.options()
	if err != nil {
		return fail("%v", err)
	}
	r, err := tf.reader("metrics", stderr)
	if err != nil {
		return fail("%v", err)
	}
	return r.eachRun(ctx, "metrics", fs.Args(), stdin, stderr, func(run *loadedRun) error {
		o := mopts
		o.Grades = run.grades
		return metrics.Compute(run.doc, o).WriteJSON(stdout)
	})
}

// writeMetricList prints each metric: its name (k standing for a cutoff
// such as 5, and "read." before a name selecting the read view where the
// figure has one), its label, and its definition.
func writeMetricList(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Metric names as scenarios, -metrics and godog steps take them; k is a cutoff\n")
	b.WriteString("such as 5 (recall@5); [read.] marks a figure that also exists for the read view.\n\n")
	for _, d := range metrics.Definitions() {
		name := d.Name
		if d.Views {
			name = "[read.]" + name
		}
		label := d.Label
		if d.Bounded {
			label += ", in [0, 1]"
		}
		fmt.Fprintf(&b, "%s\n    %s: %s\n", name, label, d.Definition)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
