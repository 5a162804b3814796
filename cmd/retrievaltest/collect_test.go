package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentretrieval/agentretrieval/trace"
)

// The test binary plays two more parts, chosen by RETRIEVALTEST_TEST_ROLE:
// "otlp-client" is a program that exports spans to the endpoint in its
// environment; "main" is retrievaltest itself, with its arguments, so
// that a test can send it real signals.
func TestMain(m *testing.M) {
	switch os.Getenv("RETRIEVALTEST_TEST_ROLE") {
	case "otlp-client":
		os.Exit(otlpClientMain())
	case "main":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func kv(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

// spanRequest is an OTLP request of one execute_tool span reading path.
func spanRequest(traceByte byte, n int, path string) []byte {
	tid := bytes.Repeat([]byte{traceByte}, 16)
	sid := []byte{1, 2, 3, 4, 5, 6, byte(n >> 8), byte(n)}
	start := uint64(1_700_000_000_000_000_000 + n*1_000_000)
	req := &coltrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", "cli-test")}},
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{
			TraceId: tid, SpanId: sid, Name: "execute_tool read_file", StartTimeUnixNano: start, EndTimeUnixNano: start + 1,
			Attributes: []*commonpb.KeyValue{kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "read_file"),
				kv("gen_ai.tool.call.id", fmt.Sprint("call-", n)), kv("gen_ai.tool.call.arguments", fmt.Sprintf(`{"path":%q}`, path))},
		}}}},
	}}}
	b, err := proto.Marshal(req)
	if err != nil {
		panic(err)
	}
	return b
}

// otlpClientMain posts two spans as OTLP/HTTP protobuf to
// $OTEL_EXPORTER_OTLP_ENDPOINT, as an exporter configured by the
// environment would.
func otlpClientMain() int {
	if p := os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p != "http/protobuf" {
		fmt.Fprintln(os.Stderr, "unexpected protocol", p)
		return 90
	}
	for i, path := range []string{"a.go", "b.go"} {
		resp, err := http.Post(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")+"/v1/traces", "application/x-protobuf", bytes.NewReader(spanRequest(0xab, i, path)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 91
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			fmt.Fprintln(os.Stderr, "status", resp.Status)
			return 92
		}
	}
	fmt.Println("exported 2 spans")
	return 0
}

// collect -- sh -c '…' runs the command with the exporter variables,
// passes on its exit status and prints the file it wrote.
func TestCollectRunsACommandAndPrintsItsTraceFiles(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	t.Setenv("RETRIEVALTEST_TEST_ROLE", "otlp-client")
	dir := t.TempDir()
	code, out, stderr := runCLI(t, nil, "collect", "-out", dir, "--", sh, "-c", `"$0" && exit 4`, os.Args[0])
	assert.Equal(t, 4, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	assert.Equal(t, "exported 2 spans", lines[0])
	assert.Equal(t, filepath.Join(dir, strings.Repeat("ab", 16)+".jsonl"), lines[1])
	s, err := trace.ReadFile(lines[1], trace.Options{})
	require.NoError(t, err)
	require.Len(t, s.Calls, 2)
	assert.JSONEq(t, `{"path":"b.go"}`, string(s.Calls[1].Arguments))
}

// lineWaiter collects written text and hands over the first line that
// matches.
type lineWaiter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	re    *regexp.Regexp
	found chan string
	once  sync.Once
}

func newLineWaiter(re string) *lineWaiter {
	return &lineWaiter{re: regexp.MustCompile(re), found: make(chan string, 1)}
}

func (w *lineWaiter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := w.re.FindStringSubmatch(w.buf.String()); m != nil {
		w.once.Do(func() { w.found <- m[1] })
	}
	return len(p), nil
}

// collect serves until its context ends, then prints the files written.
func TestCollectServesUntilStoppedAndPrintsTheFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := newLineWaiter(`listening on (http://\S+),`)
	var stdout bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"collect", "-addr", "127.0.0.1:0", "-out", dir, "-max-request-size", "2KiB"}, strings.NewReader(""), &stdout, stderr)
	}()
	url := <-stderr.found
	resp, err := http.Post(url+"/v1/traces", "application/x-protobuf", bytes.NewReader(spanRequest(0xcd, 1, "a.go")))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = http.Post(url+"/v1/traces", "application/x-protobuf", bytes.NewReader(spanRequest(0xcd, 2, strings.Repeat("x", 4096))))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "-max-request-size applies")
	cancel()
	assert.Equal(t, exitOK, <-done)
	assert.Equal(t, filepath.Join(dir, strings.Repeat("cd", 16)+".jsonl")+"\n", stdout.String())
}

