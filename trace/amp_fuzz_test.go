package trace

import (
	"bytes"
	"path/filepath"
	"testing"
)

func FuzzAmp(f *testing.F) {
	fuzzSeeds(f, filepath.Join(ampFixtures, "*"), []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets},
		`{"v":1,"id":"T-1","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Read"}]},{"role":"user","content":[{"type":"tool_result","toolUseID":"a","run":{"status":"done","result":{"output":"x","exitCode":1}}}]}]}`,
		`{"v":1,"id":"T-1","env":{"initial":{"trees":[{"uri":"file:///c%3A/w"}]}},"messages":[null,1,{"content":[1]}]}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		Amp{}.Detect(data)
		s, err := Amp{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
		if whole, err := (Amp{}).Read(bytes.NewReader(data), Options{Source: "fuzz"}); err == nil {
			fuzzCheckResultLimit(t, Amp{}, data, whole)
		}
	})
}
