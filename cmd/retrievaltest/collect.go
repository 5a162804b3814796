package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/collect"
)

// runCollect is the "collect" command.
func runCollect(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("collect", help("collect"), stderr)
	addr := fs.String("addr", collect.DefaultAddr, "listen on `HOST:PORT`; an address that is not loopback needs a token")
	out := fs.String("out", "traces", "write the trace files into `DIR` (created when missing)")
	token := fs.String("token", "", "require this bearer `TOKEN` of every request (default: $RETRIEVALTEST_COLLECT_TOKEN)")
	group := fs.String("group", "trace", "`NAME` of the grouping: trace (a file per trace id) or session (a file per service.name and session id)")
	size := cli.Size(collect.DefaultMaxRequestBytes)
	fs.Var(&size, "max-request-size", "largest request body, sent or decompressed, as a `SIZE` such as 4MiB (default 16 MiB)")
	concurrent := fs.Int("max-concurrent", collect.DefaultMaxConcurrent, "requests decoded and written at once; others wait their turn once read")
	memory := cli.Size(0)
	fs.Var(&memory, "max-memory", "estimated memory of all the requests in flight, as a `SIZE`; a request that does not fit is told to retry (429) (default 32 times -max-request-size)")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	fail := failer("collect", stderr)
	g, err := collect.ParseGroup(*group)
	if err != nil {
		return fail("-group: %v", err)
	}
	if *concurrent < 1 {
		return fail("-max-concurrent: want at least 1, got %d", *concurrent)
	}
	opts := collect.Options{Dir: *out, Group: g, MaxRequestBytes: int64(size), MaxConcurrent: *concurrent,
		MaxMemory: int64(memory),
		Token:     cmp.Or(*token, os.Getenv("RETRIEVALTEST_COLLECT_TOKEN"))}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	if fs.NArg() > 0 {
		addrGiven := false
		fs.Visit(func(f *flag.Flag) { addrGiven = addrGiven || f.Name == "addr" })
		if addrGiven {
			return fail("-addr does not go with a command, which gets a free loopback port")
		}
		res, err := collect.RunCommand(ctx, opts, collect.Command{Args: fs.Args(), Stdin: stdin, Stdout: stdout, Stderr: stderr})
		printFiles(stdout, res.Files)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "retrievaltest collect: %v\n", err)
			return cmp.Or(res.ExitCode, exitFailed)
		case res.ExitCode == 0 && len(res.Files) == 0:
			fmt.Fprintf(stderr, "retrievaltest collect: %s exited 0 but exported no span or log record, so no trace was written; %s\n",
				fs.Arg(0), collect.NothingExportedHint)
			return exitFailed
		}
		return res.ExitCode
	}

	srv, err := collect.Listen(*addr, opts)
	if err != nil {
		return fail("%v (set -token or RETRIEVALTEST_COLLECT_TOKEN, or listen on 127.0.0.1)", err)
	}
	fmt.Fprintf(stderr, "retrievaltest collect: listening on %s, writing to %s; stop with Ctrl-C\n", srv.Endpoint(), *out)
	err = srv.Serve(ctx)
	printFiles(stdout, srv.Files())
	if err != nil {
		fmt.Fprintf(stderr, "retrievaltest collect: %v\n", err)
		return exitFailed
	}
	return exitOK
}

func printFiles(w io.Writer, files []string) {
	for _, f := range files {
		fmt.Fprintln(w, f)
	}
}
