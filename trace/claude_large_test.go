package trace

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claudeJSONLine encodes v as one JSONL line the way Claude Code (a
// JavaScript program) does: no HTML escaping.
func claudeJSONLine(buf *bytes.Buffer, v any) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
}

func TestClaudeReadsA64MBLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 64 MB line")
	}
	t.Parallel()
	// A tool output with every kind of escape: quotes, backslashes, tabs,
	// newlines, a control character, HTML characters and non-ASCII text.
	unit := "    12→\tfmt.Printf(\"%s\\n\", name) // <b>naïve</b> & 日本 \x01 🙂\n"
	reps := 64<<20/len(unit) + 1
	content := strings.Repeat(unit, reps)
	quoted, err := json.Marshal(unit)
	require.NoError(t, err)
	escaped := string(quoted[1 : len(quoted)-1])
	var buf bytes.Buffer
	buf.WriteString(`{"type":"assistant","sessionId":"big","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat big.go"}}]}}` + "\n")
	buf.WriteString(`{"type":"user","sessionId":"big","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"`)
	buf.WriteString(strings.Repeat(escaped, reps))
	buf.WriteString(`"}]},"toolUseResult":{"stdout":"`)
	buf.WriteString(strings.Repeat(escaped, reps))
	buf.WriteString(`"}}` + "\n")
	require.Greater(t, buf.Len(), 2*64<<20, "the result line holds two copies of the output")

	s, err := Read(&buf, Options{Source: "big.jsonl"})
	require.NoError(t, err)
	assert.Empty(t, s.Warnings)
	require.Len(t, s.Calls, 1)
	assert.Equal(t, len(content), len(s.Calls[0].Result))
	assert.True(t, s.Calls[0].Result == content, "the result decodes to the output written")
}

// claudeCodeLines are source lines for generated Read and Bash outputs.
var claudeCodeLines = benchgen.CodeLines

// claudeBenchSession is the large-result session of over 100 MB; the
// real-shaped one is claudeRealBenchSession.
var (
	claudeBenchSession     = sync.OnceValue(func() []byte { return benchgen.LargeResults(100 << 20) })
	claudeRealBenchSession = sync.OnceValue(func() []byte { return benchgen.RealShaped(100 << 20) })
)

func TestClaudeRealShapedSessionIsReadCompletely(t *testing.T) {
	t.Parallel()
	data := benchgen.RealShaped(2 << 20)
	s := readGenerated(t, data, "claude-code")
	require.Len(t, s.Calls, bytes.Count(data, []byte(`"type":"tool_result"`)))
	sub := 0
	for i, c := range s.Calls {
		assert.True(t, c.HasResult, "call %d", i)
		if c.Subagent {
			sub++
			assert.NotEmpty(t, c.ParentID, "call %d names the Task call that started its subagent", i)
		}
	}
	assert.Greater(t, sub, len(s.Calls)*3/4, "most calls are subagent calls")
}

func TestClaudeGeneratedSessionIsReadCompletely(t *testing.T) {
	t.Parallel()
	data := benchgen.LargeResults(2 << 20)
	s := readGenerated(t, data, "claude-code")
	turns := bytes.Count(data, []byte(`"type":"tool_result"`))
	require.Len(t, s.Calls, turns)
	for i, c := range s.Calls {
		assert.True(t, c.HasResult, "call %d", i)
		assert.Equal(t, i%5 == 4, c.Subagent, "call %d", i)
	}
}

// BenchmarkClaudeCodeRead reads a generated session of over 100 MB; the
// MB/s it reports is the reader's throughput, and its cpu-MB/s the
// baseline the other readers' are compared with on a loaded machine.
func BenchmarkClaudeCodeRead(b *testing.B) {
	benchRead(b, ClaudeCode{}, claudeBenchSession(), Options{Source: "bench"}, -1)
}

// BenchmarkClaudeCodeReadRealShaped reads a real-shaped session of over
// 100 MB (many small lines, mostly sidechains) keeping what the events
// command keeps of each result.
func BenchmarkClaudeCodeReadRealShaped(b *testing.B) {
	benchRead(b, ClaudeCode{}, claudeRealBenchSession(), Options{Source: "bench", MaxResultBytes: 8<<20 + 1}, -1)
}

// BenchmarkClaudeCodeReadLargeResults reads the large-result session
// keeping what the events command keeps of each result.
func BenchmarkClaudeCodeReadLargeResults(b *testing.B) {
	benchRead(b, ClaudeCode{}, claudeBenchSession(), Options{Source: "bench", MaxResultBytes: 8<<20 + 1}, -1)
}

// BenchmarkClaudeCodeReadMaxResultBytes reads the same session keeping at
// most 1 KiB of each result: the bytes allocated per read then reflect
// the calls kept, not the size of the file.
func BenchmarkClaudeCodeReadMaxResultBytes(b *testing.B) {
	benchRead(b, ClaudeCode{}, claudeBenchSession(), Options{Source: "bench", MaxResultBytes: 1024}, -1)
}

// BenchmarkClaudeLinesEncodingJSON is the baseline the reader is measured
// against: the same session decoded line by line with encoding/json into a
// struct holding only the fields the reader needs.
func BenchmarkClaudeLinesEncodingJSON(b *testing.B) {
	type block struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	type line struct {
		Type        string `json:"type"`
		Timestamp   string `json:"timestamp"`
		IsSidechain bool   `json:"isSidechain"`
		UUID        string `json:"uuid"`
		ParentUUID  string `json:"parentUuid"`
		Message     struct {
			ID      string          `json:"id"`
			Model   string          `json:"model"`
			Content json.RawMessage `json:"content"`
			Usage   map[string]any  `json:"usage"`
		} `json:"message"`
	}
	data := claudeBenchSession()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		calls := 0
		for rest := data; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			var l line
			if err := json.Unmarshal(rest[:i], &l); err != nil {
				b.Fatal(err)
			}
			var blocks []block
			if len(l.Message.Content) > 0 && l.Message.Content[0] == '[' {
				if err := json.Unmarshal(l.Message.Content, &blocks); err != nil {
					b.Fatal(err)
				}
			}
			for _, bl := range blocks {
				if bl.Type == "tool_use" {
					calls++
				}
			}
			rest = rest[min(i+1, len(rest)):]
		}
		if calls == 0 {
			b.Fatal("no calls")
		}
	}
}
