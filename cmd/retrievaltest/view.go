package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

const viewUsage = `Usage: retrievaltest view [flags] TRACE...

Writes a self-contained HTML page of the traces (every session of each):
their figures, a timeline of the calls by class with ground-truth hits and
patterns, and every call with its arguments, files, lines and result. It
prints the file's path; -open also shows it in the default browser.

Flags:
`

// runView is the "view" command.
func runView(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("view", viewUsage, stderr)
	gt := fs.String("gt", "", "ground truth `SPEC` (see \"retrievaltest metrics -h\")")
	format := fs.String("format", "", "trace format (default: detect; see \"retrievaltest formats\")")
	out := fs.String("o", "", "write the page to `FILE` (default: a new file in the temporary folder)")
	open := fs.Bool("open", false, "open the page in the default browser")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer("view", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no trace given")
	}
	measured, err := htmlreport.Load(fs.Args(), htmlreport.LoadOptions{GroundTruth: *gt, Format: *format,
		Warn: func(w string) { fmt.Fprintf(stderr, "warning: %s\n", w) }})
	if err != nil {
		return fail("%v", err)
	}
	if *out == "" {
		dir, err := os.MkdirTemp("", "retrievaltest-view-")
		if err != nil {
			return fail("%v", err)
		}
		*out = filepath.Join(dir, "view.html")
	}
	if err := htmlreport.WriteFile(*out, func(w io.Writer) error { return htmlreport.WriteTraces(w, measured) }); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintln(stdout, *out)
	if *open {
		if err := htmlreport.Open(*out); err != nil {
			fmt.Fprintf(stderr, "retrievaltest view: %v; open %s yourself\n", err, *out)
		}
	}
	return exitOK
}
