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

// otelGenAttrs turns a map into OTLP/JSON attributes, in key order.
func otelGenAttrs(kv ...any) []any {
	var out []any
	for i := 0; i+1 < len(kv); i += 2 {
		var v any
		switch x := kv[i+1].(type) {
		case string:
			v = map[string]any{"stringValue": x}
		case int:
			v = map[string]any{"intValue": fmt.Sprint(x)}
		default:
			b, _ := json.Marshal(x)
			v = map[string]any{"stringValue": string(b)}
		}
		out = append(out, map[string]any{"key": kv[i], "value": v})
	}
	return out
}

// otelGenerateTrace writes OTLP JSON Lines of at least size bytes, as the
// Collector's file exporter writes an agent's spans: batches of spans, one
// request a line. Each turn is a chat span (usage, model, the assistant's
// output message with its tool_call part) and an execute_tool span with
// arguments and a result of a few hundred bytes to a few hundred kilobytes;
// every fifth turn runs in a subagent (invoke_agent under a tool span).
// Spans carry the attributes instrumentations add (server.address,
// finish reasons), which the reader skips.
func otelGenerateTrace(size int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var buf bytes.Buffer
	buf.Grow(size + 1<<20)
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	const t0 = int64(1760000000000000000)
	span := func(id, parent, name string, start, end int64, attrs []any) map[string]any {
		m := map[string]any{"traceId": traceID, "spanId": id, "name": name, "kind": 1,
			"startTimeUnixNano": fmt.Sprint(start), "endTimeUnixNano": fmt.Sprint(end), "attributes": attrs, "status": map[string]any{}}
		if parent != "" {
			m["parentSpanId"] = parent
		}
		return m
	}
	var batch []any
	flush := func() {
		req := map[string]any{"resourceSpans": []any{map[string]any{
			"resource":   map[string]any{"attributes": otelGenAttrs("service.name", "bench-agent", "service.version", "1.2.3", "telemetry.sdk.language", "python")},
			"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "opentelemetry.instrumentation.genai", "version": "0.2b0"}, "spans": batch}},
		}}}
		claudeJSONLine(&buf, req)
		batch = batch[:0]
	}
	root := "a000000000000000"
	batch = append(batch, span(root, "", "invoke_agent bench", t0, t0+int64(1e15), otelGenAttrs("gen_ai.operation.name", "invoke_agent", "gen_ai.agent.name", "bench")))
	var out strings.Builder
	subTool := ""
	for turn := 0; buf.Len() < size; turn++ {
		at := t0 + int64(turn)*1e9
		parent := root
		if turn%5 == 4 {
			// A subagent started by the previous turn's tool call.
			parent = subTool
		}
		chatID := fmt.Sprintf("c%015x", turn)
		toolID := fmt.Sprintf("e%015x", turn)
		callID := fmt.Sprintf("call_%06d", turn)
		out.Reset()
		n := 5 + rng.IntN(60)
		if rng.IntN(10) == 0 {
			n = 2000 + rng.IntN(4000)
		}
		for i := 1; i <= n; i++ {
			out.WriteString(claudeCodeLines[rng.IntN(len(claudeCodeLines))])
			out.WriteByte('\n')
		}
		name, args := "read_file", map[string]any{"path": fmt.Sprintf("internal/pkg%d/file%d.go", turn%17, turn%101)}
		if turn%2 == 1 {
			name, args = "shell", map[string]any{"command": fmt.Sprintf("go test ./internal/pkg%d/... 2>&1 | head -%d", turn%17, n)}
		}
		output := []any{map[string]any{"role": "assistant", "parts": []any{
			map[string]any{"type": "text", "content": "Let me look at the \"handler\" code next."},
			map[string]any{"type": "tool_call", "id": callID, "name": name, "arguments": args},
		}, "finish_reason": "tool_call"}}
		batch = append(batch, span(chatID, parent, "chat gpt-4.1", at, at+8e8, otelGenAttrs(
			"gen_ai.operation.name", "chat", "gen_ai.provider.name", "openai", "gen_ai.request.model", "gpt-4.1",
			"gen_ai.response.model", "gpt-4.1-2025-04-14", "gen_ai.response.id", "chatcmpl-"+callID, "gen_ai.response.finish_reasons", []string{"tool_calls"},
			"gen_ai.usage.input_tokens", 20000+turn, "gen_ai.usage.output_tokens", 80, "gen_ai.usage.cache_read.input_tokens", 19000,
			"server.address", "api.openai.com", "server.port", 443, "gen_ai.output.messages", output)))
		argText, _ := json.Marshal(args)
		batch = append(batch, span(toolID, parent, "execute_tool "+name, at+9e8, at+95e7, otelGenAttrs(
			"gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", name, "gen_ai.tool.call.id", callID,
			"gen_ai.tool.type", "function", "gen_ai.tool.call.arguments", string(argText), "gen_ai.tool.call.result", out.String())))
		if turn%5 == 3 {
			subTool = toolID
			batch = append(batch, span(fmt.Sprintf("b%015x", turn), toolID, "invoke_agent helper", at+91e7, at+2e9,
				otelGenAttrs("gen_ai.operation.name", "invoke_agent", "gen_ai.agent.name", "helper")))
			// The subagent's spans hang under its invoke_agent span.
			subTool = fmt.Sprintf("b%015x", turn)
		}
		if len(batch) >= 64 {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
	return buf.Bytes()
}

var otelBenchTrace = sync.OnceValue(func() []byte { return otelGenerateTrace(100 << 20) })

func TestOTelGeneratedTraceIsReadCompletely(t *testing.T) {
	t.Parallel()
	data := otelGenerateTrace(2 << 20)
	s := readGenerated(t, data, "otel")
	turns := bytes.Count(data, []byte(`"execute_tool"`))
	require.Len(t, s.Calls, turns, "each call is read once, from its span and its message part")
	for i, c := range s.Calls {
		assert.True(t, c.HasResult, "call %d", i)
		assert.Equal(t, i%5 == 4, c.Subagent, "call %d", i)
		require.NotNil(t, c.CumulativeTokens)
	}
}

// BenchmarkOTelRead reads generated OTLP JSON Lines of over 100 MB; the
// MB/s it reports is the reader's throughput (compare
// BenchmarkClaudeCodeRead on the same run).
func BenchmarkOTelRead(b *testing.B) {
	otelBench(b, Options{Source: "bench"})
}

// BenchmarkOTelReadMaxResultBytes reads the same trace keeping at most
// 1 KiB of each result (compare BenchmarkClaudeCodeReadMaxResultBytes).
func BenchmarkOTelReadMaxResultBytes(b *testing.B) {
	otelBench(b, Options{Source: "bench", MaxResultBytes: 1024})
}

// otelBench reads the generated trace with ReadAll, which must find it to
// be one session.
func otelBench(b *testing.B, opts Options) {
	data := otelBenchTrace()
	benchSessions(b, int64(len(data)), -1, func() ([]*Session, error) {
		all, err := OTel{}.ReadAll(bytes.NewReader(data), opts)
		if err == nil && len(all) != 1 {
			err = fmt.Errorf("%d sessions, want 1", len(all))
		}
		return all, err
	})
}
