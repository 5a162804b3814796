package trace

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An input in no known format is an error that says what the input looked
// like, and suggests forcing a reader only when one would read it.
func TestUnknownInputSaysWhatItLookedLike(t *testing.T) {
	t.Parallel()
	claudeLines := "# notes\n" + strings.Repeat("not json\n", 5) +
		`{"type":"assistant","sessionId":"s","isSidechain":false,"message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{}}]}}` + "\n"
	tests := []struct {
		name, in   string
		input      string
		suggestion []string
	}{
		{"plain text", "hello world\nsecond line\n", `text starting "hello world"`, nil},
		{"a JSON object of another program", `{"foo": 1, "bar": [1, 2]}`, `a JSON object with keys "foo", "bar"`, nil},
		{"JSON Lines of another program", "{\"a\":1}\n{\"a\":2}\n", `JSON Lines whose first record has keys "a"`, nil},
		{"many keys are cut at eight", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`, `a JSON object with keys "a", "b", "c", "d", "e", "f", "g", "h", …`, nil},
		{"gzip", "\x1f\x8b\x08\x00\x00", "gzip-compressed data (decompress it first)", nil},
		{"binary", "\x00\x01\x02", "binary data", nil},
		{"an empty array", "[]", "an empty JSON array", nil},
		{"records a reader reads when forced", `[{"name":"Read","arguments":{}}]`, `a JSON array whose first element has keys "name", "arguments"`, []string{"tool-calls"}},
		{"a text file quoting one trace line is not suggested", claudeLines, `text starting "# notes"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.in), Options{Source: "in"})
			var fe *FormatError
			require.True(t, errors.As(err, &fe), "error %v", err)
			assert.Equal(t, tt.input, fe.Input)
			assert.Equal(t, tt.suggestion, fe.Readable)
			assert.Contains(t, err.Error(), "the input is "+tt.input)
			if tt.suggestion == nil {
				assert.NotContains(t, err.Error(), "-format", "no reader is suggested when none would read the input")
			} else {
				assert.Contains(t, err.Error(), "-format "+tt.suggestion[0])
			}
		})
	}
}

// Where a format is forced by another setting than the -format flag (a
// scenario's format: key), the suggestion names that setting.
func TestFormatSuggestionNamesTheSetting(t *testing.T) {
	t.Parallel()
	_, err := Read(strings.NewReader(`[{"name":"Read","arguments":{}}]`), Options{Source: "in"})
	var fe *FormatError
	require.True(t, errors.As(err, &fe))
	fe.Setting = "format: NAME"
	assert.Contains(t, fe.Error(), "forcing the tool-calls format (format: tool-calls) reads tool calls from it")
	assert.NotContains(t, fe.Error(), "-format")
}

// Whether a forced reader would read the input is found out without the
// caller's CallDone: the sessions read to find it out are not the
// caller's, and a reader that drops the calls CallDone releases
// (DropReleased) would seem to read none.
func TestFormatSuggestionIsTheSameWithCallDone(t *testing.T) {
	t.Parallel()
	in := "# notes\n" +
		`{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/a"}},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/w/b"}}]}}` + "\n" +
		`{"type":"user","sessionId":"s","cwd":"/w","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a"},{"type":"tool_result","tool_use_id":"t2","content":"b"}]}}` + "\n"
	_, err := Read(strings.NewReader(in), Options{Source: "in"})
	var plain *FormatError
	require.True(t, errors.As(err, &plain), "error %v", err)
	require.Contains(t, plain.Readable, "claude-code", "the input a forced Claude reader reads")

	for _, drop := range []bool{false, true} {
		handed := 0
		_, err := Read(strings.NewReader(in), Options{Source: "in", DropReleased: drop, CallDone: func(*Session, int) bool {
			handed++
			return true
		}})
		var fe *FormatError
		require.True(t, errors.As(err, &fe), "error %v", err)
		assert.Equal(t, plain.Readable, fe.Readable, "calls dropped: %v", drop)
		assert.Zero(t, handed, "no call of a session the caller never gets is handed over")
	}
}
