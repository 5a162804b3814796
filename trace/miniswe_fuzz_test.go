package trace

import (
	"bytes"
	"path/filepath"
	"testing"
)

func FuzzMiniSWEAgent(f *testing.F) {
	fuzzSeeds(f, filepath.Join(miniFixtures, "*"), []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets})
	f.Add([]byte(`{"info":{"mini_version":"1","config":{"model":{"action_regex":"(a*)*"}}},"messages":[{"role":"assistant","content":"aaaa"},{"role":"user","content":[{"type":"text","text":"<returncode>-1</returncode>"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"x","function":{"name":"bash","arguments":"{\"command\":1}"}}]},{"role":"tool","tool_call_id":"x","extra":{"returncode":"0","response":{"usage":{"prompt_tokens":1e40}}}}],"trajectory_format":"mini-swe-agent-1.1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		MiniSWEAgent{}.Detect(data)
		s, err := MiniSWEAgent{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
		small, smallErr := miniSWEReadDoc(newJSONDocSize(bytes.NewReader(data), 1+len(data)%13), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzSameRead(t, s, err, small, smallErr)
	})
}
