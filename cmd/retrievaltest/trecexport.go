package main

import (
	"cmp"
	"context"
	"errors"
	"io"
	"slices"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// runTrecExport is the "trec-export" command.
func runTrecExport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("trec-export", help("trec-export"), stderr)
	tf := cli.AddTraceFlags(fs)
	includeWrites := fs.Bool("include-writes", false, "rank files the agent only wrote, at the write (default: a write is not retrieval)")
	runFile := fs.String("o-run", "-", "write the run to `FILE` (- for standard output)")
	qrelsFile := fs.String("o-qrels", "", "write the qrels to `FILE` (needs -gt)")
	view := fs.String("view", string(metrics.Surfaced), "ranked list to export: surfaced or read")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	defer tf.MaxInput.Apply()()
	fail := failer("trec-export", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no trace given")
	}
	v := metrics.View(*view)
	if !slices.Contains(metrics.Views, v) {
		return fail("-view %q: want surfaced or read", *view)
	}
	if *qrelsFile != "" && *tf.GT == "" {
		return fail("-o-qrels needs the ground truth: give -gt")
	}
	if *qrelsFile != "" && *qrelsFile == *runFile {
		return fail("-o-run and -o-qrels name the same file %s", *runFile)
	}
	r, err := tf.Reader("trec-export", stderr)
	if err != nil {
		return fail("%v", err)
	}

	defer r.Close()
	export := metrics.TRECExport{View: v}
	for _, name := range fs.Args() {
		if ctx.Err() != nil {
			return fail("%v", ctx.Err())
		}
		loaded, err := r.Load(ctx, name, stdin, stderr)
		if err != nil {
			return fail("%v", err)
		}
		if len(loaded) > 1 && *tf.GT != "" {
			// One -gt judges every query: the sessions of one file are
			// different tasks, each with its own right answer.
			return fail("%s holds %d sessions and -gt %s is the ground truth of one task: pick its session with -trace-id, or export each session with its own -gt", name, len(loaded), *tf.GT)
		}
		for _, run := range loaded {
			res := run.Metrics(metrics.Options{IncludeWrites: *includeWrites, Grades: run.Grades, FoldCase: *tf.FoldCase})
			qid := cmp.Or(res.Provenance.TaskName, "stdin")
			if err := export.Add(qid, res, res.Provenance.TraceFile); err != nil {
				if errors.Is(err, metrics.ErrDuplicateQuery) {
					return fail("%v: give each its own -task, or export them separately", err)
				}
				return fail("%v", err)
			}
		}
	}

	if err := writeOutput(*runFile, export.Run.Bytes(), stdout); err != nil {
		return fail("writing the run: %v", err)
	}
	if *qrelsFile != "" {
		if err := writeOutput(*qrelsFile, export.Qrels.Bytes(), stdout); err != nil {
			return fail("writing the qrels: %v", err)
		}
	}
	return exitOK
}

// writeOutput writes data to stdout for "-", else atomically to the named
// file.
func writeOutput(name string, data []byte, stdout io.Writer) error {
	if name == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return atomicfile.WriteBytes(name, data)
}
