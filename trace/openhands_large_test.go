package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchOutput returns a tool output of source lines: usually a few dozen,
// one time in ten a few thousand.
func benchOutput(rng *rand.Rand, numbered bool) string {
	var out strings.Builder
	n := 5 + rng.IntN(60)
	if rng.IntN(10) == 0 {
		n = 2000 + rng.IntN(4000)
	}
	for i := 1; i <= n; i++ {
		if numbered {
			fmt.Fprintf(&out, "%6d\t", i)
		}
		out.WriteString(claudeCodeLines[rng.IntN(len(claudeCodeLines))])
		out.WriteByte('\n')
	}
	return out.String()
}

// openHandsGenerateEvents returns at least size bytes of OpenHands V0
// events as OpenHands writes them: each action with its tool call
// metadata, the whole model response and the running token totals, each
// observation repeating the metadata without the response, and outputs of
// typical sizes.
func openHandsGenerateEvents(size int) []any {
	rng := rand.New(rand.NewPCG(3, 4))
	var events []any
	total := 0
	for turn := 0; total < size; turn++ {
		id := 2 * turn
		callID := fmt.Sprintf("toolu_%06d", turn)
		ts := fmt.Sprintf("2025-03-01T10:%02d:%02d.%06d", turn/60%60, turn%60, turn)
		fn, action := "execute_bash", "run"
		args := map[string]any{"command": fmt.Sprintf("cd /workspace && go test ./internal/pkg%d/... 2>&1 | head -50", turn%17)}
		if turn%2 == 1 {
			fn, action = "str_replace_editor", "read"
			args = map[string]any{"command": "view", "path": fmt.Sprintf("/workspace/internal/pkg%d/file%d.go", turn%17, turn%101)}
		}
		argText, _ := json.Marshal(args)
		resp := map[string]any{"id": "chatcmpl-" + callID, "created": 1760000000 + turn, "model": "claude-sonnet-4-20250514", "object": "chat.completion",
			"choices": []any{map[string]any{"finish_reason": "tool_calls", "index": 0, "message": map[string]any{
				"content": "Let me look at the \"handler\" code next.", "role": "assistant",
				"tool_calls": []any{map[string]any{"index": 1, "id": callID, "type": "function", "function": map[string]any{"name": fn, "arguments": string(argText)}}}}}},
			"usage": map[string]any{"completion_tokens": 80, "prompt_tokens": 20000 + turn, "total_tokens": 20080 + turn, "prompt_tokens_details": map[string]any{"cached_tokens": 19000}}}
		act := map[string]any{"id": id, "timestamp": ts, "source": "agent", "message": "Running command", "action": action,
			"tool_call_metadata": map[string]any{"function_name": fn, "tool_call_id": callID, "model_response": resp, "total_calls_in_response": 1},
			"llm_metrics": map[string]any{"accumulated_cost": 0.1, "accumulated_token_usage": map[string]any{"model": "default",
				"prompt_tokens": 20000 * (turn + 1), "completion_tokens": 80 * (turn + 1), "cache_read_tokens": 19000 * turn, "cache_write_tokens": 900,
				"context_window": 200000, "per_turn_token": 20080, "response_id": ""}, "costs": []any{}, "response_latencies": []any{}, "token_usages": []any{}},
			"args":    map[string]any{"command": args["command"], "is_input": false, "thought": "", "blocking": false, "hidden": false, "confirmation_state": "confirmed"},
			"timeout": 120}
		output := benchOutput(rng, turn%2 == 1)
		obs := map[string]any{"id": id + 1, "timestamp": ts, "source": "agent", "message": "Command executed", "cause": id, "observation": action,
			"tool_call_metadata": map[string]any{"function_name": fn, "tool_call_id": callID, "total_calls_in_response": 1},
			"content":            output, "extras": map[string]any{"command": args["command"], "metadata": map[string]any{"exit_code": turn % 3 / 2, "pid": -1,
				"username": "root", "hostname": "runtime", "working_dir": "/workspace", "py_interpreter_path": "/usr/bin/python", "prefix": "", "suffix": ""}, "hidden": false},
			"success": true}
		events = append(events, act, obs)
		total += len(output) + 2500
	}
	return events
}

