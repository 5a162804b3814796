package main

import (
	"context"
	"io"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/expectations"
)

// runSchema prints the JSON Schema of scenario files, generated from the
// same type definitions the loader checks against, for editors:
//
//	# yaml-language-server: $schema=./scenario.schema.json
func runSchema(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("schema", help("schema"), stderr)
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	fail := failer("schema", stderr)
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if _, err := stdout.Write(expectations.DefaultRegistry().JSONSchema()); err != nil {
		return fail("%v", err)
	}
	return exitOK
}