func TestCollectRefusesBadSettings(t *testing.T) {
	t.Setenv("RETRIEVALTEST_COLLECT_TOKEN", "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an address that is not loopback needs a token", []string{"-addr", "0.0.0.0:0"}, "bearer token is required"},
		{"an unknown grouping is refused", []string{"-group", "day"}, "unknown grouping"},
		{"a request size of zero is refused", []string{"-max-request-size", "0"}, "more than 0"},
		{"no concurrency is refused", []string{"-max-concurrent", "0"}, "at least 1"},
		{"a memory budget of zero is refused", []string{"-max-memory", "0"}, "more than 0"},
		{"-addr does not go with a command", []string{"-addr", "127.0.0.1:0", "--", "true"}, "-addr does not go with a command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, append([]string{"collect", "-out", t.TempDir()}, tc.args...)...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// serveUnderLoad starts a real retrievaltest collect, posts spans from
// 16 clients until 150 are acknowledged, sends sig, and waits for the
// process and the clients. It returns the process's standard output, the
// number of spans acknowledged and how the process ended.
func serveUnderLoad(t *testing.T, dir string, sig os.Signal) (string, int64, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "collect", "-addr", "127.0.0.1:0", "-out", dir)
	cmd.Env = append(os.Environ(), "RETRIEVALTEST_TEST_ROLE=main")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(errPipe)
	require.True(t, sc.Scan(), "the server says where it listens")
	m := regexp.MustCompile(`listening on (http://\S+),`).FindStringSubmatch(sc.Text())
	require.NotNil(t, m, sc.Text())
	go func() { _, _ = io.Copy(io.Discard, errPipe) }()

	const workers = 16
	var acked atomic.Int64
	enough := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	c := &http.Client{Timeout: time.Minute}
	for w := range workers {
		wg.Go(func() {
			for i := 0; i < 2000; i++ {
				resp, err := c.Post(m[1]+"/v1/traces", "application/x-protobuf", bytes.NewReader(spanRequest(byte(w+1), w*2000+i, "f.go")))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return
				}
				if acked.Add(1) >= 150 {
					once.Do(func() { close(enough) })
				}
			}
		})
	}
	<-enough
	require.NoError(t, cmd.Process.Signal(sig))
	werr := cmd.Wait()
	wg.Wait()
	return stdout.String(), acked.Load(), werr
}

// countCalls reads every file and counts the calls; warnings other than
// a last line cut short fail the test, and cut says whether one was.
func countCalls(t *testing.T, files []string) (calls int, cut bool) {
	t.Helper()
	for _, f := range files {
		all, err := trace.ReadFileAll(f, trace.Options{})
		require.NoError(t, err)
		for _, s := range all {
			for _, w := range s.Warnings {
				if !strings.Contains(w.Message, "cut short") {
					t.Errorf("%s: %s", f, w)
				}
				cut = true
			}
			calls += len(s.Calls)
		}
	}
	return calls, cut
}

// SIGTERM to a real retrievaltest collect while clients post: it exits
// 0, prints the files, every file reads without a warning, and every
// acknowledged span is in them.
func TestCollectStopsCleanlyOnSIGTERMUnderLoad(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	dir := t.TempDir()
	stdout, acked, werr := serveUnderLoad(t, dir, syscall.SIGTERM)
	require.NoError(t, werr, "exit status 0")
	files := strings.Fields(stdout)
	require.NotEmpty(t, files)
	calls, cut := countCalls(t, files)
	assert.False(t, cut, "a clean stop cuts no line")
	// A request written whose answer its client never read is in the
	// files without being counted; at most one per client.
	assert.GreaterOrEqual(t, int64(calls), acked)
	assert.LessOrEqual(t, int64(calls), acked+16)
}

