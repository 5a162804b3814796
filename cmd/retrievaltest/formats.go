package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/trace"
)

const formatsUsage = `Usage: retrievaltest formats [-json]

Lists the trace formats the commands read, in the order they are tried, as
a markdown table: the name to force one with -format, whether it is also
read from a folder, whether one input may hold several sessions (see
-trace-id), an example file name, what writes it and how it is recognized.

Flags:
`

// runFormats is the "formats" command.
func runFormats(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("formats", formatsUsage, stderr)
	asJSON := fs.Bool("json", false, "write the list as a JSON array")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer("formats", stderr)
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	infos := trace.DefaultRegistry().Infos()
	var err error
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(infos)
	} else {
		err = report.WriteFormats(stdout, infos)
	}
	if err != nil {
		return fail("%v", err)
	}
	return exitOK
}
