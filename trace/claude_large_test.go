package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

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
var claudeCodeLines = []string{
	`func (s *Server) handle(w http.ResponseWriter, r *http.Request) {`,
	"\tif err := json.NewDecoder(r.Body).Decode(&req); err != nil {",
	"\t\thttp.Error(w, fmt.Sprintf(\"bad request: %v\", err), http.StatusBadRequest)",
	"\t\treturn",
	"\t}",
	`	path := strings.ReplaceAll(req.Path, "\\", "/") // Windows paths`,
	`	log.Printf("served %q in %s", path, time.Since(start))`,
	"// Résumé: «naïve» caching → see 日本語のドキュメント 🙂",
	`	re := regexp.MustCompile(` + "`^[a-z]+\\d{2,}$`" + `)`,
	"",
	`	return &Config{Name: "default", Retries: 3, Tags: []string{"a", "b"}}`,
	"}",
}

// claudeGenerateSession writes a Claude Code session of at least size
// bytes: turns of an assistant message (text and tool_use lines repeating
// the usage) and a user tool_result whose output is repeated in
// toolUseResult, as Claude Code writes them; every fifth turn is in a
// subagent sidechain. Outputs range from a few hundred bytes to a few
// hundred kilobytes.
func claudeGenerateSession(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	buf.Grow(size + 1<<20)
	var out strings.Builder
	parent := any(nil)
	for turn := 0; buf.Len() < size; turn++ {
		side := turn%5 == 4
		msgID := fmt.Sprintf("msg_%06d", turn)
		callID := fmt.Sprintf("toolu_%06d", turn)
		ts := fmt.Sprintf("2025-09-07T10:%02d:%02d.%03dZ", turn/60%60, turn%60, turn%1000)
		usage := map[string]any{"input_tokens": 4, "cache_creation_input_tokens": 300 + turn%97, "cache_read_input_tokens": 20000 + turn, "output_tokens": 1,
			"cache_creation": map[string]any{"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 0}, "service_tier": "standard"}
		line := func(uuid string, typ string, msg any, extra map[string]any) {
			m := map[string]any{"parentUuid": parent, "isSidechain": side, "userType": "external", "cwd": "/workspace",
				"sessionId": "bench-session", "version": "1.0.108", "gitBranch": "main", "type": typ, "message": msg, "uuid": uuid, "timestamp": ts}
			for k, v := range extra {
				m[k] = v
			}
			claudeJSONLine(&buf, m)
			parent = uuid
		}

		// The output of a Read (numbered lines) or a Bash command.
		out.Reset()
		n := 5 + rng.IntN(60)
		if rng.IntN(10) == 0 {
			n = 2000 + rng.IntN(4000)
		}
		for i := 1; i <= n; i++ {
			if turn%2 == 0 {
				fmt.Fprintf(&out, "%6d→", i)
			}
			out.WriteString(claudeCodeLines[rng.IntN(len(claudeCodeLines))])
			out.WriteByte('\n')
		}
		output := out.String()
		name, input := "Read", map[string]any{"file_path": fmt.Sprintf("/workspace/internal/pkg%d/file%d.go", turn%17, turn%101)}
		toolUseResult := map[string]any{"type": "text", "file": map[string]any{"filePath": input["file_path"], "content": output, "numLines": n, "startLine": 1, "totalLines": n}}
		if turn%2 == 1 {
			name, input = "Bash", map[string]any{"command": fmt.Sprintf("go test ./internal/pkg%d/... 2>&1 | head -%d", turn%17, n), "description": "Run the package tests"}
			toolUseResult = map[string]any{"stdout": output, "stderr": "", "interrupted": false, "isImage": false}
		}

		assistant := func(content any, out int) map[string]any {
			u := claudeCloneMap(usage)
			u["output_tokens"] = out
			return map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
				"content": []any{content}, "stop_reason": nil, "stop_sequence": nil, "usage": u}
		}
		line(fmt.Sprintf("a%06d-1", turn), "assistant", assistant(map[string]any{"type": "text", "text": "Let me look at the \"handler\" code next."}, 1), map[string]any{"requestId": "req_" + msgID})
		line(fmt.Sprintf("a%06d-2", turn), "assistant", assistant(map[string]any{"type": "tool_use", "id": callID, "name": name, "input": input}, 80), map[string]any{"requestId": "req_" + msgID})
		line(fmt.Sprintf("u%06d", turn), "user", map[string]any{"role": "user", "content": []any{
			map[string]any{"tool_use_id": callID, "type": "tool_result", "content": output},
		}}, map[string]any{"toolUseResult": toolUseResult})
	}
	return buf.Bytes()
}

func claudeCloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

var claudeBenchSession = sync.OnceValue(func() []byte { return claudeGenerateSession(100 << 20) })

func TestClaudeGeneratedSessionIsReadCompletely(t *testing.T) {
	t.Parallel()
	data := claudeGenerateSession(2 << 20)
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
