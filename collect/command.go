package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Command is a program to record with RunCommand.
type Command struct {
	Args   []string // the program and its arguments
	Env    []string // its environment before the exporter variables; nil means os.Environ()
	Dir    string   // its working folder; "" means the current one
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Result is what RunCommand recorded.
type Result struct {
	// ExitCode is the command's exit status; a command ended by a signal
	// has 128 plus the signal's number, as a shell reports it.
	ExitCode int
	// Files are the trace files written to, sorted.
	Files []string
}

// NothingExportedHint says what a recorded command that exported nothing
// must do, for the messages that report it.
const NothingExportedHint = "it must export OTLP to OTEL_EXPORTER_OTLP_ENDPOINT, which the receiver sets " +
	"(Claude Code needs CLAUDE_CODE_ENABLE_TELEMETRY=1; see retrievaltest collect -h)"

// KillDelay is how long RunCommand waits, after passing on a stop
// (its context done), for the command to exit before it kills it.
const KillDelay = 10 * time.Second

// RunCommand records one run of a command: it starts a receiver on a
// free loopback port, runs the command with the exporter variables
// pointing at it (ExporterEnv), and when the command exits waits for the
// requests it sent to be written and stops. When ctx is done first, the
// command is asked to stop (SIGTERM) and killed after KillDelay.
//
// The error is about the recording (the command did not start, a file
// could not be written); the command's own failure is Result.ExitCode.
func RunCommand(ctx context.Context, opts Options, c Command) (Result, error) {
	if len(c.Args) == 0 {
		return Result{}, errors.New("no command given")
	}
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Env, c.Dir, c.Stdin, c.Stdout, c.Stderr
	files, err := recordCommand(ctx, opts, cmd)
	return Result{ExitCode: exitCode(cmd.ProcessState), Files: files}, err
}

// ErrNothingExported is Record's error when the command exported no span
// and no log record.
var ErrNothingExported = errors.New("the command exported no span or log record to the receiver; " + NothingExportedHint)

// Record records one run of cmd, which is not started yet, as RunCommand
// does, the trace files written under dir, with the exporter variables
// added to cmd.Env (nil means os.Environ()). It returns the files written,
// sorted, or ErrNothingExported when there are none; the command's own
// exit status is in cmd.ProcessState. It is an expectations.Recorder, the
// one the retrievaltest command runs a scenario's run key with:
//
//	expectations.EvalOptions{Recorder: collect.Record}
//	retrievaltest.Options{Recorder: collect.Record}
func Record(ctx context.Context, dir string, cmd *exec.Cmd) ([]string, error) {
	files, err := recordCommand(ctx, Options{Dir: dir}, cmd)
	if err == nil && len(files) == 0 {
		err = ErrNothingExported
	}
	return files, err
}

// recordCommand runs cmd under a receiver on a free loopback port and returns
// the files the receiver wrote.
func recordCommand(ctx context.Context, opts Options, cmd *exec.Cmd) ([]string, error) {
	if cmd.Process != nil {
		return nil, errors.New("the command is already started")
	}
	srv, err := Listen("127.0.0.1:0", opts)
	if err != nil {
		return nil, err
	}
	serveCtx, stopServe := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx) }()
	stop := func() error {
		stopServe()
		return <-served
	}

	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = ExporterEnv(env, srv.Endpoint(), opts.Token)
	if err := cmd.Start(); err != nil {
		stop()
		return nil, fmt.Errorf("starting the command: %w", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-ctx.Done():
		if cmd.Process.Signal(syscall.SIGTERM) != nil {
			_ = cmd.Process.Kill()
		}
		select {
		case werr = <-waited:
		case <-time.After(KillDelay):
			_ = cmd.Process.Kill()
			werr = <-waited
		}
	}
	serr := stop()
	files := srv.Files()
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return files, fmt.Errorf("waiting for the command: %w", werr)
	}
	return files, serr
}

// exitCode is a process's status as a shell reports it.
func exitCode(st *os.ProcessState) int {
	if st == nil {
		return 1
	}
	if code := st.ExitCode(); code >= 0 {
		return code
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 1
}

// exporterVars are the variables ExporterEnv sets or, when a signal's
// own variable would send elsewhere, removes.
var exporterVars = []string{
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_TRACES_EXPORTER", "OTEL_LOGS_EXPORTER",
	"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
	"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
}

// ExporterEnv returns env with the standard OpenTelemetry exporter
// variables set to send traces and logs to endpoint as OTLP/HTTP
// protobuf: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL
// (http/protobuf), OTEL_TRACES_EXPORTER and OTEL_LOGS_EXPORTER (otlp).
// The per-signal endpoint and protocol variables are removed, since they
// would win over these. With a token, OTEL_EXPORTER_OTLP_HEADERS carries
// it (and the per-signal header variables are removed).
func ExporterEnv(env []string, endpoint, token string) []string {
	drop := map[string]bool{}
	for _, k := range exporterVars {
		drop[k] = true
	}
	if token != "" {
		for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS"} {
			drop[k] = true
		}
	}
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	out = append(out,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint,
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_TRACES_EXPORTER=otlp",
		"OTEL_LOGS_EXPORTER=otlp",
	)
	if token != "" {
		// The variable is a list of key=value pairs whose values are
		// percent-encoded (the SDK environment variable specification);
		// every byte but letters, digits and -_.~ is escaped, the space as
		// %20, so that SDKs that unescape as a path or as a query agree.
		v := strings.ReplaceAll(url.QueryEscape("Bearer "+token), "+", "%20")
		out = append(out, "OTEL_EXPORTER_OTLP_HEADERS=Authorization="+v)
	}
	return out
}
