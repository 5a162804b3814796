package expectations

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/collect"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// The test binary doubles as the agent a run key records: with the
// arguments "export-toolcalls FILE" it exports the calls of a tool-call
// records file as execute_tool spans, OTLP/HTTP protobuf, to the endpoint
// its environment names, as an instrumented agent would.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "export-toolcalls" {
		os.Exit(exportToolCalls(os.Args[2]))
	}
	os.Exit(m.Run())
}

func exportToolCalls(file string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	var rec struct {
		ToolCalls []struct {
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
			Result    string          `json:"result"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	traceID := bytes.Repeat([]byte{0x5e}, 16)
	var spans []*tracepb.Span
	for i, c := range rec.ToolCalls {
		sid := make([]byte, 8)
		binary.BigEndian.PutUint64(sid, uint64(i+1))
		start := uint64(1_700_000_000_000_000_000 + i*1_000_000_000)
		spans = append(spans, &tracepb.Span{TraceId: traceID, SpanId: sid, Name: "execute_tool " + c.Tool,
			StartTimeUnixNano: start, EndTimeUnixNano: start + 1,
			Attributes: []*commonpb.KeyValue{str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", c.Tool),
				str("gen_ai.tool.call.id", "call_"+strconv.Itoa(i)), str("gen_ai.tool.call.arguments", string(c.Arguments)),
				str("gen_ai.tool.call.result", c.Result)}})
	}
	body, err := proto.Marshal(&coltrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}}}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	resp, err := http.Post(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, resp.Status)
		return 5
	}
	return 0
}

// runOf is a run key that makes the test binary export file (relative to
// the scenario's folder).
func runOf(file string) string {
	b, _ := json.Marshal([]string{os.Args[0], "export-toolcalls", file})
	return "run: " + string(b) + "\n"
}

// A scenario with run is recorded, then judged on the recorded trace.
func TestARunIsRecordedThenJudged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustParse(t, runOf("../traces/index-first-then-edit.toolcalls.json")+"ground_truth: [pkg/auth/token.go]\n"+
		exp("", "index_usage", "min_semantic_ratio: 0.6"))
	require.Nil(t, s.Traces, "nothing is run when the file is loaded")
	res, err := Evaluate(s, EvalOptions{RecordDir: dir, Recorder: collect.Record})
	require.NoError(t, err)
	require.Len(t, res.Runs, 1)
	assert.False(t, res.Failed(), "%+v", res.Results[0])
	assert.Equal(t, filepath.Join(dir, strings.Repeat("5e", 16)+".jsonl"), res.Runs[0].Trace)
	assert.FileExists(t, filepath.Join(dir, "output.log"))
}

func TestARunThatFailsOrExportsNothingIsAnError(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, run, want string }{
		{"a command that exits non-zero", runOf("no-such-file.json"), "exited with status 3"},
		{"a command that exports nothing", `run: "exit 0"` + "\n", "exported no span or log record"},
		{"a command that does not start", `run: [./no-such-program-here]` + "\n", "starting the command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tc.run+exp("", "tools", "max_calls: 3"))
			_, err := Evaluate(s, EvalOptions{RecordDir: t.TempDir(), Recorder: collect.Record})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), inlineFile)
		})
	}
}

// The receiver is the caller's: without one, a run key is an error that
// says where to get it, and nothing is run.
func TestARunNeedsARecorder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustParse(t, runOf("../traces/index-first-then-edit.toolcalls.json")+exp("", "tools", "max_calls: 3"))
	_, err := Evaluate(s, EvalOptions{RecordDir: dir})
	require.ErrorIs(t, err, ErrNoRecorder)
	assert.Contains(t, err.Error(), "collect.Record")
	assert.NoFileExists(t, filepath.Join(dir, "output.log"), "nothing is run")
}

// A Recorder is any function that runs the command under a receiver: the
// scenario's runs are the files it returns, and the command runs in the
// scenario's folder with its output in output.log.
func TestARecorderOfYourOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace, err := filepath.Abs("testdata/traces/index-first-then-edit.toolcalls.json")
	require.NoError(t, err)
	s := mustParse(t, `run: "echo recorded"`+"\n"+exp("", "tools", "max_calls: 4"))
	var gotDir, gotCmdDir string
	res, err := Evaluate(s, EvalOptions{RecordDir: dir, Recorder: func(ctx context.Context, d string, cmd *exec.Cmd) ([]string, error) {
		gotDir, gotCmdDir = d, cmd.Dir
		return []string{trace}, cmd.Run()
	}})
	require.NoError(t, err)
	assert.Equal(t, dir, gotDir)
	assert.Equal(t, filepath.Dir(s.File), gotCmdDir)
	require.Len(t, res.Runs, 1)
	assert.Equal(t, trace, res.Runs[0].Trace)
	assert.False(t, res.Failed(), "%+v", res.Results)
	log, err := os.ReadFile(filepath.Join(dir, "output.log"))
	require.NoError(t, err)
	assert.Equal(t, "recorded\n", string(log))

	s = mustParse(t, `run: "exit 0"`+"\n"+exp("", "tools", "max_calls: 4"))
	_, err = Evaluate(s, EvalOptions{RecordDir: t.TempDir(), Recorder: func(ctx context.Context, d string, cmd *exec.Cmd) ([]string, error) {
		return nil, cmd.Run()
	}})
	assert.ErrorContains(t, err, "the command exported no trace")
}

func TestTheRunKeyIsChecked(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src, want string }{
		{"run and trace together", "run: [true]\ntrace: ../traces/grep-then-read.toolcalls.json\n", "give run (a command to record) or trace/traces"},
		{"an empty list", "run: []\n", "the list is empty"},
		{"an empty command line", "run: '  '\n", "the command is empty"},
		{"a mapping", "run: {command: x}\n", "run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseInline(t, tc.src+exp("", "tools", "max_calls: 3"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	s := mustParse(t, "run: echo hi\n"+exp("", "tools", "max_calls: 3"))
	assert.Equal(t, shellCommand("echo hi"), s.Run, "a command line is run by the shell")
}
