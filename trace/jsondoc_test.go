package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The document readers give the same session whatever the size of their
// buffer and wherever reads split the input: a buffer that starts at one
// byte cuts every value at every place before it grows.
func TestDocumentReadersDoNotDependOnBufferSizes(t *testing.T) {
	t.Parallel()
	type reader func(d *jsonDoc, opts Options) (*Session, error)
	gemini := func(d *jsonDoc, opts Options) (*Session, error) {
		gr := newGeminiReader(opts)
		if err := gr.readDocument(d); err != nil {
			return nil, err
		}
		gr.finish()
		return gr.s, nil
	}
	files := map[string]reader{
		filepath.Join(openHandsFixtures, "minimal.json"):       openHandsReadList,
		filepath.Join(openHandsFixtures, "delegate.json"):      openHandsReadList,
		filepath.Join(openHandsFixtures, "error-result.json"):  openHandsReadList,
		filepath.Join(openHandsFixtures, "truncated.json"):     openHandsReadList,
		filepath.Join(geminiFixtures, "document.session.json"): gemini,
	}
	for glob, read := range map[string]reader{
		filepath.Join(sweAgentFixtures, "*.traj"): sweAgentReadDoc,
		filepath.Join(miniFixtures, "*.json"):     miniSWEReadDoc,
	} {
		matches, err := filepath.Glob(glob)
		require.NoError(t, err)
		require.NotEmpty(t, matches, glob)
		for _, f := range matches {
			files[f] = read
		}
	}
	for path, read := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			want, err := read(newJSONDoc(bytes.NewReader(data)), Options{Source: path})
			require.NoError(t, err)
			for _, size := range []int{1, 7, 100} {
				got, err := read(newJSONDocSize(iotest.OneByteReader(bytes.NewReader(data)), size), Options{Source: path})
				require.NoError(t, err)
				assert.Equal(t, want, got, "a buffer of %d", size)
			}
		})
	}
}

// readArray reads the elements of a one-array document with the given
// buffer size, by Value or (frame) by Frame, stopping at the first error.
func readArray(doc string, size int, frame bool) ([]string, error) {
	d := newJSONDocSize(iotest.HalfReader(strings.NewReader(doc)), size)
	if _, err := d.Open(); err != nil {
		return nil, err
	}
	var got []string
	for {
		more, err := d.NextElem()
		if err != nil || !more {
			return got, err
		}
		read := d.Value
		if frame {
			read = d.Frame
		}
		v, err := read()
		if err != nil {
			return got, err
		}
		got = append(got, string(v))
	}
}

func TestJSONDocFramesValues(t *testing.T) {
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
			for _, frame := range []bool{false, true} {
				for _, size := range []int{1, 3, 64} {
					got, err := readArray(tt.doc, size, frame)
					require.NoError(t, err)
					assert.Equal(t, tt.want, got, "a buffer of %d, Frame %v", size, frame)
				}
			}
		})
	}
}

func TestJSONDocReportsTheLineWhereTheDocumentBreaks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		line      int
		err       string
		truncated bool
	}{
		{"a value cut by the end of input", "[\n  \"abc", 2, "unexpected end of input", true},
		{"an array cut after a comma", "[\n  1,\n", 3, "unexpected end of input", true},
		{"a missing comma", "[\n  1\n  2\n]", 3, "invalid character '2' (expected ',' or ']')", false},
		{"a trailing comma", "[\n  1,\n]", 3, "invalid character ']'", false},
		{"a bad byte inside an object", "[\n  {\"a\":\n   x}\n]", 3, "invalid character 'x'", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := readArray(tt.doc, 64, false)
			var de *jsonDocError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, tt.line, de.Line)
			assert.Contains(t, de.Err.Error(), tt.err)
			assert.Equal(t, tt.truncated, de.Truncated)
		})
	}
}

// Frame does not check a value, so its errors are those of the framing
// alone: the end of input, and what cannot start a value.
func TestJSONDocFrameReportsWhereFramingBreaks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      []string
		line      int
		err       string
		truncated bool
	}{
		{"a string cut by the end of input", "[\n  \"abc", nil, 2, "unexpected end of input", true},
		{"an object cut by the end of input", "[\n  {\"a\": [1,\n", nil, 3, "unexpected end of input", true},
		{"a closing bracket where a value starts", "[\n  1,\n]", []string{"1"}, 3, "invalid character ']' (expected a value)", false},
		{"a bad byte inside an object is left to the decoder", "[{\"a\": x}, \n,]", []string{`{"a": x}`}, 2, "invalid character ','", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := readArray(tt.doc, 4, true)
			assert.Equal(t, tt.want, got)
			var de *jsonDocError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, tt.line, de.Line)
			assert.Contains(t, de.Err.Error(), tt.err)
			assert.Equal(t, tt.truncated, de.Truncated)
		})
	}
}
