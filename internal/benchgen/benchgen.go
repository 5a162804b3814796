// Package benchgen generates Claude Code session transcripts for
// benchmarks and memory measurements. The sessions are generated, never
// copied: their shape (line types, sidechains, tool mix, result sizes) is
// modelled on real sessions, their text is made up.
//
// Three shapes are offered:
//
//   - RealShaped: many small lines, most of them in subagent sidechains,
//     typical result sizes (a few hundred bytes, some kilobytes) and a few
//     large results, like a real session of a coding agent that delegates
//     work to subagents.
//   - LargeResults: fewer, larger lines whose tool outputs run from a few
//     hundred bytes to a few hundred kilobytes, repeated in toolUseResult.
//   - SingleLine: one user line whose tool result is as long as asked, the
//     worst case for memory.
//
// Every generator is deterministic: the same size gives the same bytes.
package benchgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Kinds are the names Write accepts.
const (
	KindRealShaped   = "real"
	KindLargeResults = "large"
	KindSingleLine   = "single-line"
)

// Write writes a session of the given kind of at least size bytes to w.
func Write(w io.Writer, kind string, size int64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var err error
	switch kind {
	case KindRealShaped:
		err = writeRealShaped(bw, size)
	case KindLargeResults:
		err = writeLargeResults(bw, size)
	case KindSingleLine:
		err = writeSingleLine(bw, size)
	default:
		return fmt.Errorf("benchgen: unknown kind %q (expected %s, %s or %s)", kind, KindRealShaped, KindLargeResults, KindSingleLine)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// RealShaped returns a real-shaped session of at least size bytes.
func RealShaped(size int) []byte { return generate(KindRealShaped, size) }

// LargeResults returns a session with large tool outputs of at least size
// bytes.
func LargeResults(size int) []byte { return generate(KindLargeResults, size) }

// SingleLine returns a session whose second line carries one tool result
// of at least size bytes.
func SingleLine(size int) []byte { return generate(KindSingleLine, size) }

func generate(kind string, size int) []byte {
	var buf bytes.Buffer
	buf.Grow(size + size/8 + 1<<20)
	if err := Write(&buf, kind, int64(size)); err != nil {
		panic(err) // a bytes.Buffer does not fail, and kind is ours
	}
	return buf.Bytes()
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// line writes v as one JSON line the way Claude Code (a JavaScript
// program) writes it: no HTML escaping.
func (c *countingWriter) line(v any) {
	if c.err != nil {
		return
	}
	enc := json.NewEncoder(c)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil && c.err == nil {
		c.err = err
	}
}

// CodeLines are source lines for generated Read and Bash outputs, with
// every kind of escape JSON strings meet: quotes, backslashes, tabs and
// non-ASCII text.
var CodeLines = []string{
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

// writeLargeResults writes turns of an assistant message (text and
// tool_use lines repeating the usage) and a user tool_result whose output
// is repeated in toolUseResult, as Claude Code writes them; every fifth
// turn is in a subagent sidechain. Outputs range from a few hundred bytes
// to a few hundred kilobytes.
func writeLargeResults(w *bufio.Writer, size int64) error {
	c := &countingWriter{w: w}
	rng := rand.New(rand.NewPCG(1, 2))
	var out strings.Builder
	parent := any(nil)
	for turn := 0; c.n < size && c.err == nil; turn++ {
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
			c.line(m)
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
			out.WriteString(CodeLines[rng.IntN(len(CodeLines))])
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
			u := make(map[string]any, len(usage))
			for k, v := range usage {
				u[k] = v
			}
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
	return c.err
}

// writeSingleLine writes a tool call and one user line whose tool_result
// content holds size bytes of escaped source text (and no toolUseResult
// copy, so that the line is the size asked for). The content is written
// piece by piece: the generator needs no memory in proportion to size.
func writeSingleLine(w *bufio.Writer, size int64) error {
	c := &countingWriter{w: w}
	c.line(map[string]any{"type": "assistant", "sessionId": "big", "cwd": "/workspace", "uuid": "a1", "parentUuid": nil, "isSidechain": false,
		"timestamp": "2025-09-07T10:00:00.000Z",
		"message": map[string]any{"id": "m1", "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_big", "name": "Bash", "input": map[string]any{"command": "cat build.log"}},
		}}})
	io.WriteString(c, `{"type":"user","sessionId":"big","cwd":"/workspace","uuid":"u1","parentUuid":"a1","isSidechain":false,"timestamp":"2025-09-07T10:00:01.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_big","type":"tool_result","content":"`)
	var chunk []byte
	for i := 0; len(chunk) < 64<<10; i++ {
		q, _ := json.Marshal(fmt.Sprintf("internal/pkg%d/file%d.go:%d:%s\n", i%17, i%101, i, CodeLines[i%len(CodeLines)]))
		chunk = append(chunk, q[1:len(q)-1]...)
	}
	for c.n < size && c.err == nil {
		c.Write(chunk)
	}
	io.WriteString(c, `"}]}}`+"\n")
	return c.err
}
