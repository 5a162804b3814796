package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// openHandsFuzzSeeds adds the fixtures matching the pattern, and broken
// variants of each (one with its event ids repeated), to the seed corpus.
func openHandsFuzzSeeds(f *testing.F, pattern string) {
	fuzzSeeds(f, pattern, []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets, fuzzReplace(`"id": 3`, `"id": 1`)})
}

func FuzzOpenHands(f *testing.F) {
	openHandsFuzzSeeds(f, filepath.Join(openHandsFixtures, "*.json"))
	f.Add([]byte(`[{"id":1,"source":"agent","action":"delegate"},{"id":2,"source":"agent","action":"delegate"},{"observation":"delegate","cause":1},{"observation":"delegate"},{"observation":"delegate"}]`))
	f.Add([]byte(`[{"id":1,"action":"run","tool_call_metadata":{"tool_call_id":"a","model_response":{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"arguments":"[1"}}]}}]}}},{"id":2,"cause":1,"observation":"run","extras":{"metadata":{"exit_code":1e40}}}]`))
	f.Add([]byte(`[{"id":1,"source":"agent","action":"run","llm_metrics":{"accumulated_token_usage":{"prompt_tokens":-1,"completion_tokens":9.5}}},1,null,"x"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		OpenHands{}.Detect(data)
		s, err := OpenHands{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
		small, smallErr := openHandsReadList(newJSONDocSize(bytes.NewReader(data), 1+len(data)%13), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzSameRead(t, s, err, small, smallErr)
		// Handed over as read, dropping half the calls: the same calls
		// and session.
		assertStreamedAsWhole(t, "openhands", data)
	})
}

func FuzzOpenHandsV1(f *testing.F) {
	openHandsFuzzSeeds(f, filepath.Join(openHandsFixtures, "v1-*.jsonl"))
	files, _ := filepath.Glob(filepath.Join(openHandsFixtures, "v1-conversation", "events", "*.json"))
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte(`{"kind":"ConversationStateUpdateEvent","source":"environment","key":"stats","value":{"usage_to_metrics":{"a":{"accumulated_token_usage":{"prompt_tokens":1}},"b":null}}}`))
	f.Add([]byte(`[{"kind":"ActionEvent","source":"agent","tool_call_id":"x"},{"kind":"AgentErrorEvent","tool_call_id":"x","error":[{"text":"e"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		OpenHandsV1{}.Detect(data)
		s, err := OpenHandsV1{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
		// The same bytes as one event file of a folder, next to a
		// base_state.json of the same bytes.
		fsys := fstest.MapFS{
			"base_state.json":                              {Data: data},
			"events/event-00000-00000000.json":             {Data: data},
			"events/event-00001-00000001.json":             {Data: data},
			"subagents/x/events/event-00000-00000000.json": {Data: data},
		}
		s, err = OpenHandsV1{}.ReadDir(fsys, Options{Source: "fuzz"})
		fuzzCheckRead(t, s, err, 0)
	})
}

func FuzzOpenHandsEval(f *testing.F) {
	openHandsFuzzSeeds(f, filepath.Join(openHandsFixtures, "*.jsonl"))
	f.Add([]byte(`{"instance_id":7,"history":[{"kind":"ActionEvent"},{"id":1,"action":"run"}],"metrics":{"accumulated_token_usage":null}}` + "\n" + `{"instance_id":"b"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		OpenHandsEval{}.Detect(data)
		all, err := OpenHandsEval{}.ReadAll(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		if err == nil && len(all) == 0 {
			t.Fatal("no session and no error")
		}
		for _, s := range all {
			fuzzCheckRead(t, s, nil, 16)
		}
		assertStreamedAsWhole(t, "openhands-eval", data)
	})
}

func FuzzSWEAgent(f *testing.F) {
	openHandsFuzzSeeds(f, filepath.Join(sweAgentFixtures, "*.traj"))
	f.Add([]byte(`{"trajectory":[{"action":"ls"}],"history":[{"role":"assistant","action":"ls","tool_calls":[{"id":"a","function":{"name":"","arguments":null}}]}],"replay_config":"{\"agent\":{\"model\":{\"name\":1}}}"}`))
	f.Add([]byte(`{"history":[{"role":"assistant","action":"ls"},{"role":"user","content":[{"type":"image"}]},{"role":"tool","tool_call_ids":["x","x"],"content":"y"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		SWEAgent{}.Detect(data)
		s, err := SWEAgent{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
		small, smallErr := sweAgentReadDoc(newJSONDocSize(bytes.NewReader(data), 1+len(data)%13), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzSameRead(t, s, err, small, smallErr)
	})
}
