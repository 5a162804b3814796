// Package cli is the frame of the retrievaltest command: the command table
// and its dispatch, flag sets whose -h text fits a terminal, the exit codes
// and the one way a command reports bad input, and the flag groups several
// commands share (how traces are read and classified, which metrics are
// computed) with what they resolve to. Commands themselves are flag wiring
// around the library packages.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/printable"
)

// Exit codes shared by every command.
const (
	ExitOK       = 0
	ExitFailed   = 1 // an expectation failed or a figure regressed
	ExitBadInput = 2 // unreadable input, bad flags
)

// RunFunc runs one command with its arguments (the command name removed)
// and returns its exit code.
type RunFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Command is one entry of the command table.
type Command struct {
	Summary string // one line for the command list
	Run     RunFunc
}

// Dispatch runs the command args[0] names from the table, or prints the
// command list for "help" and -h. Every message on stderr has its control
// characters escaped: a scenario or task name quoted in one cannot retitle
// or clear the terminal.
func Dispatch(ctx context.Context, program string, commands map[string]Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stderr = printable.NewWriter(stderr)
	if len(args) == 0 {
		usage(stderr, program, commands)
		return ExitBadInput
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout, program, commands)
		return ExitOK
	case "-version", "--version":
		if v, ok := commands["version"]; ok {
			return v.Run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", program, args[0])
		usage(stderr, program, commands)
		return ExitBadInput
	}
	return cmd.Run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer, program string, commands map[string]Command) {
	fmt.Fprintf(w, "Usage: %s <command> [flags] [arguments]\n\nCommands:\n", program)
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintf(w, "\nRun \"%s <command> -h\" for a command's flags", program)
	if _, ok := commands["version"]; ok {
		fmt.Fprintf(w, "; \"%s --version\" is \"%s version\"", program, program)
	}
	fmt.Fprintln(w, ".")
}

// NewFlags returns a command's flag set; -h prints usage, then the flags.
func NewFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		PrintFlags(stderr, fs)
	}
	return fs
}

// PrintFlags lists a command's flags as flag.PrintDefaults does, each
// description indented under its flag and wrapped at 80 columns, so that
// long lists of values stay readable in a terminal.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
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
		for _, l := range WrapWords(usage, 80-6) {
			fmt.Fprintln(w, "      "+l)
		}
	})
}

// WrapWords breaks text into lines of at most width characters, at spaces;
// a longer word stays whole on its own line.
func WrapWords(text string, width int) []string {
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

// Parse parses a command's arguments. When it returns false the command
// ends with the code: ExitOK after -h, ExitBadInput after a bad flag (the
// flag package has said which).
func Parse(fs *flag.FlagSet, args []string) (int, bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return ExitOK, false
	case err != nil:
		return ExitBadInput, false
	}
	return ExitOK, true
}

// Failer returns the function a command reports bad input with: it prints
// "PREFIX: message" and returns ExitBadInput.
func Failer(prefix string, stderr io.Writer) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(stderr, prefix+": "+format+"\n", a...)
		return ExitBadInput
	}
}

// SplitList splits a comma-separated flag value, dropping blank items.
func SplitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// PrintErrors prints each error that err joins (errors.Join), or err
// alone, on a line of its own after the prefix.
func PrintErrors(w io.Writer, prefix string, err error) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		fmt.Fprintf(w, "%s: %v\n", prefix, e)
	}
}

// IntFunc defines an integer flag whose text parse reads (trec_eval's
// integers are not Go's: "010" is 10 there, 8 here).
func IntFunc(fs *flag.FlagSet, name string, value int, usage string, parse func(string) (int, error)) *int {
	p := &value
	fs.Var(intFunc{p, parse}, name, usage)
	return p
}

type intFunc struct {
	p     *int
	parse func(string) (int, error)
}

func (v intFunc) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intFunc) Set(s string) error {
	n, err := v.parse(s)
	if err == nil {
		*v.p = n
	}
	return err
}

// HasFlag reports whether a flag of one of the names is given before the
// arguments end (at "--"), as -name, --name or -name=value.
func HasFlag(args []string, names ...string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, ok := strings.CutPrefix(a, "-")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}
