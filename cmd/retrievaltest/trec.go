package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/getopt"
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
	noSummary := fs.Bool("n", false, "print no summary (\"all\") lines (trec_eval -n)")
	judgedOnly := fs.Bool("J", false, "drop documents the qrels do not judge from each ranking before any measure (trec_eval -J)")
	level := cli.IntFunc(fs, "l", metrics.DefaultLevel, "lowest grade, `LEVEL`, that counts as relevant; does not change ndcg (trec_eval -l)", metrics.ParseTRECInt)
	maxDocs := cli.IntFunc(fs, "M", 0, "count only the first `N` documents of each ranking; 0 for all (trec_eval -M)", metrics.ParseTRECInt)
	numDocs := cli.IntFunc(fs, "N", 0, "number of documents in the collection, `N`; only utility's fourth coefficient uses it (trec_eval -N)", metrics.ParseTRECInt)
	zFile := fs.String("Z", "", "print z-scores against the means and standard deviations in `FILE` (lines: query measure mean sd) (trec_eval -Z)")
	relFormat := fs.String("R", "qrels", "`FORMAT` of the qrels file: qrels; qrels_jg, whose second field is a judgment group; prefs (query group subgroup document level) or qrels_prefs, preferences (trec_eval -R)")
	wantHelp := fs.Bool("h", false, "print this help, then the definitions of the measures given with -m, or of all (trec_eval -h)")
	maxInput := cli.AddMaxInput(fs)
	var measures []string
	fs.Func("m", "a measure or measure set to print, `NAME[.PARAMS]`; repeatable (trec_eval -m)", func(v string) error {
		measures = append(measures, v)
		return nil
	})
	usage := func(w io.Writer) {
		fmt.Fprint(w, help("trec"))
		cli.PrintFlags(w, fs)
	}
	fs.Usage = func() {} // printed below, to stdout for -h and stderr otherwise

	// -h is a flag of its own, so that the -m flags around it are read
	// and their definitions printed, as trec_eval does.
	files, err := getopt.Parse(fs, args, "qcnJh", "lmMNZR")
	if err == nil && *wantHelp {
		return trecHelp(stdout, stderr, usage, measures)
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
	if !slices.Contains(metrics.TRECRelevanceFormats, *relFormat) {
		return fail("-R %s: unknown qrels format; want qrels, qrels_jg, prefs or qrels_prefs", *relFormat)
	}
	if *level < 0 {
		// trec_eval would count unjudged documents as relevant there.
		return fail("-l %d: the level must be 0 or more", *level)
	}
	if *maxDocs < 0 {
		return fail("-M %d: the number of documents must be 0 or more", *maxDocs)
	}
	defer maxInput.Apply()()
	limit := input.Or(int64(*maxInput), input.DataLimit)
	ms, err := metrics.ParseTRECMeasures(measures)
	if err != nil {
		return fail("-m: %v", err)
	}

	var rel metrics.TRECRelevance
	if err := input.Parse(files[0], stdin, limit, func(r io.Reader, name string) (err error) {
		rel, err = metrics.ParseTRECRelevance(r, name, *relFormat)
		return err
	}); err != nil {
		return fail("qrels: %v", err)
	}
	var run *metrics.TRECRun
	if err := input.Parse(files[1], stdin, limit, func(r io.Reader, name string) (err error) {
		run, err = metrics.ParseTRECRun(r, name)
		return err
	}); err != nil {
		return fail("run: %v", err)
	}
	opts := metrics.TRECOptions{Level: *level, Complete: *complete, Measures: ms, MaxDocs: *maxDocs, NumDocs: *numDocs, JudgedOnly: *judgedOnly, Groups: rel.Groups, Prefs: rel.Prefs}
	if *zFile != "" {
		if err := input.Parse(*zFile, stdin, limit, func(r io.Reader, name string) (err error) {
			opts.ZScores, err = metrics.ParseTRECZScores(r, name)
			return err
		}); err != nil {
			return fail("-Z: %v", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fail("%v", err)
	}

	done := cli.WorkOnWhatWasRead()
	res, err := metrics.EvaluateTREC(rel.Qrels, run, opts)
	done()
	parts := metrics.TRECPrint{PerQuery: *perQuery, NoSummary: *noSummary}
	var notInRun *metrics.QueryNotInRunError
	switch {
	case errors.As(err, &notInRun):
		// trec_eval -q has printed the queries before this one when it
		// stops; so do we, for output that compares byte for byte.
		parts.NoSummary = true
		if err := notInRun.Evaluated.Print(printable.NewWriter(stdout), parts); err != nil {
			return fail("writing results: %v", err)
		}
		fail("%s and %s: %v", files[0], files[1], err)
		return exitTrecQueryNotInRun
	case errors.Is(err, metrics.ErrNoQueries):
		fail("%s and %s: %v", files[0], files[1], err)
		return exitTrecNoQueries
	case err != nil:
		return fail("%s and %s: %v", files[0], files[1], err)
	}
	// Query ids come from the input files.
	if err := res.Print(printable.NewWriter(stdout), parts); err != nil {
		return fail("writing results: %v", err)
	}
	return exitOK
}

// trec_eval's exit statuses for a qrels query the run lacks and for no
// query evaluated, kept so that scripts written for it read ours alike.
const (
	exitTrecQueryNotInRun = 4
	exitTrecNoQueries     = 7
)

// trecHelp prints the usage and the definitions of the measures given
// with -m (their root names), or of every measure.
func trecHelp(stdout, stderr io.Writer, usage func(io.Writer), measures []string) int {
	usage(stdout)
	ms, err := metrics.ParseTRECMeasures(measures)
	if err != nil {
		return failer("trec", stderr)("-m: %v", err)
	}
	var names []string
	if len(measures) > 0 {
		for _, m := range ms {
			names = append(names, m.Name)
		}
	}
	fmt.Fprintln(stdout, "\nMeasures:")
	if err := metrics.WriteTRECDefinitions(stdout, names, 80); err != nil {
		return failer("trec", stderr)("%v", err)
	}
	return exitOK
}
