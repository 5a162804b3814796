package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchcpu"
	"github.com/stretchr/testify/require"
)

// geminiGenerateSession writes a Gemini CLI line recording of at least size
// bytes, shaped as Gemini CLI writes one: each turn is a user message and a
// gemini message recorded three times (its text, then again with its
// token usage, then again with its tool calls and their results), each
// followed by a $set of lastUpdated. Tool outputs range from a few hundred
// bytes to a few hundred kilobytes. It returns the recording and the
// number of calls in it.
func geminiGenerateSession(size int) ([]byte, int) {
	rng := rand.New(rand.NewPCG(3, 4))
	var buf bytes.Buffer
	buf.Grow(size + 1<<20)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	put := func(v any) {
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
	}
	put(map[string]any{"sessionId": "bench-session", "projectHash": strings.Repeat("ab", 32),
		"startTime": "2026-02-01T09:00:00.000Z", "lastUpdated": "2026-02-01T09:00:00.000Z", "kind": "main"})
	var out strings.Builder
	calls := 0
	for turn := 0; buf.Len() < size; turn++ {
		ts := fmt.Sprintf("2026-02-01T%02d:%02d:%02d.%03dZ", 9+turn/3600%10, turn/60%60, turn%60, turn%1000)
		if turn%10 == 0 {
			put(map[string]any{"id": fmt.Sprintf("u%06d", turn), "timestamp": ts, "type": "user",
				"content": []any{map[string]any{"text": "Now look at the handler and explain the \"retry\" logic."}}})
		}
		var toolCalls []any
		for k := 0; k < 1+turn%2; k++ {
			out.Reset()
			n := 5 + rng.IntN(60)
			if rng.IntN(10) == 0 {
				n = 2000 + rng.IntN(4000)
			}
			for i := 1; i <= n; i++ {
				out.WriteString(claudeCodeLines[rng.IntN(len(claudeCodeLines))])
				out.WriteByte('\n')
			}
			id := fmt.Sprintf("read_file-%d-%d", turn, k)
			name, args, output := "read_file", map[string]any{"file_path": fmt.Sprintf("/work/app/internal/pkg%d/file%d.go", turn%17, turn%101)}, out.String()
			if (turn+k)%3 == 1 {
				id = fmt.Sprintf("run_shell_command-%d-%d", turn, k)
				name, args = "run_shell_command", map[string]any{"command": fmt.Sprintf("nl -ba internal/pkg%d/file.go | sed -n '1,%dp'", turn%17, n), "description": "Show the file"}
				output = "Command: " + args["command"].(string) + "\nDirectory: (root)\nOutput: " + output + "Error: (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 4242"
			}
			toolCalls = append(toolCalls, map[string]any{"id": id, "name": name, "args": args,
				"result": []any{map[string]any{"functionResponse": map[string]any{"id": id, "name": name, "response": map[string]any{"output": output}}}},
				"status": "success", "timestamp": ts, "resultDisplay": "", "displayName": "ReadFile",
				"description": "Reads and returns the content of a specified file.", "renderOutputAsMarkdown": true})
			calls++
		}
		msg := map[string]any{"id": fmt.Sprintf("g%06d", turn), "timestamp": ts, "type": "gemini",
			"content": "I will read the handler next.", "thoughts": []any{map[string]any{"subject": "Reading", "description": "Looking at the handler.", "timestamp": ts}},
			"model": "gemini-2.5-pro"}
		put(msg)
		msg["tokens"] = map[string]any{"input": 20000 + turn, "output": 80, "cached": 15000, "thoughts": 120, "tool": 0, "total": 20200 + turn}
		put(msg)
		put(map[string]any{"$set": map[string]any{"lastUpdated": ts}})
		msg["toolCalls"] = toolCalls
		put(msg)
		put(map[string]any{"$set": map[string]any{"lastUpdated": ts}})
	}
	return buf.Bytes(), calls
}

