package trace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOpenHandsAndSWEAgentDetectFromPrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, prefix, want string }{
		{"a V0 event list", `[{"id":0,"timestamp":"2025-01-01T00:00:00","source":"user","message":"hi","action":"message","args":{}}]`, "openhands"},
		{"a V0 list starting with an observation", "[\n  {\n    \"id\": 0,\n    \"observation\": \"agent_state_changed\",\n    \"source\": \"environment\"", "openhands"},
		{"a V1 event line", `{"id":"a","timestamp":"2026-01-01T00:00:00","source":"agent","system_prompt":{"type":"text","text":"x"},"tools":[],"kind":"SystemPromptEvent"}`, "openhands-v1"},
		{"a V1 event array", `[{"kind":"MessageEvent","id":"a","source":"user","llm_message":{"role":"user","content":[]}}]`, "openhands-v1"},
		{"a V1 observation first is not V0", `[{"kind":"ObservationEvent","id":"a","source":"environment","observation":{"kind":"TerminalObservation"}}]`, "openhands-v1"},
		{"an evaluation output line cut by the prefix", `{"instance_id":"django__django-1","test_result":{"git_patch":"`, "openhands-eval"},
		{"a SWE-agent trajectory", `{"environment":"main","trajectory":[{"action":"ls","observation":""}]}`, "swe-agent"},
		{"a SWE-agent trajectory cut in its first step", `{"trajectory":[{"action":"open a.py","observation":"[File`, "swe-agent"},
		{"a SWE-agent history", `{"history":[{"role":"system","content":"x","agent":"main","message_type":"system_prompt"}]}`, "swe-agent"},
		{"an empty SWE-agent trajectory", `{"environment":"main","trajectory":[],"history":[]}`, "swe-agent"},

		{"a SWE-bench instance line", `{"instance_id":"django__django-1","patch":"diff","problem_statement":"x"}`, ""},
		{"SWE-agent predictions", `{"instance_id":"x","model_patch":"diff","model_name_or_path":"gpt4"}`, ""},
		{"a mini-swe-agent trajectory", `{"info":{"mini_version":"1.13.4"},"messages":[{"role":"system","content":"x"}],"trajectory_format":"mini-swe-agent-1"}`, ""},
		{"a chat history of another tool", `{"history":[{"role":"user","content":"hi"}]}`, ""},
		{"a trajectory of other steps", `{"trajectory":[{"step":1,"tool":"x"}]}`, ""},
		{"an ATIF document", `{"schema_version":"ATIF-v1.5","session_id":"s","steps":[]}`, ""},
		{"tool-call records", `[{"tool":"Read","arguments":{}}]`, ""},
		{"an object with a kind but no source", `{"kind":"ActionEvent","id":"a"}`, ""},
		{"a kind that is not an event", `{"kind":"Agent","source":"x"}`, ""},
		{"an empty array", `[]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := detectors([]byte(tt.prefix))
			if tt.want == "" {
				for _, name := range got {
					assert.NotContains(t, []string{"openhands", "openhands-v1", "openhands-eval", "swe-agent"}, name)
				}
				return
			}
			assert.Equal(t, []string{tt.want}, got)
		})
	}
}
