package trace

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

func FuzzMiniSWEAgent(f *testing.F) {
	fuzzSeeds(f, filepath.Join(miniFixtures, "*"), []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets})
	f.Add([]byte(`{"info":{"mini_version":"1","config":{"model":{"action_regex":"(a*)*"}}},"messages":[{"role":"assistant","content":"aaaa"},{"role":"user","content":[{"type":"text","text":"<returncode>-1</returncode>"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"x","function":{"name":"bash","arguments":"{\"command\":1}"}}]},{"role":"tool","tool_call_id":"x","extra":{"returncode":"0","response":{"usage":{"prompt_tokens":1e40}}}}],"trajectory_format":"mini-swe-agent-1.1"}`))
	// Observations in each shape the reader unwraps.
	for _, obs := range []string{
		"<exception>boom</exception>\n<returncode>-1</returncode>\n<output>\nx\n</output>",
		"<returncode>0</returncode>\n<warning>\nlong\n</warning><output_head>\nab\n</output_head>\n<elided_chars>\n5 characters elided\n</elided_chars>\n<output_tail>\nyz\n</output_tail>",
		"{\n  \"returncode\": 1,\n  \"output_head\": \"a\",\n  \"output_tail\": \"z\",\n  \"elided_chars\": 3\n}",
		"The last command <command>x</command> timed out and has been killed.\nThe output of the command was:\n <output>\nw\n</output>\nPlease try another command.",
	} {
		b, _ := json.Marshal(obs)
		f.Add([]byte(`{"info":{"mini_version":"1"},"messages":[{"role":"assistant","content":"` + "```bash\\nls\\n```" + `"},{"role":"user","content":` + string(b) + `}]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		MiniSWEAgent{}.Detect(data)
		s, err := MiniSWEAgent{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
		if whole, err := (MiniSWEAgent{}).Read(bytes.NewReader(data), Options{Source: "fuzz"}); err == nil {
			fuzzCheckResultLimit(t, MiniSWEAgent{}, data, whole)
		}
		small, smallErr := miniSWEReadDoc(newJSONDocSize(bytes.NewReader(data), 1+len(data)%13), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzSameRead(t, s, err, small, smallErr)
	})
}
