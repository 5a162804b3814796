package trace

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claimants returns the names of the registered formats whose Detect
// accepts the start of data.
func claimants(data []byte) []string {
	if len(data) > DetectSize {
		data = data[:DetectSize]
	}
	data = trimLeading(data)
	var names []string
	for _, f := range DefaultRegistry().formats {
		if f.Detect(data) {
			names = append(names, f.Name())
		}
	}
	return names
}

// Every OpenHands and SWE-agent fixture and sample is claimed by exactly its
// own format, and every other trace file of the repository and of the
// samples by none of these four formats.
func TestOpenHandsAndSWEAgentDetection(t *testing.T) {
	t.Parallel()
	ours := []string{"openhands", "openhands-v1", "openhands-eval", "swe-agent"}
	expect := func(path string) string {
		base := filepath.Base(path)
		switch {
		case strings.HasSuffix(path, ".traj") && (strings.Contains(path, "swe-agent") || strings.Contains(path, "swe_agent")):
			return "swe-agent"
		case strings.Contains(path, "openhands") && base == "output.jsonl":
			return "openhands-eval"
		case strings.Contains(path, "openhands") && strings.HasPrefix(base, "v1-"):
			return "openhands-v1"
		case strings.Contains(filepath.ToSlash(path), "/openhands/"):
			return "openhands"
		}
		return ""
	}
	roots := []string{"testdata/openhands", "testdata/swe-agent", filepath.Join("..", "testdata", "traces"), sharedSamples}
	n := 0
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			if root == sharedSamples {
				continue
			}
			t.Fatalf("missing fixtures at %s", root)
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(filepath.ToSlash(path), "/events/") || filepath.Base(path) == "base_state.json" || strings.HasSuffix(path, ".md") {
				return err
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			got := claimants(data)
			want := expect(path)
			n++
			if want != "" {
				assert.Equal(t, []string{want}, got, path)
				return nil
			}
			for _, name := range got {
				assert.False(t, slices.Contains(ours, name), "%s is claimed by %s", path, name)
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.Greater(t, n, 20)

	// A V1 conversation folder is recognized by the folder reader.
	s, err := ReadFile(filepath.Join("testdata", "openhands", "v1-conversation"), Options{})
	require.NoError(t, err)
	assert.Equal(t, "openhands-v1", s.Format)
}

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
			got := claimants([]byte(tt.prefix))
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
