package trace

import (
	"bytes"
	"path/filepath"
	"testing"
)

func FuzzGeminiCLI(f *testing.F) {
	fuzzSeeds(f, filepath.Join(geminiFixtures, "*"), []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets})
	f.Add([]byte(`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"gemini","toolCalls":[{"name":"x","result":"t"}]}]}`))
	f.Add([]byte("{\"$rewindTo\":\"a\"}\n{\"$set\":{\"messages\":[1,{\"id\":\"a\"}]}}\n{\"id\":\"a\",\"type\":\"gemini\",\"tokens\":{\"input\":1e300}}\n"))
	f.Add([]byte("{\n\"messages\": [{\"id\": 1}, null],\n\"sessionId\": []\n}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		GeminiCLI{}.Detect(data)
		s, err := GeminiCLI{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
	})
}
