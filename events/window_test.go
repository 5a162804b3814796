package events

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentretrieval/agentretrieval/trace"
)

func TestReadWindowsAreRecordedAsRead(t *testing.T) {
	t.Parallel()
	runExtractCases(t, []extractCase{
		{
			name: "a window of 10 around line 42 reads lines 32 to 52",
			tool: "read_file_lines", rule: ruleRead,
			args: `{"file_lines": [{"file_path": "pkg/a.go", "line_number": 42}], "window_size": 10}`,
			want: Extraction{Files: []FileRef{argRead("pkg/a.go")}, Ranges: []LineRange{lines("pkg/a.go", 32, 52)}},
		},
		{
			name: "a window reaching above line 1 starts at line 1",
			tool: "read_file_lines", rule: ruleRead,
			args: `{"file_lines": [{"file_path": "a.go", "line_number": 3}], "window_size": 10}`,
			want: Extraction{Files: []FileRef{argRead("a.go")}, Ranges: []LineRange{lines("a.go", 1, 13)}},
		},
		{
			name: "an entry's own window wins over the call's, and entries keep their order",
			tool: "read_file_lines", rule: ruleRead,
			args: `{"file_lines": [{"file_path": "b.go", "line_number": 100, "window_size": 2}, {"path": "a.go", "line": 5}], "window_size": 1}`,
			want: Extraction{Files: []FileRef{argRead("b.go"), argRead("a.go")}, Ranges: []LineRange{lines("b.go", 98, 102), lines("a.go", 4, 6)}},
		},
		{
			name: "without a window only the named line is credited",
			tool: "read_file_lines", rule: ruleRead,
			args: `{"file_lines": [{"file_path": "a.go", "line_number": 7}]}`,
			want: Extraction{Files: []FileRef{argRead("a.go")}, Ranges: []LineRange{lines("a.go", 7, 7)}},
		},
		{
			name: "line 1 is a line, line 0 none",
			tool: "read_file_lines", rule: ruleRead,
			args: `{"file_lines": [{"file_path": "a.go", "line_number": 1}, {"file_path": "b.go", "line_number": 0}], "window_size": 2}`,
			want: Extraction{Files: []FileRef{argRead("a.go"), argRead("b.go")}, Ranges: []LineRange{lines("a.go", 1, 3)}},
		},
		{
			name: "an entry that is not an object is warned about",
			tool: "read_file_lines", rule: ruleRead,
			args: `{"file_lines": ["a.go"]}`,
			want: Extraction{Warnings: []string{`file_lines entry "a.go" is not an object; no lines credited from it`}},
		},
	})
}

func TestExtractOriginsKeepsArgumentAndResultRangesApart(t *testing.T) {
	t.Parallel()
	call := &trace.ToolCall{
		Name:      "Read",
		Arguments: json.RawMessage(`{"file_path": "a.go", "offset": 10, "limit": 5}`),
		Result:    "    10\u2192x\n    11\u2192y\n    12\u2192z\n",
		HasResult: true,
	}
	ex, o := ExtractOrigins(call, ruleRead, PathNormalizer{})
	assert.Equal(t, []LineRange{lines("a.go", 10, 14)}, o.Args, "the arguments asked for 5 lines")
	assert.Equal(t, []LineRange{lines("a.go", 10, 12)}, o.Result, "the result showed 3")
	assert.Equal(t, o.Result, ex.Ranges, "Ranges prefers what the result showed")
}
