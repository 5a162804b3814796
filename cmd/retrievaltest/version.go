package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
)

// Set by release builds: go build -ldflags "-X main.version=v1.2.3
// -X main.commit=<sha> -X main.date=<RFC 3339>" (see .goreleaser.yaml).
var version, commit, date string

// runVersion is the "version" command, also run by "--version".
func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("version", help("version"), stderr)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return failer("version", stderr)("takes no arguments, got %q", fs.Arg(0))
	}
	fmt.Fprintln(stdout, cli.Version("retrievaltest", cli.Stamp{Version: version, Commit: commit, Date: date}))
	return exitOK
}
