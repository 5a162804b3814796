// Command retrievaltest measures how well a coding agent finds the code it
// needs, from the tool calls recorded in its traces.
//
// Usage:
//
//	retrievaltest <command> [flags] [arguments]
//
// Run "retrievaltest help" for the list of commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/printable"
)

// Exit codes shared by every command.
const (
	exitOK       = 0
	exitFailed   = 1 // an expectation failed or a figure regressed
	exitBadInput = 2 // unreadable input, bad flags
)

type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"check":       {"run scenario files and report whether every expectation holds", runCheck},
	"schema":      {"print the JSON Schema of scenario files", runSchema},
	"events":      {"write retrieval-events JSON for traces", runEvents},
	"metrics":     {"write retrieval-metrics JSON for traces", runMetrics},
	"trec":        {"evaluate TREC qrels and run files like trec_eval", runTrec},
	"trec-export": {"write traces as a TREC run and ground truth as qrels", runTrecExport},
	"run-dir":     {"evaluate every trial of a Harbor-style benchmark run folder", runRunDir},
	"compare":     {"compare two configurations of a run on matched tasks", runCompare},
	"report":      {"write a markdown report of an evaluated run, with baseline deltas", runReport},
	"formats":     {"list the trace formats that are read, and how each is recognized", runFormats},
	"version":     {"print the version, commit and Go version of this binary", runVersion},
	"view":        {"write an HTML page of traces with a timeline of their calls", runView},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Messages quote names and text from input files: their control
	// characters are escaped, so a scenario name cannot retitle or clear
	// the terminal, here for every message at once.
	stderr = printable.NewWriter(stderr)
	if len(args) == 0 {
		usage(stderr)
		return exitBadInput
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "retrievaltest: unknown command %q\n\n", name)
		usage(stderr)
		return exitBadInput
	}
	return cmd.run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: retrievaltest <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "retrievaltest <command> -h" for a command's flags.`)
}

// newFlags returns a command's flag set; -h prints usage, then the flags.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("retrievaltest "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		printFlags(stderr, fs)
	}
	return fs
}

// printFlags lists a command's flags as flag.PrintDefaults does, each
// description indented under its flag and wrapped at 80 columns, so that
// long lists of values stay readable in a terminal.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		if !strings.Contains(usage, "(default") && f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			if fmt.Sprintf("%T", f.Value) == "*flag.stringValue" {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %v)", f.DefValue)
			}
		}
		fmt.Fprintln(w, line)
		for _, l := range wrapWords(usage, 80-6) {
			fmt.Fprintln(w, "      "+l)
		}
	})
}

// wrapWords breaks text into lines of at most width characters, at spaces;
// a longer word stays whole on its own line.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// parseFlags parses a command's arguments. When it returns false the
// command ends with the code: exitOK after -h, exitBadInput after a bad
// flag (the flag package has said which).
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	case err != nil:
		return exitBadInput, false
	}
	return exitOK, true
}

// failer returns the function a command reports bad input with: it prints
// "retrievaltest NAME: message" and returns exitBadInput.
func failer(name string, stderr io.Writer) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(stderr, "retrievaltest "+name+": "+format+"\n", a...)
		return exitBadInput
	}
}
