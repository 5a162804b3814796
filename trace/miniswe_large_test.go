package trace

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// miniGenerateTrajectory writes a tool-calling mini-swe-agent trajectory
// of at least size bytes, indented as the agent writes it: assistant
// messages with one or two tool_calls and the model's whole response
// (choices repeat the message) in extra, and tool replies whose rendered
// observation is repeated in extra.raw_output. Outputs range from a few
// hundred bytes to a few hundred kilobytes. It returns the trajectory and
// the number of calls in it.
func miniGenerateTrajectory(size int) ([]byte, int) {
	rng := rand.New(rand.NewPCG(5, 6))
	var msgs []any
	msgs = append(msgs,
		map[string]any{"role": "system", "content": "You are a helpful assistant that can interact with a computer shell to solve programming tasks."},
		map[string]any{"role": "user", "content": "<pr_description>\nFix the retry logic of the handler.\n</pr_description>"})
	var out strings.Builder
	calls, total := 0, 0
	for turn := 0; total < size; turn++ {
		var toolCalls, actions, replies []any
		for k := 0; k < 1+turn%2; k++ {
			out.Reset()
			n := 5 + rng.IntN(60)
			if rng.IntN(10) == 0 {
				n = 2000 + rng.IntN(4000)
			}
			for i := 1; i <= n; i++ {
				fmt.Fprintf(&out, "%6d\t%s\n", i, claudeCodeLines[rng.IntN(len(claudeCodeLines))])
			}
			id := fmt.Sprintf("call_%02d_%06d", k, turn)
			cmd := fmt.Sprintf("nl -ba src/pkg%d/file%d.py | sed -n '1,%dp'", turn%17, turn%101, n)
			args, _ := json.Marshal(map[string]string{"command": cmd})
			toolCalls = append(toolCalls, map[string]any{"index": k, "function": map[string]any{"arguments": string(args), "name": "bash"}, "id": id, "type": "function"})
			actions = append(actions, map[string]any{"command": cmd, "tool_call_id": id})
			output := out.String()
			replies = append(replies, map[string]any{"content": "<returncode>0</returncode>\n<output>\n" + output + "</output>",
				"extra":        map[string]any{"raw_output": output, "returncode": 0, "timestamp": 1775700000.5 + float64(turn), "exception_info": ""},
				"tool_call_id": id, "role": "tool"})
			calls++
			total += 2*len(output) + 600
		}
		text := "Let me look at the \"retry\" handler next."
		msgs = append(msgs, map[string]any{"content": text, "role": "assistant", "tool_calls": toolCalls, "function_call": nil, "provider_specific_fields": nil,
			"extra": map[string]any{"actions": actions, "cost": 0.0004, "timestamp": 1775700000.25 + float64(turn),
				"response": map[string]any{"id": fmt.Sprintf("resp-%06d", turn), "created": 1775700000 + turn, "model": "deepseek-chat", "object": "chat.completion",
					"choices": []any{map[string]any{"finish_reason": "tool_calls", "index": 0, "message": map[string]any{"content": text, "role": "assistant", "tool_calls": toolCalls}}},
					"usage":   map[string]any{"completion_tokens": 85, "prompt_tokens": 20000 + turn, "total_tokens": 20085 + turn, "prompt_tokens_details": map[string]any{"cached_tokens": 15000}}}}})
		msgs = append(msgs, replies...)
		total += 2000
	}
	msgs = append(msgs, map[string]any{"role": "exit", "content": "", "extra": map[string]any{"exit_status": "Submitted", "submission": ""}})
	doc := struct {
		Info             any    `json:"info"`
		Messages         []any  `json:"messages"`
		TrajectoryFormat string `json:"trajectory_format"`
		InstanceID       string `json:"instance_id"`
	}{
		Info: map[string]any{"model_stats": map[string]any{"instance_cost": 0.5, "api_calls": len(msgs)}, "mini_version": "2.2.7",
			"exit_status": "Submitted", "submission": "", "config": map[string]any{"model": map[string]any{"model_name": "deepseek/deepseek-chat"}}},
		Messages: msgs, TrajectoryFormat: "mini-swe-agent-1.1", InstanceID: "acme__bench-1",
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return data, calls
}

var miniBench = sync.OnceValues(func() ([]byte, int) { return miniGenerateTrajectory(64 << 20) })

func TestMiniSWEAgentGeneratedTrajectoryIsReadCompletely(t *testing.T) {
	t.Parallel()
	data, calls := miniGenerateTrajectory(2 << 20)
	s := readGenerated(t, data, "mini-swe-agent")
	require.Len(t, s.Calls, calls)
	for i, c := range s.Calls {
		require.True(t, c.HasResult, "call %d", i)
		require.NotNil(t, c.CumulativeTokens, "call %d", i)
	}
}

// BenchmarkMiniSWEAgentRead reads a generated trajectory of 64 MB; the MB/s
// it reports is the reader's throughput.
func BenchmarkMiniSWEAgentRead(b *testing.B) {
	data, calls := miniBench()
	benchRead(b, MiniSWEAgent{}, data, Options{Source: "bench"}, calls)
}
