package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// geminiMiniFuzzSeeds adds every fixture of a folder, and broken variants of it
// (cut in half, cut by one byte, brackets swapped), to the seed corpus.
func geminiMiniFuzzSeeds(f *testing.F, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures in %s: %v", dir, err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
		f.Add(data[:len(data)-1])
		f.Add(bytes.ReplaceAll(data, []byte("["), []byte("{")))
	}
}

func FuzzGeminiCLI(f *testing.F) {
	geminiMiniFuzzSeeds(f, geminiFixtures)
	f.Add([]byte(`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"gemini","toolCalls":[{"name":"x","result":"t"}]}]}`))
	f.Add([]byte("{\"$rewindTo\":\"a\"}\n{\"$set\":{\"messages\":[1,{\"id\":\"a\"}]}}\n{\"id\":\"a\",\"type\":\"gemini\",\"tokens\":{\"input\":1e300}}\n"))
	f.Add([]byte("{\n\"messages\": [{\"id\": 1}, null],\n\"sessionId\": []\n}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		GeminiCLI{}.Detect(data)
		s, err := GeminiCLI{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		atifFuzzCheck(t, s, err)
		if err == nil {
			for _, c := range s.Calls {
				if len(c.Result) > 16 {
					t.Fatalf("result of %d bytes kept with MaxResultBytes 16", len(c.Result))
				}
			}
		}
	})
}
