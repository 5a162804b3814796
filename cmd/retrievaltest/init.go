package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/internal/scenarioinit"
)

// runInit writes a commented scenario proposed from one trace.
func runInit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := newFlags("init", help("init"), stderr)
	var (
		outFile = flags.String("o", "", "write the scenario to `FILE` (atomically; an existing file is left alone) instead of standard output")
		diff    = flags.String("diff", "", "take the files of the unified diff `FILE` for ground truth instead of those the agent changed")
		format  = flags.String("format", "", "trace format (default: detected)")
		traceID = flags.String("trace-id", "", "the session `ID` to read in a trace file that holds several (default: the first that changed a file)")
		ratio   = flags.Float64("ratio-margin", scenarioinit.DefaultRatioMargin, "taken off each measured ratio for its minimum")
		steps   = flags.Int("steps-margin", scenarioinit.DefaultStepsMargin, "added to the measured steps to the first relevant file for their maximum")
	)
	maxInput := cli.AddMaxInput(flags)
	if code, ok := cli.Parse(flags, args); !ok {
		return code
	}
	defer maxInput.Apply()()
	fail := failer("init", stderr)
	switch {
	case flags.NArg() != 1:
		flags.Usage()
		return fail("give one trace file")
	case *ratio < 0 || *ratio >= 1:
		return fail("-ratio-margin %v: expected a number in [0, 1)", *ratio)
	case *steps < 0:
		return fail("-steps-margin %d: expected 0 or more", *steps)
	}
	if *outFile != "" {
		if _, err := os.Lstat(*outFile); !errors.Is(err, fs.ErrNotExist) {
			return fail("%s exists: init never overwrites a scenario; remove it or choose another -o", *outFile)
		}
	}
	opts := scenarioinit.Options{Format: *format, TraceID: *traceID, Diff: *diff, Dir: filepath.Dir(*outFile),
		RatioMargin: *ratio, StepsMargin: *steps, MaxInputSize: int64(*maxInput)}
	text, err := scenarioinit.Propose(flags.Arg(0), opts)
	if err != nil {
		return fail("%v", err)
	}
	if *outFile == "" {
		_, err = stdout.Write(text)
	} else if err = atomicfile.WriteBytes(*outFile, text); err == nil {
		fmt.Fprintf(stderr, "retrievaltest init: wrote %s; check it with: retrievaltest check %s\n", *outFile, *outFile)
	}
	if err != nil {
		return fail("%v", err)
	}
	return exitOK
}
