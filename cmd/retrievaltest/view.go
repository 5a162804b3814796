package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

// runView is the "view" command.
func runView(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("view", help("view"), stderr)
	gt := fs.String("gt", "", "ground truth `SPEC` (see \"retrievaltest metrics -h\")")
	format := fs.String("format", "", "trace format (default: detect; see \"retrievaltest formats\")")
	out := fs.String("o", "", "write the page to `FILE` (default: a new file in the temporary folder)")
	open := fs.Bool("open", false, "open the page in the default browser")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	st, stderr := blobio.NewStage(0, stderr) // bucket URLs
	defer st.Close()
	fail := failer("view", stderr)
	if fs.NArg() == 0 {
		fs.Usage()
		return fail("no trace given")
	}
	names, err := st.Inputs(ctx, fs.Args()...)
	if err != nil {
		return fail("%v", err)
	}
	measured, err := htmlreport.Load(names, htmlreport.LoadOptions{GroundTruth: *gt, Format: *format, Name: st.Name,
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