// geminiDocument turns a line recording into the older one-document
// format, indented as Gemini CLI wrote it.
func geminiDocument(t testing.TB, lines []byte) []byte {
	s, err := GeminiCLI{}.Read(bytes.NewReader(lines), Options{})
	require.NoError(t, err)
	var msgs []any
	seen := map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		var m map[string]any
		require.NoError(t, json.Unmarshal(line, &m))
		id, ok := m["id"].(string)
		if !ok {
			continue
		}
		if i, ok := seen[id]; ok {
			msgs[i] = m
			continue
		}
		seen[id] = len(msgs)
		msgs = append(msgs, m)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	// Gemini CLI writes the session fields before the messages.
	require.NoError(t, enc.Encode(struct {
		SessionID   string `json:"sessionId"`
		ProjectHash string `json:"projectHash"`
		StartTime   string `json:"startTime"`
		Messages    []any  `json:"messages"`
	}{s.ID, "p", "2026-02-01T09:00:00.000Z", msgs}))
	return buf.Bytes()
}

var geminiBench = sync.OnceValues(func() ([]byte, int) { return geminiGenerateSession(64 << 20) })

func TestGeminiGeneratedSessionIsReadCompletely(t *testing.T) {
	t.Parallel()
	data, calls := geminiGenerateSession(2 << 20)
	for _, doc := range []struct {
		name string
		data []byte
	}{{"lines", data}, {"document", geminiDocument(t, data)}} {
		t.Run(doc.name, func(t *testing.T) {
			s := readGenerated(t, doc.data, "gemini-cli")
			require.Len(t, s.Calls, calls)
			for i, c := range s.Calls {
				require.True(t, c.HasResult, "call %d", i)
				require.NotNil(t, c.CumulativeTokens, "call %d", i)
			}
		})
	}
}

// BenchmarkGeminiCLIRead reads a generated line recording of 64 MB as it
// streams in (not held in a temporary file first); the MB/s it reports is
// the reader's throughput.
func BenchmarkGeminiCLIRead(b *testing.B) {
	data, calls := geminiBench()
	benchRead(b, GeminiCLI{}, data, Options{Source: "bench", spool: spoolNever}, calls)
}

// BenchmarkGeminiCLIReadDocument reads the same session in the older
// one-document format.
func BenchmarkGeminiCLIReadDocument(b *testing.B) {
	lines, calls := geminiBench()
	benchRead(b, GeminiCLI{}, geminiDocument(b, lines), Options{Source: "bench", spool: spoolNever}, calls)
}

// BenchmarkGeminiCLIReadSpooled reads both from a stream as standard input
// is read: held in a temporary file, then read as a file, what keeps
// memory from growing with the stream.
func BenchmarkGeminiCLIReadSpooled(b *testing.B) {
	lines, calls := geminiBench()
	for _, in := range []struct {
		name string
		data []byte
	}{{"lines", lines}, {"document", geminiDocument(b, lines)}} {
		b.Run(in.name, func(b *testing.B) {
			benchRead(b, GeminiCLI{}, in.data, Options{Source: "bench", spool: spoolAlways}, calls)
		})
	}
}

// BenchmarkGeminiCLIReadDocumentCutting reads the document with the
// command's result budget, its strings passed through the cutter or not:
// what cutting long strings costs a document that has none.
func BenchmarkGeminiCLIReadDocumentCutting(b *testing.B) {
	lines, calls := geminiBench()
	doc := geminiDocument(b, lines)
	for _, cutting := range []bool{true, false} {
		b.Run(fmt.Sprintf("cutting=%v", cutting), func(b *testing.B) {
			documentCutting = cutting
			defer func() { documentCutting = true }()
			benchRead(b, GeminiCLI{}, doc, Options{Source: "bench", MaxResultBytes: 8<<20 + 1, spool: spoolNever}, calls)
		})
	}
}

// BenchmarkGeminiCLIDocumentKind walks the same document for its kind, as a
// read from a file does first: what streaming a document costs over
// reading it.
func BenchmarkGeminiCLIDocumentKind(b *testing.B) {
	lines, _ := geminiBench()
	doc := geminiDocument(b, lines)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	defer benchcpu.Throughput(b, int64(len(doc)))()
	for b.Loop() {
		if _, ok := geminiDocumentKind(bytes.NewReader(doc), int64(len(doc))); !ok {
			b.Fatal("the document could not be walked")
		}
	}
}
