package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/trace"
)

// runFormats is the "formats" command.
func runFormats(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("formats", help("formats"), stderr)
	asJSON := fs.Bool("json", false, "write the list as a JSON array")
	if code, ok := cli.Parse(fs, args); !ok {
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
