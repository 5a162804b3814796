package trace

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codexOutput returns a generated command output: numbered source lines
// (as sed -n or rg -n print them), a few hundred bytes to a few kilobytes,
// and one time in ten a large file of a few hundred kilobytes.
func codexOutput(rng *rand.Rand, out *strings.Builder) string {
	out.Reset()
	n := 5 + rng.IntN(60)
	if rng.IntN(10) == 0 {
		n = 2000 + rng.IntN(4000)
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(out, "%d:", i)
		out.WriteString(claudeCodeLines[rng.IntN(len(claudeCodeLines))])
		out.WriteByte('\n')
	}
	return out.String()
}

// codexGenerateRollout writes a rollout of at least size bytes shaped as
// Codex 0.5x writes them: per turn a turn_context, a token_count event
// (repeated once, as Codex does), an agent_reasoning event, a reasoning
// item with its encrypted content, a shell function_call and its
// function_call_output, the output wrapped in Codex's {"output",
// "metadata"} JSON text.
func codexGenerateRollout(size int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var buf bytes.Buffer
	buf.Grow(size + 1<<20)
	line := func(ts, typ string, payload any) {
		claudeJSONLine(&buf, map[string]any{"timestamp": ts, "type": typ, "payload": payload})
	}
	line("2025-11-17T21:30:28.664Z", "session_meta", map[string]any{"id": "019a93b9-f380-7600-98ff-940e6b99603c",
		"timestamp": "2025-11-17T21:30:28.608Z", "cwd": "/workspace", "originator": "codex_cli_rs", "cli_version": "0.58.0",
		"instructions": nil, "source": "cli", "model_provider": "openai",
		"git": map[string]any{"commit_hash": "0f022a043b3f8ca67224e1c56d5b85e28a81b910", "branch": "main"}})
	secret := make([]byte, 1200)
	var out strings.Builder
	var in, cached, output int64
	for turn := 0; buf.Len() < size; turn++ {
		ts := fmt.Sprintf("2025-11-17T21:%02d:%02d.%03dZ", turn/60%60, turn%60, turn%1000)
		line(ts, "turn_context", map[string]any{"cwd": "/workspace", "approval_policy": "never",
			"sandbox_policy": map[string]any{"mode": "danger-full-access"}, "model": "gpt-5.1-codex", "effort": "high", "summary": "auto"})
		last := map[string]any{"input_tokens": 10000 + turn*40, "cached_input_tokens": 9000 + turn*40, "output_tokens": 60, "reasoning_output_tokens": 16}
		in, cached, output = in+int64(10000+turn*40), cached+int64(9000+turn*40), output+60
		total := map[string]any{"input_tokens": in, "cached_input_tokens": cached, "output_tokens": output, "reasoning_output_tokens": 0, "total_tokens": in + output}
		count := map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": total, "last_token_usage": last, "model_context_window": 258400},
			"rate_limits": map[string]any{"primary": map[string]any{"used_percent": 52.0, "window_minutes": 300, "resets_at": 1763422724}}}
		line(ts, "event_msg", count)
		line(ts, "event_msg", map[string]any{"type": "agent_reasoning", "text": "**Inspecting the handler**"})
		for i := range secret {
			secret[i] = byte(rng.IntN(256))
		}
		line(ts, "response_item", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": "**Inspecting the handler**"}},
			"content": nil, "encrypted_content": base64.URLEncoding.EncodeToString(secret)})
		callID := fmt.Sprintf("call_%024d", turn)
		file := fmt.Sprintf("internal/pkg%d/file%d.go", turn%17, turn%101)
		command := []string{"bash", "-lc", fmt.Sprintf("sed -n '1,%dp' %s", 40+turn%200, file)}
		if turn%2 == 1 {
			command[2] = fmt.Sprintf("rg -n \"handle\" internal/pkg%d", turn%17)
		}
		args, _ := json.Marshal(map[string]any{"command": command, "workdir": "/workspace"})
		line(ts, "response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": callID})
		wrapped, _ := json.Marshal(map[string]any{"output": codexOutput(rng, &out), "metadata": map[string]any{"exit_code": turn % 7 / 6, "duration_seconds": 0.1}})
		line(ts, "response_item", map[string]any{"type": "function_call_output", "call_id": callID, "output": string(wrapped)})
		line(ts, "event_msg", count)
	}
	return buf.Bytes()
}

