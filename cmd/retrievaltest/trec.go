package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/internal/getopt"
	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/printable"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// runTrec is the "trec" command: trec_eval-compatible evaluation of a qrels
// and a run file.
func runTrec(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("retrievaltest trec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fail := failer("trec", stderr)
	perQuery := fs.Bool("q", false, "print the figures of every query before the summary (trec_eval -q)")
	complete := fs.Bool("c", false, "average over every query of the qrels; a query missing from the run scores 0 (trec_eval -c)")
	level := fs.Int("l", metrics.DefaultLevel, "lowest grade that counts as relevant; does not change ndcg (trec_eval -l)")
	maxDocs := fs.Int("M", 0, "count only the first `N` documents of each ranking; 0 for all (trec_eval -M)")
	maxInput := addMaxInputFlag(fs)
	var measures []string
	fs.Func("m", "a measure or measure set to print, `NAME[.PARAMS]`; repeatable (trec_eval -m)", func(v string) error {
		measures = append(measures, v)
		return nil
	})
	usage := func(w io.Writer) {
		fmt.Fprint(w, help("trec"))
		printFlags(w, fs)
	}
	fs.Usage = func() {} // printed below, to stdout for -h and stderr otherwise

	files, err := getopt.Parse(fs, args, "qch", "lmM")
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout)
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr) // the flag package has printed the error
		usage(stderr)
		return exitBadInput
	}
	if len(files) != 2 {
		fmt.Fprintf(stderr, "retrievaltest trec: want 2 files, QRELS and RUN; got %d\n\n", len(files))
		usage(stderr)
		return exitBadInput
	}
	if files[0] == "-" && files[1] == "-" {
		return fail("only one of QRELS and RUN can be standard input")
	}
	if *level < 0 {
		// trec_eval would count unjudged documents as relevant there.
		return fail("-l %d: the level must be 0 or more", *level)
	}
	if *maxDocs < 0 {
		return fail("-M %d: the number of documents must be 0 or more", *maxDocs)
	}
	defer maxInput.apply()()
	limit := input.Or(int64(*maxInput), input.DataLimit)
	ms, err := metrics.ParseTRECMeasures(measures)
	if err != nil {
		return fail("-m: %v", err)
	}

	var qrels metrics.Qrels
	if err := readFile(files[0], stdin, limit, func(r io.Reader, name string) (err error) {
		qrels, err = metrics.ParseQrels(r, name)
		return err
	}); err != nil {
		return fail("qrels: %v", err)
	}
	var run *metrics.TRECRun
	if err := readFile(files[1], stdin, limit, func(r io.Reader, name string) (err error) {
		run, err = metrics.ParseTRECRun(r, name)
		return err
	}); err != nil {
		return fail("run: %v", err)
	}
	if err := ctx.Err(); err != nil {
		return fail("%v", err)
	}

	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: *level, Complete: *complete, Measures: ms, MaxDocs: *maxDocs})
	if err != nil {
		return fail("%s and %s: %v", files[0], files[1], err)
	}
	// Query ids come from the input files.
	if err := res.Format(printable.NewWriter(stdout), *perQuery); err != nil {
		return fail("writing results: %v", err)
	}
	return exitOK
}

// readFile calls parse on the named file, or on stdin for "-" (named
// "<stdin>" in error messages), reading at most limit bytes. Only a
// regular file is opened: a named pipe or a device is refused.
func readFile(path string, stdin io.Reader, limit int64, parse func(io.Reader, string) error) error {
	if path == "-" {
		return parse(input.LimitReader(stdin, "<stdin>", limit), "<stdin>")
	}
	f, err := input.Open(path, limit)
	if err != nil {
		return err
	}
	defer f.Close()
	return parse(f, path)
}
