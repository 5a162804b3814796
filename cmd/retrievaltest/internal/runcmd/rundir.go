// Package runcmd is the command's wiring of run-dir and merge: evaluating
// a benchmark run folder, whole or a shard of it, and joining shards.
package runcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/historycmd"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
	"github.com/agentretrieval/agentretrieval/trace"
)

// RunDir runs the run-dir command; usage is its -h text.
func RunDir(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) int {
	fs := cli.NewFlags("retrievaltest run-dir", usage, stderr)
	gtRoot := fs.String("gt-root", "", "`DIR` holding one task folder per task, named as the task")
	out := fs.String("out", "", "output `DIR` (default RUN_DIR/"+runs.OutDir+")")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "trials processed in parallel")
	ef := cli.AddEventFlags(fs)
	mf := cli.AddMetricFlags(fs, ef)
	benchmark := fs.String("benchmark", "", "benchmark name for the provenance")
	traceID := fs.String("trace-id", "", "in a trace file that holds several sessions, the task or session `ID` to read (default: the trial's task)")
	columns := fs.String("metrics", strings.Join(report.DefaultRetrievalMetrics, ","), "metrics shown in the table on standard output, comma-separated `LIST`")
	shardSpec := fs.String("shard", "", "evaluate only shard `K/N` of the trials (K from 1), or \"auto\" to take it from the batch engine's environment; see above")
	shards := fs.Int("shards", 0, "with -shard auto, the number of shards (required with JOB_COMPLETION_INDEX); with -plan and no -shard, the number of shards the plan is cut into")
	planFile := fs.String("plan", "", "without -shard: list the run once and write the plan of its shards to `FILE` (see above); with -shard: read the shard's trials from the plan FILE instead of listing the run")
	hist := historycmd.AddEvaluationFlags(fs, true)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	defer ef.MaxInput.Apply()()
	st, stderr := blobio.NewStage(ef.MaxInput.OrTrace(), stderr) // bucket URLs
	defer st.Close()
	fail := cli.Failer("retrievaltest run-dir", stderr)
	if fs.NArg() != 1 {
		fs.Usage()
		return fail("want exactly one RUN_DIR, got %d arguments", fs.NArg())
	}
	if *jobs < 1 {
		return fail("-j %d: want 1 or more", *jobs)
	}
	planning := *planFile != "" && *shardSpec == ""
	var shard runs.Shard
	var shardFrom string
	var sharded bool
	var err error
	if planning {
		if *shards < 1 || *shards > runs.MaxShards {
			return fail("-plan %s: give the number of shards with -shards N (1 to %d)", *planFile, runs.MaxShards)
		}
	} else if shard, shardFrom, sharded, err = runs.ResolveShard(*shardSpec, *shards, os.Getenv); err != nil {
		return fail("%v", err)
	}
	if err := hist.Check(sharded, planning); err != nil {
		return fail("%v", err)
	}
	if err := hist.Reachable(ctx); err != nil {
		return fail("%v", err)
	}
	var plan *runs.PlanPart
	if sharded && *planFile != "" {
		open, done, err := st.Range(ctx, *planFile)
		if err != nil {
			return fail("%v", err)
		}
		plan, err = runs.ReadPlanPart(open, *planFile, shard)
		done()
		if err != nil {
			return fail("%v", err)
		}
	}
	mopts, err := mf.Options()
	if err != nil {
		return fail("%v", err)
	}
	if *gtRoot, err = st.Input(ctx, *gtRoot); err != nil {
		return fail("%v", err)
	}
	var runDir string
	switch {
	case plan != nil:
		// Its plan lists the shard's trials: only their folders are
		// copied from a bucket, and the rest of the run is never listed.
		rels := make([]string, len(plan.Trials))
		for i, t := range plan.Trials {
			rels[i] = t.Path
		}
		runDir, err = st.InputFolders(ctx, fs.Arg(0), rels)
	case sharded:
		st.Keep = shard.Needs // a shard copies only its own trials' traces
		runDir, err = st.Input(ctx, fs.Arg(0), runs.OutDir)
	case planning:
		st.Keep = func(rel string) bool { // writing a plan reads no trace
			_, _, trace := strings.Cut(rel, "/agent/")
			return !trace
		}
		runDir, err = st.Input(ctx, fs.Arg(0), runs.OutDir)
	default:
		runDir, err = st.Input(ctx, fs.Arg(0), runs.OutDir)
	}
	if err != nil {
		return fail("%v", err)
	}
	if *gtRoot != "" {
		if info, err := os.Stat(*gtRoot); err != nil || !info.IsDir() {
			return fail("-gt-root %s: not a folder", *gtRoot)
		}
	}
	eopts, err := ef.Options()
	if err != nil {
		return fail("%v", err)
	}
	if *out == "" {
		*out = blobio.Join(fs.Arg(0), runs.OutDir)
	}
	if *out, err = st.Output(*out); err != nil {
		return fail("%v", err)
	}
	opts := runs.Options{
		GroundTruthRoot: *gtRoot,
		Out:             *out,
		Jobs:            *jobs,
		Benchmark:       *benchmark,
		Events:          eopts,
		Metrics:         mopts,
		Trace:           trace.Options{SessionID: *traceID, MaxInputSize: ef.MaxInput.OrTrace()},
		NamePath:        st.Name,
		Plan:            plan,
		SummaryValues:   shownValues(*columns),
		// The page's rows are read back from the table beside the summary.
		SummaryWithoutEntries: true,
		Warn: func(t *runs.Trial, w string) {
			if t == nil {
				fmt.Fprintf(stderr, "warning: retrievaltest run-dir: %s\n", w)
				return
			}
			fmt.Fprintf(stderr, "warning: %s: %s\n", t.Rel, w)
		},
	}
	if *gtRoot == "" {
		fmt.Fprintln(stderr, "warning: retrievaltest run-dir: no -gt-root: every task is non-computable")
	}
	if planning {
		return writePlan(ctx, runDir, *planFile, *shards, opts, st, stderr)
	}
	if sharded {
		return runShard(ctx, runDir, shard, shardFrom, opts, st, hist, stderr)
	}

	summary, err := runs.Evaluate(ctx, runDir, opts)
	if errors.Is(err, context.Canceled) {
		return fail("interrupted")
	}
	if summary == nil {
		cli.PrintErrors(stderr, "retrievaltest run-dir", err)
		return cli.ExitBadInput
	}
	// The temporary file report.html's rows are read back from: nothing
	// is written to it, so closing it cannot lose anything.
	defer summary.Close()
	if err := writeRun(ctx, "run-dir", summary, opts.Out, opts.Out, *columns, st, stdout, stderr); err != nil {
		return fail("%v", err)
	}
	// A run with failed trials is recorded too: its failures are part of
	// its history.
	if err := hist.Record(ctx, "run-dir", summary, "", stderr); err != nil {
		return fail("%v", err)
	}
	if err != nil {
		// Some trials could not be evaluated: the others are in the
		// summary, and the run still ends in error.
		cli.PrintErrors(stderr, "retrievaltest run-dir", err)
		return cli.ExitBadInput
	}
	return cli.ExitOK
}

