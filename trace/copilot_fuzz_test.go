package trace

import (
	"bytes"
	"path/filepath"
	"testing"
)

func FuzzCopilotChat(f *testing.F) {
	fuzzSeeds(f, filepath.Join(copilotFixtures, "*"), []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets},
		`{"kind":0,"v":{"version":3,"requests":[]}}`+"\n"+`{"kind":2,"k":["requests"],"v":[{"result":{"metadata":{"toolCallRounds":[{"toolCalls":[{"name":"a","id":"1"}]}],"toolCallResults":{"1":{"content":[{"value":{"node":{"type":1,"children":[{"type":2,"text":"x"}]}}}]}}}}}]}`,
		`{"kind":0,"v":{"requests":[{"a":[1]}]}}`+"\n"+`{"kind":1,"k":["requests",0,"a",0],"v":{}}`+"\n"+`{"kind":3,"k":["requests",0]}`,
		`{"version":3,"sessionId":"s","requests":[null,1,{"response":[1,{"kind":"toolInvocationSerialized","toolId":"t"}]}]}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		CopilotChat{}.Detect(data)
		s, err := CopilotChat{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
		if whole, err := (CopilotChat{}).Read(bytes.NewReader(data), Options{Source: "fuzz"}); err == nil {
			fuzzCheckResultLimit(t, CopilotChat{}, data, whole)
		}
	})
}
