package collect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The test binary doubles as the command RunCommand records: run with
// COLLECT_TEST_CHILD set, it is a small agent that exports spans with the
// OpenTelemetry Go SDK to the endpoint its environment names.
func TestMain(m *testing.M) {
	if mode := os.Getenv("COLLECT_TEST_CHILD"); mode != "" {
		os.Exit(childMain(mode))
	}
	os.Exit(m.Run())
}

// childMain exports two execute_tool spans under an invoke_agent span.
// Mode "spans" exits with COLLECT_TEST_EXIT; mode "wait" exports, says
// "ready" and waits for SIGTERM, then exits 7.
func childMain(mode string) int {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_TRACES_EXPORTER", "OTEL_LOGS_EXPORTER"} {
		fmt.Printf("%s=%s\n", k, os.Getenv(k))
	}
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx) // configured by the OTEL_EXPORTER_OTLP_* variables
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 99
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "child-agent"))))
	tr := tp.Tracer("collect-test")
	actx, agent := tr.Start(ctx, "invoke_agent child")
	agent.SetAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "child-agent"))
	for i, path := range []string{"main.go", "util.go"} {
		_, sp := tr.Start(actx, "execute_tool read_file")
		sp.SetAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", "read_file"),
			attribute.String("gen_ai.tool.call.id", fmt.Sprint("call_", i)),
			attribute.String("gen_ai.tool.call.arguments", fmt.Sprintf(`{"path":%q}`, path)),
		)
		sp.End()
	}
	agent.End()
	code := 0
	if mode == "wait" {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		fmt.Println("ready")
		<-sigs
		code = 7
	} else {
		code, _ = strconv.Atoi(os.Getenv("COLLECT_TEST_EXIT"))
	}
	if err := tp.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		return 98
	}
	return code
}

// childEnv is the environment of a child run: this one's, with the mode.
func childEnv(mode string, extra ...string) []string {
	return append(append(os.Environ(), "COLLECT_TEST_CHILD="+mode), extra...)
}

// RunCommand runs a real program that exports with the OpenTelemetry SDK
// to the endpoint it is given, writes its trace, and returns its exit
// status and the file.
func TestRunCommandRecordsAProgramThatExportsWithTheSDK(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := RunCommand(context.Background(), Options{Dir: dir}, Command{
		Args: []string{os.Args[0], "-test.run=^$"}, Env: childEnv("spans", "COLLECT_TEST_EXIT=3",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://192.0.2.1:1/elsewhere"),
		Stdout: &stdout, Stderr: &stderr,
	})
	require.NoError(t, err, stderr.String())
	assert.Equal(t, 3, res.ExitCode, "the command's exit status is passed on")
	assert.Contains(t, stdout.String(), "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:")
	assert.Contains(t, stdout.String(), "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
	assert.Contains(t, stdout.String(), "OTEL_TRACES_EXPORTER=otlp")
	assert.Contains(t, stdout.String(), "OTEL_LOGS_EXPORTER=otlp")
	require.Len(t, res.Files, 1, stderr.String())
	s := readSessions(t, res.Files[0])
	require.Len(t, s, 1)
	assert.Equal(t, "child-agent", s[0].Agent)
	require.Len(t, s[0].Calls, 2)
	assert.JSONEq(t, `{"path":"main.go"}`, string(s[0].Calls[0].Arguments))
	assert.JSONEq(t, `{"path":"util.go"}`, string(s[0].Calls[1].Arguments))
}

// With a token, the child gets it in OTEL_EXPORTER_OTLP_HEADERS, escaped
// so that the SDK sends it back intact.
func TestRunCommandPassesTheTokenToTheExporter(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	res, err := RunCommand(context.Background(), Options{Dir: t.TempDir(), Token: "a b+c/d=e,f%"}, Command{
		Args: []string{os.Args[0], "-test.run=^$"}, Env: childEnv("spans"), Stdout: io.Discard, Stderr: &stderr,
	})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode, stderr.String())
	assert.Len(t, res.Files, 1, "the exporter was let in with the token")
}

func TestRunCommandReportsACommandThatDoesNotStart(t *testing.T) {
	t.Parallel()
	_, err := RunCommand(context.Background(), Options{Dir: t.TempDir()}, Command{Args: []string{"./no-such-program-here"}})
	assert.Error(t, err)
	_, err = RunCommand(context.Background(), Options{Dir: t.TempDir()}, Command{})
	assert.ErrorContains(t, err, "no command")
}

// readyWriter closes ready when the child has said "ready".
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	once  sync.Once
	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "ready\n") {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

// When RunCommand is stopped, the command gets SIGTERM, may finish its
// export, and what it sent is written.
func TestStoppingRunCommandStopsTheCommandAndKeepsItsSpans(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &readyWriter{ready: make(chan struct{})}
	type result struct {
		res Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := RunCommand(ctx, Options{Dir: t.TempDir()}, Command{
			Args: []string{os.Args[0], "-test.run=^$"}, Env: childEnv("wait"), Stdout: out, Stderr: io.Discard,
		})
		done <- result{res, err}
	}()
	<-out.ready
	cancel()
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, 7, r.res.ExitCode, "the command saw SIGTERM")
	require.Len(t, r.res.Files, 1)
	assert.Len(t, readSessions(t, r.res.Files[0])[0].Calls, 2)
}

