package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCursor reads mutated databases: corrupt pages, rows and JSON values
// must give an error or warnings, never a panic or an endless loop.
func FuzzCursor(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(cursorFixtures, cursorFixture))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		Cursor{}.Detect(data)
		all, err := Cursor{}.ReadAll(bytes.NewReader(data), Options{Source: "fuzz", MaxResultBytes: 16})
		fuzzCheckReadAll(t, all, err, 16)
	})
}
