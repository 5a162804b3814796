package main

import (
	"context"
	"io"
)

const eventsUsage = `Usage: retrievaltest events [flags] TRACE...

Reads each trace (a file, a folder for the formats stored as folders, or -
for standard input), classifies every tool call and writes one
retrieval-events JSON document per session to standard output: a trace
that holds several sessions gives one each (-trace-id picks one). Warnings
about skipped trace lines go to standard error.

Flags:
`

func runEvents(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("events", eventsUsage, stderr)
	tf := addTraceFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	defer tf.maxInput.apply()()
	fail := failer("events", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no trace given")
	}
	r, err := tf.reader("events", stderr)
	if err != nil {
		return fail("%v", err)
	}
	return r.eachRun(ctx, "events", fs.Args(), stdin, stderr, func(run *loadedRun) error {
		return run.doc.WriteJSON(stdout)
	})
}