func TestExporterEnvReplacesTheExporterVariables(t *testing.T) {
	t.Parallel()
	env := ExporterEnv([]string{"PATH=/bin", "OTEL_EXPORTER_OTLP_ENDPOINT=http://x", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT=http://y",
		"OTEL_EXPORTER_OTLP_HEADERS=k=v", "OTEL_SERVICE_NAME=me"}, "http://127.0.0.1:5", "")
	assert.Equal(t, []string{"PATH=/bin", "OTEL_EXPORTER_OTLP_HEADERS=k=v", "OTEL_SERVICE_NAME=me",
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:5", "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_TRACES_EXPORTER=otlp", "OTEL_LOGS_EXPORTER=otlp"}, env)
	env = ExporterEnv([]string{"OTEL_EXPORTER_OTLP_HEADERS=k=v"}, "http://127.0.0.1:5", "t k+n")
	assert.Equal(t, "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20t%20k%2Bn", env[len(env)-1])
	assert.NotContains(t, env, "OTEL_EXPORTER_OTLP_HEADERS=k=v")
}

// The command may be a shell line that starts the exporter: the
// variables reach the grandchild through the shell.
func TestRunCommandThroughAShell(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	res, err := RunCommand(context.Background(), Options{Dir: t.TempDir()}, Command{
		Args: []string{sh, "-c", `"$0" -test.run='^$' && exit 6`, os.Args[0]}, Env: childEnv("spans"), Stdout: io.Discard, Stderr: io.Discard,
	})
	require.NoError(t, err)
	assert.Equal(t, 6, res.ExitCode)
	require.Len(t, res.Files, 1)
	assert.Len(t, readSessions(t, res.Files[0])[0].Calls, 2)
}

// Record is RunCommand for an exec.Cmd made by its caller (an
// expectations.Recorder): the exporter variables are added to the
// command's environment, its exit status stays in its ProcessState, and a
// command that exports nothing is ErrNothingExported.
func TestRecordRecordsACommandOfTheCaller(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(childEnv("spans"), "COLLECT_TEST_EXIT=4")
	var out strings.Builder
	cmd.Stdout = &out
	files, err := Record(context.Background(), dir, cmd)
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.Equal(t, dir, filepath.Dir(files[0]))
	assert.Len(t, readSessions(t, files[0])[0].Calls, 2)
	assert.Equal(t, 4, cmd.ProcessState.ExitCode())
	assert.Contains(t, out.String(), "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")

	quiet := exec.Command(os.Args[0], "-test.run=^$")
	files, err = Record(context.Background(), t.TempDir(), quiet)
	require.ErrorIs(t, err, ErrNothingExported)
	assert.Empty(t, files)
	assert.True(t, quiet.ProcessState.Success())

	_, err = Record(context.Background(), t.TempDir(), quiet)
	assert.ErrorContains(t, err, "already started")
}
