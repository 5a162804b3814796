package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Framing must not depend on where reads happen to split the input: every
// document fixture reads the same one byte at a time.
func TestDocumentReadersDoNotDependOnReadBoundaries(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(miniFixtures, "*.json"))
	files = append(files, filepath.Join(geminiFixtures, "document.session.json"))
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			want, err := ReadFile(file, Options{})
			require.NoError(t, err)
			f, _ := DefaultRegistry().Lookup(want.Format)
			got, err := f.Read(iotest.OneByteReader(bytes.NewReader(data)), Options{Source: file})
			require.NoError(t, err)
			assert.Equal(t, want.Calls, got.Calls)
			assert.Equal(t, want.Warnings, got.Warnings)
		})
	}
}

func TestDocStreamFramesValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"strings with escaped quotes and backslashes", `["a\"b", "c\\", "\\\"d"]`, []string{`"a\"b"`, `"c\\"`, `"\\\"d"`}},
		{"brackets inside strings do not count", `[{"a": "}]{["}, ["]"]]`, []string{`{"a": "}]{["}`, `["]"]`}},
		{"scalars end at delimiters", "[1, -2.5e3,true ,null\n]", []string{"1", "-2.5e3", "true", "null"}},
		{"an empty array has no values", `[ ]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newDocStream(iotest.HalfReader(strings.NewReader(tt.doc)))
			require.NoError(t, d.expect('[', "'['"))
			var got []string
			for first := true; ; first = false {
				more, err := d.next(first, ']')
				require.NoError(t, err)
				if !more {
					break
				}
				v, err := d.value()
				require.NoError(t, err)
				got = append(got, string(v))
			}
			assert.Equal(t, tt.want, got)
			note, _ := d.end()
			assert.Empty(t, note)
		})
	}
}

func TestDocStreamReportsTheLineWhereTheDocumentBreaks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		line      int
		err       string
	}{
		{"a value cut by the end of input", "[\n  \"abc", 2, "unexpected EOF"},
		{"a missing comma", "[\n  1\n  2\n]", 3, "invalid character '2' after a value (expected ',' or ']')"},
		{"a trailing comma", "[\n  1,\n]", 3, "invalid character ']' after a comma (expected a value)"},
		{"a bad byte inside a framed object", "[\n  {\"a\":\n   x}\n]", 3, "invalid character 'x'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newDocStream(strings.NewReader(tt.doc))
			require.NoError(t, d.expect('[', "'['"))
			var err error
			var sc jsonscan.Scanner
			for first := true; err == nil; first = false {
				var more bool
				if more, err = d.next(first, ']'); err != nil || !more {
					break
				}
				d.peek()
				line := d.line()
				var v []byte
				if v, err = d.value(); err == nil {
					sc.Reset(v)
					sc.Skip()
					if sc.Err() != nil {
						err = d.valueError(line, v, sc.Err(), "a value")
					}
				}
			}
			var se *atifStreamError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.line, se.Line)
			assert.Contains(t, se.Err.Error(), tt.err)
		})
	}
}
