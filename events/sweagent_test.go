package events

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentretrieval/agentretrieval/trace"
)

func TestSWEAgentArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tool string
		args string
		want map[string]any // nil: not an SWE-agent command
	}{
		{"open with a quoted path and a line", "open", `{"command": "open \"src/my file.py\" 120"}`,
			map[string]any{"path": "src/my file.py", "line_number": 120.0, "startLine": 103.0, "endLine": 202.0}},
		{"open without a line shows the first window", "open", `{"command": "open src/x.py"}`,
			map[string]any{"path": "src/x.py", "startLine": 1.0, "endLine": 100.0}},
		{"a line that is not a number is kept as text", "open", `{"command": "open src/x.py abc"}`,
			map[string]any{"path": "src/x.py", "line_number": "abc", "startLine": 1.0, "endLine": 100.0}},
		{"goto names only the line", "goto", `{"command": "goto 50"}`, map[string]any{"line_number": 50.0}},
		{"scroll_down has no arguments", "scroll_down", `{"command": "scroll_down"}`, map[string]any{}},
		{"find_file's name is the query", "find_file", `{"command": "find_file '*.py' src"}`,
			map[string]any{"file_name": "*.py", "dir": "src", "pattern": "*.py"}},
		{"find_file as a function call", "find_file", `{"file_name": "fields.py", "dir": "src"}`,
			map[string]any{"file_name": "fields.py", "dir": "src", "pattern": "fields.py"}},
		{"search_dir takes a term and a directory", "search_dir", `{"command": "search_dir \"def foo\" lib"}`,
			map[string]any{"search_term": "def foo", "dir": "lib"}},
		{"search_file takes a term and a file", "search_file", `{"command": "search_file precision src/x.py"}`,
			map[string]any{"search_term": "precision", "file": "src/x.py"}},
		{"str_replace_editor flags", "str_replace_editor", `{"command": "str_replace_editor view /repo/x.py --view_range 10 40"}`,
			map[string]any{"command": "view", "path": "/repo/x.py", "view_range": []any{10.0, 40.0}}},
		{"str_replace_editor with multi-line quoted text", "str_replace_editor", `{"command": "str_replace_editor create /repo/y.py --file_text 'a\nb'"}`,
			map[string]any{"command": "create", "path": "/repo/y.py", "file_text": "a\nb"}},
		{"a view range that is not two numbers is dropped", "str_replace_editor", `{"command": "str_replace_editor view /repo/x.py --view_range 10"}`,
			map[string]any{"command": "view", "path": "/repo/x.py"}},
		{"pre-1.0 edit reads its line span from the first line", "edit", `{"command": "edit 10:12\n    x = (\nend_of_edit"}`,
			map[string]any{"start_line": 10.0, "end_line": 12.0}},
		{"edit with a search and a replacement", "edit", `{"command": "edit 'a = 1' 'a = 2'"}`,
			map[string]any{"search": "a = 1", "replace": "a = 2"}},
		{"a variable is kept as written", "open", `{"command": "open $FILE"}`,
			map[string]any{"path": "$FILE", "startLine": 1.0, "endLine": 100.0}},
		{"escapes inside double quotes are resolved", "search_dir", `{"command": "search_dir \"say \\\"hi\\\" \\\\ now\" lib"}`,
			map[string]any{"search_term": `say "hi" \ now`, "dir": "lib"}},
		{"a backslash outside quotes is kept", "search_file", `{"command": "search_file a\\.b src/x.py"}`,
			map[string]any{"search_term": `a\.b`, "file": "src/x.py"}},
		{"a home folder is kept as written", "open", `{"command": "open ~root/x.py"}`,
			map[string]any{"path": "~root/x.py", "startLine": 1.0, "endLine": 100.0}},
		{"an ANSI-C string is kept as written", "search_file", `{"command": "search_file $'a\\tb' src/x.py"}`,
			map[string]any{"search_term": `$'a\tb'`, "file": "src/x.py"}},
		{"a bash tool is not an SWE-agent command", "bash", `{"command": "open x.py"}`, nil},
		{"a command line of another command is not read", "open", `{"command": "goto 5"}`, nil},
		{"a name that only starts like the command is not it", "open", `{"command": "openssl x"}`, nil},
		{"structured arguments of another agent's tool are left alone", "edit", `{"command": "str_replace", "path": "a.py"}`, nil},
		{"an unparsable line is left alone", "open", `{"command": "open 'unterminated"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args, _, _ := decodeArguments(json.RawMessage(tt.args), "", false)
			got := sweAgentArguments(tt.tool, args)
			if tt.want == nil {
				assert.Nil(t, got)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPatchFiles(t *testing.T) {
	t.Parallel()
	args, _, _ := decodeArguments(json.RawMessage(`{"input": "*** Begin Patch\r\n*** Update File: a.go\r\n*** Move to: b.go\r\n@@\n-x\n+y\n*** Delete File: c.go\n*** End Patch"}`), "", false)
	assert.Equal(t, []any{"a.go", "b.go", "c.go"}, patchFiles(args))
	args, _, _ = decodeArguments(json.RawMessage(`{"input": "*** Update File: a.go"}`), "", false)
	assert.Empty(t, patchFiles(args), "text without the patch envelope is not a patch")
	args, _, _ = decodeArguments(json.RawMessage(`{"changes": [{"path": "a.go", "kind": "add"}, {"kind": "delete"}, "x"]}`), "", false)
	assert.Equal(t, []any{"a.go"}, patchFiles(args))
}

func FuzzSWEAgentArguments(f *testing.F) {
	for _, s := range []struct{ tool, line string }{
		{"open", `open "src/x.py" 120`},
		{"str_replace_editor", `str_replace_editor view /r/x.py --view_range 10 40`},
		{"str_replace_editor", `str_replace_editor view /r/x.py --view_range`},
		{"edit", "edit 1:3\nx\nend_of_edit"},
		{"search_dir", `search_dir "a b" $(pwd)`},
		{"find_file", `find_file *.py`},
	} {
		f.Add(s.tool, s.line, "x")
	}
	tax := DefaultTaxonomy()
	f.Fuzz(func(t *testing.T, tool, line, result string) {
		args, err := json.Marshal(map[string]string{"command": line})
		if err != nil {
			return
		}
		c := &trace.ToolCall{Name: tool, Arguments: args, Result: result}
		rule, _ := tax.ClassifyCall(c)
		n := PathNormalizer{CWD: "/testbed"}
		checkInvariants(t, Extract(c, rule, n), n)
	})
}