// codexGenerateExec writes a codex exec --json stream of at least size
// bytes: per command an item.started and an item.completed event holding
// the aggregated output, a reasoning item now and then, and a
// turn.completed every twenty commands.
func codexGenerateExec(size int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	var buf bytes.Buffer
	buf.Grow(size + 1<<20)
	claudeJSONLine(&buf, map[string]any{"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"})
	claudeJSONLine(&buf, map[string]any{"type": "turn.started"})
	var out strings.Builder
	item := 0
	for n := 0; buf.Len() < size; n++ {
		if n%3 == 0 {
			claudeJSONLine(&buf, map[string]any{"type": "item.completed", "item": map[string]any{"id": fmt.Sprintf("item_%d", item), "type": "reasoning", "text": "**Looking at the tests**"}})
			item++
		}
		id := fmt.Sprintf("item_%d", item)
		item++
		command := fmt.Sprintf("bash -lc \"sed -n '1,%dp' internal/pkg%d/file%d.go\"", 40+n%200, n%17, n%101)
		claudeJSONLine(&buf, map[string]any{"type": "item.started", "item": map[string]any{"id": id, "type": "command_execution", "command": command, "aggregated_output": "", "exit_code": nil, "status": "in_progress"}})
		claudeJSONLine(&buf, map[string]any{"type": "item.completed", "item": map[string]any{"id": id, "type": "command_execution", "command": command, "aggregated_output": codexOutput(rng, &out), "exit_code": 0, "status": "completed"}})
		if n%20 == 19 {
			claudeJSONLine(&buf, map[string]any{"type": "turn.completed", "usage": map[string]any{"input_tokens": 24763 * n, "cached_input_tokens": 24448 * n, "output_tokens": 122 * n}})
			claudeJSONLine(&buf, map[string]any{"type": "turn.started"})
		}
	}
	return buf.Bytes()
}

var (
	codexBenchRollout = sync.OnceValue(func() []byte { return codexGenerateRollout(100 << 20) })
	codexBenchExec    = sync.OnceValue(func() []byte { return codexGenerateExec(100 << 20) })
)

func TestCodexGeneratedInputsAreReadCompletely(t *testing.T) {
	t.Parallel()
	data := codexGenerateRollout(2 << 20)
	s := readGenerated(t, data, "codex")
	require.Len(t, s.Calls, bytes.Count(data, []byte(`"type":"function_call_output"`)))
	for i, c := range s.Calls {
		assert.True(t, c.HasResult, "call %d", i)
		assert.Equal(t, i%7 == 6, c.IsError, "call %d", i)
		assert.NotNil(t, c.CumulativeTokens, "call %d", i)
	}

	data = codexGenerateExec(2 << 20)
	s = readGenerated(t, data, "codex-exec-json")
	require.Len(t, s.Calls, bytes.Count(data, []byte(`"status":"completed"`)))
	for i, c := range s.Calls {
		assert.True(t, c.HasResult, "call %d", i)
	}
}

// BenchmarkCodexRead reads a generated rollout of over 100 MB; the MB/s
// it reports is the reader's throughput.
func BenchmarkCodexRead(b *testing.B) {
	benchRead(b, Codex{}, codexBenchRollout(), Options{Source: "bench"}, -1)
}

// BenchmarkCodexExecJSONRead reads a generated codex exec --json stream of
// over 100 MB.
func BenchmarkCodexExecJSONRead(b *testing.B) {
	benchRead(b, CodexExecJSON{}, codexBenchExec(), Options{Source: "bench"}, -1)
}