// writeRun writes what run-dir and merge show of a whole run: the table on
// stdout, report.html beside the summary, the uploads of a bucket output,
// and a line of counts on stderr (the stage's writer, which names a bucket
// output by its URL). artifacts is the folder the summary's artifact paths
// are relative to, "" when they cannot be read from here (report.html then
// has no coverage curves).
func writeRun(ctx context.Context, cmd string, summary *runs.Summary, out, artifacts, columns string, st *blobio.Stage, stdout, stderr io.Writer) error {
	if err := report.WriteSummaryTable(stdout, summary, cli.SplitList(columns)); err != nil {
		return err
	}
	htmlFile := filepath.Join(out, htmlreport.RunReportFile)
	page := func(w io.Writer) error { return htmlreport.WriteRun(w, summary, htmlreport.RunOptions{Dir: artifacts}) }
	if err := htmlreport.WriteFile(htmlFile, page); err != nil {
		return err
	}
	if err := st.Commit(ctx, runs.IsSummaryFile); err != nil {
		return err
	}
	trials, comp, non, deg := summary.Totals()
	fmt.Fprintf(stderr, "retrievaltest %s: %d trial(s) in %d configuration(s): %d computable, %d non-computable, %d degraded, %d failed; wrote %s and %s\n",
		cmd, trials, len(summary.Configs), comp, non, deg, len(summary.FailedEntries()), htmlFile, filepath.Join(out, runs.SummaryFile))
	return nil
}

// runShard evaluates one shard of the run and reports what it wrote.
func runShard(ctx context.Context, runDir string, shard runs.Shard, from string, opts runs.Options, st *blobio.Stage, hist historycmd.EvaluationFlags, stderr io.Writer) int {
	fail := cli.Failer("retrievaltest run-dir", stderr)
	s, err := runs.EvaluateShard(ctx, runDir, shard, opts)
	if errors.Is(err, context.Canceled) {
		return fail("interrupted")
	}
	if s == nil {
		cli.PrintErrors(stderr, "retrievaltest run-dir", err)
		return cli.ExitBadInput
	}
	if err := st.Commit(ctx, runs.IsSummaryFile); err != nil {
		return fail("%v", err)
	}
	trials, comp, non, deg, failed := s.Totals()
	fmt.Fprintf(stderr, "retrievaltest run-dir: shard %d of %d (%s): %d of the run's %d trial(s): %d computable, %d non-computable, %d degraded, %d failed; wrote %s\n",
		shard.K, shard.N, from, trials, s.RunTrials, comp, non, deg, failed, s.Source)
	if hist.Given() {
		if err := hist.Record(ctx, "run-dir", s.Summary(), fmt.Sprintf("/shard-%d-of-%d", shard.K, shard.N), stderr); err != nil {
			return fail("%v", err)
		}
	}
	if err != nil {
		cli.PrintErrors(stderr, "retrievaltest run-dir", err)
		return cli.ExitBadInput
	}
	return cli.ExitOK
}

// writePlan lists the run and writes a plan of its evaluation in shards.
func writePlan(ctx context.Context, runDir, file string, shards int, opts runs.Options, st *blobio.Stage, stderr io.Writer) int {
	fail := cli.Failer("retrievaltest run-dir", stderr)
	local, err := st.OutputFile(file)
	if err != nil {
		return fail("%v", err)
	}
	h, err := runs.WritePlan(ctx, runDir, local, shards, opts)
	if errors.Is(err, context.Canceled) {
		return fail("interrupted")
	}
	if err != nil {
		return fail("%v", err)
	}
	if err := st.Commit(ctx, nil); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(stderr, "retrievaltest run-dir: plan of %d trial(s) in %d shard(s); wrote %s\n", h.RunTrials, h.Shards, file)
	return cli.ExitOK
}

// shownValues are the figures that the table and report.html show: all
// that run-dir and merge keep, per task for the comparison, once the
// summary is written (the page's rows are read back from the file).
func shownValues(columns string) []string {
	shown := cli.SplitList(columns)
	for _, m := range htmlreport.DefaultRunMetrics {
		if !slices.Contains(shown, m) {
			shown = append(shown, m)
		}
	}
	return shown
}
