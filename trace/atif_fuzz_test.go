package trace

import (
	"bytes"
	"path/filepath"
	"testing"
)

// atifFuzzSeeds adds every fixture of a testdata folder, and broken
// variants of it, to the seed corpus.
func atifFuzzSeeds(f *testing.F, dir string) {
	fuzzSeeds(f, filepath.Join("..", "testdata", "traces", dir, "*.json"),
		[]func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets, fuzzReplace(`"`, `'`)})
}

func FuzzATIF(f *testing.F) {
	atifFuzzSeeds(f, "atif")
	f.Add([]byte(`{"schema_version":"ATIF-v1.7","subagent_trajectories":[{"trajectory_id":"a","steps":[{"step_id":1,"source":"agent","tool_calls":[{"tool_call_id":"x","function_name":"f"}],"observation":{"results":[{"source_call_id":"x","subagent_trajectory_ref":[{"trajectory_id":"a"}]}]}}]}]}`))
	f.Add([]byte(`{"steps":[{"step_id":1,"source":"agent","metrics":{"prompt_tokens":1e300,"completion_tokens":-5}}]}`))
	f.Add([]byte(`{"steps":null,"agent":[],"extra":7}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ATIF{}.Detect(data)
		s, err := ATIF{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 0)
	})
}