// SIGKILL (a crash of the process) under load: every span acknowledged is
// in the files, since a request is answered only once written; at most
// the request in flight is lost.
func TestCollectKilledUnderLoadKeepsEveryAcknowledgedSpan(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("a test of signals")
	}
	dir := t.TempDir()
	_, acked, werr := serveUnderLoad(t, dir, syscall.SIGKILL)
	require.Error(t, werr, "killed")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	calls, _ := countCalls(t, files)
	assert.GreaterOrEqual(t, int64(calls), acked)
	assert.LessOrEqual(t, int64(calls), acked+16)
}

// check with a scenario whose run key names a command records the run,
// then judges it; the outcome follows what the command exported.
func TestCheckRecordsAScenarioRunThenJudgesIt(t *testing.T) {
	t.Setenv("RETRIEVALTEST_TEST_ROLE", "otlp-client")
	t.Setenv("TMPDIR", t.TempDir()) // where the recordings go
	dir := t.TempDir()
	write := func(name, expectation string) string {
		path := filepath.Join(dir, name)
		src := fmt.Sprintf("run: [%q]\nexpectations:\n  - type: tools\n    %s\n", os.Args[0], expectation)
		require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
		return path
	}
	pass := write("pass.yaml", "must_call: [read_file]")
	fail := write("fail.yaml", "must_not_call: [read_file]")
	code, out, stderr := runCLI(t, nil, "check", pass)
	assert.Equal(t, exitOK, code, "%s\n%s", out, stderr)
	code, out, stderr = runCLI(t, nil, "check", fail)
	assert.Equal(t, exitFailed, code, "%s\n%s", out, stderr)
	assert.Contains(t, out+stderr, "read_file")
}

// SIGTERM to a real retrievaltest collect while ten clients trickle
// their bodies a byte a second: it exits 0 without waiting for them, and
// every span acknowledged before is in the files.
func TestCollectStopsOnSIGTERMWhileSlowClientsTrickle(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "collect", "-addr", "127.0.0.1:0", "-out", dir)
	cmd.Env = append(os.Environ(), "RETRIEVALTEST_TEST_ROLE=main")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(errPipe)
	require.True(t, sc.Scan(), "the server says where it listens")
	m := regexp.MustCompile(`listening on http://(\S+),`).FindStringSubmatch(sc.Text())
	require.NotNil(t, m, sc.Text())
	go func() { _, _ = io.Copy(io.Discard, errPipe) }()

	done := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(done)
	for range 10 {
		conn, err := net.Dial("tcp", m[1])
		require.NoError(t, err)
		fmt.Fprintf(conn, "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\nContent-Length: 100000\r\n\r\n")
		wg.Go(func() {
			defer conn.Close()
			for range 100 {
				if _, err := conn.Write([]byte{0}); err != nil {
					return
				}
				select {
				case <-done:
					return
				case <-time.After(time.Second):
				}
			}
		})
	}
	for i := range 5 {
		resp, err := http.Post("http://"+m[1]+"/v1/traces", "application/x-protobuf", bytes.NewReader(spanRequest(0xab, i, "f.go")))
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Only to catch a hang: the slow bodies used to hold it for 90 s.
	select {
	case err := <-exited:
		require.NoError(t, err, "exit status 0")
	case <-time.After(20 * time.Second):
		t.Fatal("collect did not exit on SIGTERM while slow clients were sending")
	}
	calls, cut := countCalls(t, strings.Fields(stdout.String()))
	assert.False(t, cut)
	assert.Equal(t, 5, calls)
}

func TestCollectSaysSoWhenACommandExportsNothing(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	code, out, stderr := runCLI(t, nil, "collect", "-out", dir, "--", sh, "-c", "echo hi")
	assert.Equal(t, exitFailed, code, "a recording of nothing is no success")
	assert.Equal(t, "hi\n", out, "the command's own output only")
	assert.Contains(t, stderr, "retrievaltest collect: "+sh+" exited 0 but exported no span or log record, so no trace was written; "+
		"it must export OTLP to OTEL_EXPORTER_OTLP_ENDPOINT")
	entries, err := os.ReadDir(dir)
	if err == nil {
		assert.Empty(t, entries)
	}

	code, _, stderr = runCLI(t, nil, "collect", "-out", dir, "--", sh, "-c", "exit 3")
	assert.Equal(t, 3, code, "a failing command's status is kept")
	assert.NotContains(t, stderr, "exported no span")
}
