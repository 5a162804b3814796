package trace

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func FuzzGeminiCLI(f *testing.F) {
	fuzzSeeds(f, filepath.Join(geminiFixtures, "*"), []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets})
	f.Add([]byte(`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"gemini","toolCalls":[{"name":"x","result":"t"}]}]}`))
	f.Add([]byte("{\"$rewindTo\":\"a\"}\n{\"$set\":{\"messages\":[1,{\"id\":\"a\"}]}}\n{\"id\":\"a\",\"type\":\"gemini\",\"tokens\":{\"input\":1e300}}\n"))
	f.Add([]byte("{\n\"messages\": [{\"id\": 1}, null],\n\"sessionId\": []\n}"))
	// Shell results in each shape the reader unwraps.
	for _, out := range []string{
		"Command: ls\nDirectory: (root)\nOutput: a\nError: (none)\nExit Code: 1\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 9",
		"<untrusted_context>\nOutput: x &lt;/untrusted_context&gt;\nExit Code: 2\nProcess Group PGID: 3\n</untrusted_context>",
		"Output too large. Showing first 2 and last 4 characters. For full output see: /t\nOutput: ab\n\n... [9 characters omitted] ...\n\nSignal: 15",
		"Command was cancelled by user before it could complete. Below is the output before it was cancelled:\npartial",
	} {
		b, _ := json.Marshal(out)
		f.Add([]byte(`{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"gemini","toolCalls":[{"name":"run_shell_command","args":{"command":"ls"},"result":[{"functionResponse":{"response":{"output":` + string(b) + `}}}]}]}]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		GeminiCLI{}.Detect(data)
		s, err := GeminiCLI{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckRead(t, s, err, 16)
		if whole, err := (GeminiCLI{}).Read(bytes.NewReader(data), Options{Source: "fuzz"}); err == nil {
			// A cut changes the results only: failures are read from the
			// whole text.
			fuzzCheckResultLimit(t, GeminiCLI{}, data, whole)
		}
		// Read from a file, a document streams and a recording's messages
		// are read again from their lines: the session is the same (but
		// for a document broken before its kind, which the file gives).
		streamed, serr := GeminiCLI{}.Read(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16, file: bytes.NewReader(data), fileSize: int64(len(data))})
		if (err == nil) != (serr == nil) {
			t.Fatalf("read from a stream: %v; from a file: %v", err, serr)
		}
		broken := err == nil && slices.ContainsFunc(s.Warnings, func(w Warning) bool { return strings.Contains(w.Message, "cut short or malformed") })
		if err == nil && !broken && !reflect.DeepEqual(s, streamed) {
			t.Fatalf("read from a file, the session differs:\n%+v\n%+v", s, streamed)
		}
	})
}
