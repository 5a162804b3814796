package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
)

// runVersion is the "version" command.
func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("version", help("version"), stderr)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return failer("version", stderr)("takes no arguments, got %q", fs.Arg(0))
	}
	fmt.Fprintln(stdout, cli.Version("retrievaltest"))
	return exitOK
}
