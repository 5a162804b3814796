// Command retrievaltest measures how well a coding agent finds the code it
// needs, from the tool calls recorded in its traces.
//
// Usage:
//
//	retrievaltest <command> [flags] [arguments]
//
// Run "retrievaltest help" for the list of commands. Each command is flag
// wiring around the library packages; the -h text of each is in help/.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/historycmd"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/runcmd"
	// Every TRACE argument and scenario trace may be an http(s) URL.
	_ "github.com/agentretrieval/agentretrieval/trace/httpsource"
)

var commands = map[string]cli.Command{
	"check":       {Summary: "run scenario files and report whether every expectation holds", Run: runCheck},
	"collect":     {Summary: "receive OTLP traces and logs from agents and write them as trace files", Run: runCollect},
	"schema":      {Summary: "print the JSON Schema of scenario files", Run: runSchema},
	"init":        {Summary: "write a commented scenario for a trace, with thresholds from its measured figures", Run: runInit},
	"events":      {Summary: "write retrieval-events JSON for traces", Run: runEvents},
	"metrics":     {Summary: "write retrieval-metrics JSON for traces", Run: runMetrics},
	"trec":        {Summary: "evaluate TREC qrels and run files like trec_eval", Run: runTrec},
	"trec-export": {Summary: "write traces as a TREC run and ground truth as qrels", Run: runTrecExport},
	"run-dir":     {Summary: "evaluate every trial of a Harbor-style benchmark run folder", Run: withHelp("run-dir", runcmd.RunDir)},
	"merge":       {Summary: "join the shards of a run evaluated with run-dir -shard into its summary", Run: withHelp("merge", runcmd.Merge)},
	"dataset":     {Summary: "write Dataset A/B rows (file paths, line ranges) from traces", Run: runDataset},
	"compare":     {Summary: "compare two configurations of a run on matched tasks", Run: runCompare},
	"report":      {Summary: "write a markdown report of an evaluated run, with baseline deltas", Run: runReport},
	"formats":     {Summary: "list the trace formats that are read, and how each is recognized", Run: runFormats},
	"version":     {Summary: "print the version, commit and Go version of this binary", Run: runVersion},
	"view":        {Summary: "write an HTML page of traces with a timeline of their calls", Run: runView},
	"history":     {Summary: "list the runs recorded with -history (check, run-dir, merge), or their flaky expectations", Run: withHelp("history", historycmd.History)},
	"trend":       {Summary: "print a markdown table of figures over a branch's recorded runs, per scenario mean or configuration", Run: withHelp("trend", historycmd.Trend)},
}

func main() {
	// A build without the bucket drivers (or, made with -tags nodb or
	// noparquet, the database drivers or the Parquet library) hands a
	// command that needs them to the build that has them, and refuses it
	// at once when there is none (see delegate.go).
	if bin := cloudsBinary(os.Args[1:]); bin != "" {
		os.Exit(runIn(bin, os.Args[1:]))
	}
	if err := missingLibrary(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "retrievaltest %s: %v\n", os.Args[1], err)
		os.Exit(exitBadInput)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Dispatch(ctx, "retrievaltest", commands, args, stdin, stdout, stderr)
}

//go:embed help
var helpTexts embed.FS

// help returns the -h text of a command, from help/NAME.txt.
func help(name string) string {
	b, err := helpTexts.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("no help text for " + name) // a build without help/ is broken; a test reads every one
	}
	return string(b)
}

const (
	exitOK       = cli.ExitOK
	exitFailed   = cli.ExitFailed
	exitBadInput = cli.ExitBadInput
)

func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlags("retrievaltest "+name, usage, stderr)
}

// withHelp is the command of an internal package that takes its -h text.
func withHelp(name string, run func(context.Context, []string, io.Writer, io.Writer, string) int) cli.RunFunc {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return run(ctx, args, stdout, stderr, help(name))
	}
}

func failer(name string, stderr io.Writer) func(string, ...any) int {
	return cli.Failer("retrievaltest "+name, stderr)
}
