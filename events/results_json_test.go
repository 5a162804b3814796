package events

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lines a JSON result's entry names: its start and end keys, a
// "lines" text of a line or a range, or its start and the lines of its
// content; a range that starts before line 1 or ends before it starts is
// none, and so is a number that is no line number.
func TestJSONLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		doc        string
		start, end int
		ok         bool
	}{
		{`{"startLine": 3, "endLine": 7}`, 3, 7, true},
		{`{"line_start": 1, "line_end": 1}`, 1, 1, true},
		{`{"start_line": 5, "end_line": 4}`, 5, 4, false},
		{`{"line": "7"}`, 7, 7, true},
		{`{"lineNumber": 3, "content": "a\nb\nc\n"}`, 3, 5, true},
		{`{"lineNumber": 3, "content": ""}`, 3, 3, true},
		{`{"lines": "5-9"}`, 5, 9, true},
		{`{"lines": " 5 - 9 "}`, 5, 9, true},
		{`{"lines": "5"}`, 5, 5, true},
		{`{"lines": "5-"}`, 5, 5, true},
		{`{"lines": "1-1"}`, 1, 1, true},
		{`{"lines": "9-5"}`, 9, 5, false},
		{`{"lines": "0-3"}`, 0, 3, false},
		{`{"lines": "a-3"}`, 0, 0, false},
		{`{"startLine": 7.5, "lines": "2"}`, 2, 2, true},
		{`{"startLine": 100000000}`, 100_000_000, 100_000_000, true},
		{`{"startLine": 100000001}`, 0, 0, false},
		{`{"startLine": -100000001}`, 0, 0, false},
		{`{"startLine": -2, "endLine": 3}`, -2, 3, false},
		{`{"startLine": true}`, 0, 0, false},
	} {
		m, err := decodeJSON(tc.doc)
		require.NoError(t, err, tc.doc)
		start, end, ok := jsonLines(m)
		assert.Equal(t, []any{tc.start, tc.end, tc.ok}, []any{start, end, ok}, tc.doc)
	}
}