func benchJSON(v any, indent bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

var (
	openHandsBenchList = sync.OnceValue(func() []byte { return benchJSON(openHandsGenerateEvents(32<<20), true) })
	openHandsBenchEval = sync.OnceValue(func() []byte {
		var buf bytes.Buffer
		for i := range 8 {
			line := map[string]any{"instance_id": fmt.Sprintf("shop__shop-%d", i), "instruction": "Fix the issue.", "test_result": map[string]any{"git_patch": "diff"},
				"metadata": map[string]any{"agent_class": "CodeActAgent", "llm_config": map[string]any{"model": "claude-sonnet-4-20250514"}},
				"history":  openHandsGenerateEvents(4 << 20), "metrics": map[string]any{"accumulated_token_usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1}}}
			buf.Write(benchJSON(line, false))
		}
		return buf.Bytes()
	})
)

// sweAgentGenerateTrajectory returns a 1.x function-calling .traj of at
// least size bytes: steps with their observation, thought, response and
// state, and a history repeating each step as an assistant tool call and a
// tool message.
func sweAgentGenerateTrajectory(size int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	var steps, history []any
	total := 0
	for turn := 0; total < size; turn++ {
		action := fmt.Sprintf("open \"internal/pkg%d/file%d.go\" %d", turn%17, turn%101, turn)
		fn, args := "open", fmt.Sprintf(`{"path":"internal/pkg%d/file%d.go","line_number":%d}`, turn%17, turn%101, turn)
		if turn%2 == 1 {
			action = fmt.Sprintf("grep -rn 'handler' internal/pkg%d | head -40", turn%17)
			fn, args = "bash", fmt.Sprintf(`{"command":%q}`, action)
		}
		obs := benchOutput(rng, turn%2 == 0)
		thought := "Let me look at the \"handler\" code next."
		callID := fmt.Sprintf("call_%06d", turn)
		steps = append(steps, map[string]any{"action": action, "observation": obs, "response": thought, "thought": thought, "execution_time": 0.2,
			"state": map[string]any{"open_file": "/testbed/a.go", "working_dir": "/testbed"}, "query": []any{}, "extra_info": map[string]any{}})
		history = append(history,
			map[string]any{"message_type": "action", "role": "assistant", "content": thought, "thought": thought, "action": action, "agent": "main",
				"tool_calls": []any{map[string]any{"id": callID, "type": "function", "function": map[string]any{"name": fn, "arguments": args}}}},
			map[string]any{"message_type": "observation", "role": "tool", "content": []any{map[string]any{"type": "text", "text": obs}}, "agent": "main", "tool_call_ids": []any{callID}})
		total += 2*len(obs) + 800
	}
	return benchJSON(map[string]any{"environment": "main", "trajectory": steps, "history": history,
		"info": map[string]any{"model_stats": map[string]any{"tokens_sent": 100000, "tokens_received": 5000, "api_calls": len(steps)}, "submission": "diff"}}, true)
}

var sweAgentBench = sync.OnceValue(func() []byte { return sweAgentGenerateTrajectory(32 << 20) })

// openHandsGenerateFolder stores the events of openHandsGenerateEvents as
// a V1-shaped conversation folder: one file per action and observation.
func openHandsGenerateFolder(size int) (fstest.MapFS, int) {
	rng := rand.New(rand.NewPCG(7, 8))
	fsys := fstest.MapFS{"base_state.json": {Data: []byte(`{"id":"c","agent":{"llm":{"model":"m"},"kind":"Agent"},"workspace":{"working_dir":"/workspace"}}`)}}
	total, n := 0, 0
	for turn := 0; total < size; turn++ {
		callID := fmt.Sprintf("toolu_%06d", turn)
		cmd := fmt.Sprintf("grep -rn handler internal/pkg%d | head -40", turn%17)
		action := benchJSON(map[string]any{"id": fmt.Sprintf("a-%d", turn), "timestamp": "2026-02-10T09:00:00.000000", "source": "agent",
			"thought": []any{map[string]any{"type": "text", "text": "Look at the handler."}}, "action": map[string]any{"command": cmd, "kind": "TerminalAction"},
			"tool_name": "terminal", "tool_call_id": callID, "tool_call": map[string]any{"id": callID, "name": "terminal", "arguments": fmt.Sprintf(`{"command":%q}`, cmd), "origin": "completion"},
			"llm_response_id": "r", "kind": "ActionEvent"}, false)
		out := benchOutput(rng, false)
		obs := benchJSON(map[string]any{"id": fmt.Sprintf("o-%d", turn), "timestamp": "2026-02-10T09:00:01.000000", "source": "environment", "tool_name": "terminal",
			"tool_call_id": callID, "observation": map[string]any{"content": []any{map[string]any{"type": "text", "text": out}}, "is_error": false, "exit_code": 0, "kind": "TerminalObservation"},
			"action_id": fmt.Sprintf("a-%d", turn), "kind": "ObservationEvent"}, false)
		fsys[fmt.Sprintf("events/event-%05d-a%d.json", 2*turn, turn)] = &fstest.MapFile{Data: action}
		fsys[fmt.Sprintf("events/event-%05d-o%d.json", 2*turn+1, turn)] = &fstest.MapFile{Data: obs}
		total += len(action) + len(obs)
		n++
	}
	return fsys, total
}

func TestGeneratedOpenHandsAndSWEAgentInputsAreReadCompletely(t *testing.T) {
	t.Parallel()
	list := benchJSON(openHandsGenerateEvents(2<<20), true)
	s := readGenerated(t, list, "openhands")
	turns := bytes.Count(list, []byte(`"observation": `))
	require.Len(t, s.Calls, turns)
	for i, c := range s.Calls {
		require.True(t, c.HasResult, "call %d", i)
		require.NotNil(t, c.CumulativeTokens)
		assert.EqualValues(t, 20080*(i+1), *c.CumulativeTokens)
	}

	traj := sweAgentGenerateTrajectory(2 << 20)
	s = readGenerated(t, traj, "swe-agent")
	steps := bytes.Count(traj, []byte(`"execution_time"`))
	require.Len(t, s.Calls, steps)
	for i, c := range s.Calls {
		assert.Equal(t, fmt.Sprintf("call_%06d", i), c.ID, "each step is joined to its history tool call")
	}

	fsys, _ := openHandsGenerateFolder(1 << 20)
	s, err := OpenHandsV1{}.ReadDir(fsys, Options{Source: "generated"})
	require.NoError(t, err)
	assert.Empty(t, s.Warnings)
	assert.Len(t, s.Calls, (len(fsys)-1)/2)
}

// BenchmarkOpenHandsRead reads a generated V0 event list of over 32 MB.
func BenchmarkOpenHandsRead(b *testing.B) {
	benchRead(b, OpenHands{}, openHandsBenchList(), Options{Source: "bench"}, -1)
}

// BenchmarkOpenHandsEvalReadAll reads a generated output.jsonl of eight
// instances, each line holding a history of over 4 MB.
func BenchmarkOpenHandsEvalReadAll(b *testing.B) {
	data := openHandsBenchEval()
	benchSessions(b, int64(len(data)), -1, func() ([]*Session, error) {
		all, err := OpenHandsEval{}.ReadAll(bytes.NewReader(data), Options{Source: "bench"})
		if err == nil && len(all) != 8 {
			err = fmt.Errorf("%d sessions, want 8", len(all))
		}
		return all, err
	})
}

// BenchmarkOpenHandsV1ReadDir reads a generated conversation folder of over
// 32 MB held in memory.
func BenchmarkOpenHandsV1ReadDir(b *testing.B) {
	fsys, size := openHandsGenerateFolder(32 << 20)
	benchSessions(b, int64(size), -1, func() ([]*Session, error) {
		s, err := OpenHandsV1{}.ReadDir(fsys, Options{Source: "bench"})
		return []*Session{s}, err
	})
}

// BenchmarkSWEAgentRead reads a generated .traj of over 32 MB.
func BenchmarkSWEAgentRead(b *testing.B) {
	benchRead(b, SWEAgent{}, sweAgentBench(), Options{Source: "bench"}, -1)
}
