package events

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// agentCall is one call as an agent's trace reader hands it over, and what
// normalizing it must record.
type agentCall struct {
	name     string
	format   string // trace.Session.Format
	cwd      string
	tool     string
	args     string
	result   string
	category Category
	class    Class
	files    []string // FilesRead
	written  []string // FilesWritten
	surfaced []string // TargetFiles, when it differs from files
	ranges   []LineRange
	query    string
	skip     string
}

func runAgentCalls(t *testing.T, tests []agentCall) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.skip != "" {
				t.Skip(tt.skip)
			}
			s := &trace.Session{Format: tt.format, CWD: tt.cwd, Calls: []trace.ToolCall{{
				Name: tt.tool, Arguments: json.RawMessage(tt.args), Result: tt.result, HasResult: tt.result != "",
			}}}
			doc := Normalize(s, Options{})
			require.Len(t, doc.Events, 1)
			ev := doc.Events[0]
			assert.False(t, ev.Unclassified, "the tool is known")
			assert.Equal(t, tt.category, ev.ToolCategory, "category")
			assert.Equal(t, tt.class, ev.ToolClass, "class")
			assert.Equal(t, tt.files, ev.FilesRead, "files read")
			assert.Equal(t, tt.written, ev.FilesWritten, "files written")
			want := tt.surfaced
			if want == nil {
				want = append(append([]string{}, tt.files...), tt.written...)
			}
			assert.Equal(t, want, ev.TargetFiles, "target files")
			assert.Equal(t, tt.ranges, ev.LineRanges, "line ranges")
			if tt.query != "" {
				assert.Equal(t, tt.query, ev.Query)
			}
		})
	}
}

// TestShellReadsThroughEachAgentsShellTool: reading through the shell stays
// reading whatever the agent calls its shell tool and however it lays out
// the command.
func TestShellReadsThroughEachAgentsShellTool(t *testing.T) {
	t.Parallel()
	numbered := "    10\tfunc a() {\n    11\t}\n"
	runAgentCalls(t, []agentCall{
		{
			name: "Codex shell with a bash -lc argv and a workdir", format: "codex-rollout", cwd: "/repo",
			tool: "shell", args: `{"command": ["bash", "-lc", "sed -n '10,40p' x.go"], "workdir": "/repo/pkg"}`, result: printed(31),
			category: FileRead, class: FileLevel, files: []string{"pkg/x.go"}, ranges: []LineRange{lines("pkg/x.go", 10, 40)},
		},
		{
			name: "Codex shell with a plain argv", format: "codex-rollout", cwd: "/repo",
			tool: "shell", args: `{"command": ["cat", "x.go"], "workdir": "/repo"}`, result: "package x\n",
			category: FileRead, class: FileLevel, files: []string{"x.go"}, ranges: []LineRange{lines("x.go", 1, 1)},
		},
		{
			name: "Codex local_shell argv", format: "codex-rollout", cwd: "/repo",
			tool: "local_shell", args: `{"command": ["bash", "-lc", "head -n 20 x.go"]}`, result: printed(20),
			category: FileRead, class: FileLevel, files: []string{"x.go"}, ranges: []LineRange{lines("x.go", 1, 20)},
		},
		{
			name: "Codex exec_command with cmd", format: "codex-rollout", cwd: "/repo",
			tool: "exec_command", args: `{"cmd": "cat x.go", "workdir": "/repo"}`, result: "package x\n",
			category: FileRead, class: FileLevel, files: []string{"x.go"}, ranges: []LineRange{lines("x.go", 1, 1)},
		},
		{
			name: "Codex shell_command with a string", format: "codex-rollout", cwd: "/repo",
			tool: "shell_command", args: `{"command": "nl -ba x.go | sed -n '10,11p'", "workdir": "/repo"}`, result: numbered,
			category: FileRead, class: FileLevel, files: []string{"x.go"}, ranges: []LineRange{lines("x.go", 10, 11)},
		},
		{
			name: "codex exec --json command item", format: "codex-exec", cwd: "/repo",
			tool: "shell", args: `{"command": "bash -lc 'sed -n 5,9p x.go'"}`, result: printed(5),
			category: FileRead, class: FileLevel, files: []string{"x.go"}, ranges: []LineRange{lines("x.go", 5, 9)},
		},
		{
			name: "OpenHands execute_bash", format: "openhands-v0", cwd: "/workspace",
			tool: "execute_bash", args: `{"command": "cat -n /workspace/x.py", "is_input": "false"}`, result: numbered,
			category: FileRead, class: FileLevel, files: []string{"x.py"}, ranges: []LineRange{lines("x.py", 10, 11)},
		},
		{
			name: "OpenHands V0 run action", format: "openhands-v0", cwd: "/workspace",
			tool: "run", args: `{"command": "sed -n '3,7p' x.py", "blocking": false}`, result: printed(5),
			category: FileRead, class: FileLevel, files: []string{"x.py"}, ranges: []LineRange{lines("x.py", 3, 7)},
		},
		{
			name: "OpenHands SDK terminal", format: "openhands-v1", cwd: "/workspace",
			tool: "terminal", args: `{"command": "head -n 5 x.py"}`, result: printed(5),
			category: FileRead, class: FileLevel, files: []string{"x.py"}, ranges: []LineRange{lines("x.py", 1, 5)},
		},
		{
			name: "Gemini CLI run_shell_command in a subdirectory", format: "gemini-cli", cwd: "/repo",
			tool: "run_shell_command", args: `{"command": "sed -n '10,40p' x.go", "dir_path": "/repo/sub"}`, result: printed(31),
			category: FileRead, class: FileLevel, files: []string{"sub/x.go"}, ranges: []LineRange{lines("sub/x.go", 10, 40)},
		},
		{
			name: "Gemini CLI run_shell_command with the older directory key", format: "gemini-cli", cwd: "/repo",
			tool: "run_shell_command", args: `{"command": "head -n 3 x.go", "directory": "sub"}`, result: printed(3),
			category: FileRead, class: FileLevel, files: []string{"sub/x.go"}, ranges: []LineRange{lines("sub/x.go", 1, 3)},
		},
		{
			name: "SWE-agent bash", format: "swe-agent", cwd: "/testbed",
			tool: "bash", args: `{"command": "cat -n src/x.py"}`, result: numbered,
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 10, 11)},
		},
		{
			name: "mini-swe-agent nl -ba piped into sed -n", format: "mini-swe-agent", cwd: "/testbed",
			tool: "bash", args: `{"command": "nl -ba src/x.py | sed -n '10,40p'"}`, result: numberedLines(10, 40),
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 10, 40)},
		},
		{
			name: "mini-swe-agent grep -n", format: "mini-swe-agent", cwd: "/testbed",
			tool: "bash", args: `{"command": "grep -rn 'def parse' src"}`, result: "src/p.py:12:def parse(x):\n",
			category: CodeSearch, class: FileLevel, files: []string{"src/p.py"}, ranges: []LineRange{lines("src/p.py", 12, 12)}, query: "def parse",
		},
	})
}

// TestSWEAgentCommands reads SWE-agent's own commands, as command lines
// (pre-1.0 and 1.x without function calling) and as function calls.
func TestSWEAgentCommands(t *testing.T) {
	t.Parallel()
	window := "[File: /testbed/src/x.py (300 lines total)]\n(103 more lines above)\n104:    a = 1\n105:    b = 2\n(195 more lines below)\n"
	runAgentCalls(t, []agentCall{
		{
			name: "open with a line reads the lines the window shows", format: "swe-agent", cwd: "/testbed",
			tool: "open", args: `{"command": "open src/x.py 120"}`, result: window,
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 104, 105)},
		},
		{
			name: "open without a result records the window placed a sixth above the line", format: "swe-agent", cwd: "/testbed",
			tool: "open", args: `{"command": "open \"src/x.py\" 120"}`,
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 103, 202)},
		},
		{
			name: "open near the top of a file starts the window at line 1", format: "swe-agent", cwd: "/testbed",
			tool: "open", args: `{"command": "open src/x.py 5"}`,
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 1, 100)},
		},
		{
			name: "open without a line shows the first window", format: "swe-agent", cwd: "/testbed",
			tool: "open", args: `{"command": "open src/x.py"}`,
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 1, 100)},
		},
		{
			name: "open as a function call", format: "swe-agent", cwd: "/testbed",
			tool: "open", args: `{"path": "src/x.py", "line_number": 1474}`,
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 1457, 1556)},
		},
		{
			name: "goto reads the open file named by the result", format: "swe-agent", cwd: "/testbed",
			tool: "goto", args: `{"command": "goto 120"}`, result: window,
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 104, 105)},
		},
		{
			name: "scroll_down reads the open file named by the result", format: "swe-agent", cwd: "/testbed",
			tool: "scroll_down", args: `{"command": "scroll_down"}`, result: window,
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 104, 105)},
		},
		{
			name: "find_file surfaces its result paths and searches for the name", format: "swe-agent", cwd: "/testbed",
			tool: "find_file", args: `{"command": "find_file fields.py src"}`,
			result:   "Found 2 matches for \"fields.py\" in /testbed/src:\n/testbed/src/marshmallow/fields.py\n/testbed/src/other/fields.py\n",
			category: FileSearch, class: FileLevel, surfaced: []string{"src/marshmallow/fields.py", "src/other/fields.py"}, query: "fields.py",
		},
		{
			name: "search_dir surfaces the files of its result lines", format: "swe-agent", cwd: "/testbed",
			tool: "search_dir", args: `{"command": "search_dir \"class TimeDelta\" src"}`,
			result:   "Found 3 matches for \"class TimeDelta\" in /testbed/src:\n/testbed/src/marshmallow/fields.py (2 matches)\n/testbed/src/marshmallow/utils.py (1 matches)\nEnd of matches for \"class TimeDelta\" in /testbed/src\n",
			category: CodeSearch, class: FileLevel, surfaced: []string{"src/marshmallow/fields.py", "src/marshmallow/utils.py"}, query: "class TimeDelta",
		},
		{
			name: "search_file hits are lines read of the file", format: "swe-agent", cwd: "/testbed",
			tool: "search_file", args: `{"command": "search_file precision src/x.py"}`,
			result:   "Found 2 matches for \"precision\" in /testbed/src/x.py:\nLine 12:    precision = 3\nLine 40:    return precision\nEnd of matches for \"precision\" in /testbed/src/x.py\n",
			category: CodeSearch, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 12, 12), lines("src/x.py", 40, 40)}, query: "precision",
		},
		{
			name: "str_replace_editor view with --view_range reads those lines", format: "swe-agent", cwd: "/repo",
			tool: "str_replace_editor", args: `{"command": "str_replace_editor view /repo/x.py --view_range 10 40"}`,
			category: FileRead, class: FileLevel, files: []string{"x.py"}, ranges: []LineRange{lines("x.py", 10, 40)},
		},
		{
			name: "str_replace_editor as a function call", format: "swe-agent", cwd: "/repo",
			tool: "str_replace_editor", args: `{"command": "view", "path": "/repo/x.py", "view_range": [10, 40]}`,
			category: FileRead, class: FileLevel, files: []string{"x.py"}, ranges: []LineRange{lines("x.py", 10, 40)},
		},
		{
			name: "str_replace_editor str_replace command line is an edit of its path", format: "swe-agent", cwd: "/repo",
			tool: "str_replace_editor", args: `{"command": "str_replace_editor str_replace /repo/x.py --old_str 'a = 1' --new_str 'a = 2'"}`,
			category: FileWrite, class: Edit, written: []string{"x.py"},
		},
		{
			name: "create is an edit of the new file", format: "swe-agent", cwd: "/testbed",
			tool: "create", args: `{"command": "create reproduce.py"}`,
			category: FileWrite, class: Edit, written: []string{"reproduce.py"},
		},
		{
			name: "pre-1.0 edit writes the open file its result names and shows its window", format: "swe-agent", cwd: "/testbed",
			tool: "edit", args: `{"command": "edit 1:1\nimport numpy as np\nend_of_edit"}`,
			result:   "[File: /testbed/reproduce.py (1 lines total)]\n1:import numpy as np\nFile updated.",
			category: FileWrite, class: Edit, files: []string{"reproduce.py"}, written: []string{"reproduce.py"},
			surfaced: []string{"reproduce.py"}, ranges: []LineRange{lines("reproduce.py", 1, 1)},
		},
		{
			name: "filemap reads the file", format: "swe-agent", cwd: "/testbed",
			tool: "filemap", args: `{"command": "filemap src/x.py"}`, result: "1 import os\n",
			category: FileRead, class: FileLevel, files: []string{"src/x.py"}, ranges: []LineRange{lines("src/x.py", 1, 1)},
		},
	})
}

// TestEditToolsOfEachAgent checks that the edit tools of each agent record
// the files they write.
func TestEditToolsOfEachAgent(t *testing.T) {
	t.Parallel()
	runAgentCalls(t, []agentCall{
		{
			name: "Codex apply_patch as a custom tool call names the patched files", format: "codex-rollout", cwd: "/repo",
			tool:     "apply_patch",
			args:     `{"input": "*** Begin Patch\n*** Update File: pkg/a.go\n@@\n-x\n+y\n*** Add File: pkg/b.go\n+package pkg\n*** End Patch\n"}`,
			category: FileWrite, class: Edit, written: []string{"pkg/a.go", "pkg/b.go"},
		},
		{
			name: "Codex apply_patch through bash -lc and a heredoc", format: "codex-rollout", cwd: "/repo",
			tool:     "shell",
			args:     `{"command": ["bash", "-lc", "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: pkg/a.go\n@@\n-x\n+y\n*** End Patch\nPATCH"], "workdir": "/repo"}`,
			result:   "Success. Updated the following files:\nM pkg/a.go\n",
			category: FileWrite, class: Edit, written: []string{"pkg/a.go"},
		},
		{
			name: "Codex apply_patch as an argv", format: "codex-rollout", cwd: "/repo",
			tool:     "shell",
			args:     `{"command": ["apply_patch", "*** Begin Patch\n*** Add File: pkg/b.go\n+package pkg\n*** End Patch\n"], "workdir": "/repo"}`,
			category: FileWrite, class: Edit, written: []string{"pkg/b.go"},
		},
		{
			name: "codex exec file changes name their paths", format: "codex-exec", cwd: "/repo",
			tool: "apply_patch", args: `{"changes": [{"path": "/repo/pkg/a.go", "kind": "update"}]}`,
			category: FileWrite, class: Edit, written: []string{"pkg/a.go"},
		},
		{
			name: "Copilot replace_string_in_file", format: "copilot", cwd: "/w",
			tool: "replace_string_in_file", args: `{"filePath": "/w/src/a.ts", "oldString": "a", "newString": "b"}`,
			category: FileWrite, class: Edit, written: []string{"src/a.ts"},
		},
		{
			name: "Copilot apply_patch", format: "copilot", cwd: "/w",
			tool: "apply_patch", args: `{"input": "*** Begin Patch\n*** Update File: /w/src/a.ts\n@@\n-a\n+b\n*** End Patch", "explanation": "fix"}`,
			category: FileWrite, class: Edit, written: []string{"src/a.ts"},
		},
		{
			name: "Gemini CLI replace", format: "gemini-cli", cwd: "/repo",
			tool: "replace", args: `{"file_path": "/repo/a.go", "old_string": "a", "new_string": "b"}`,
			category: FileWrite, class: Edit, written: []string{"a.go"},
		},
		{
			name: "OpenHands SDK apply_patch", format: "openhands-v1", cwd: "/workspace",
			tool: "apply_patch", args: `{"patch": "*** Begin Patch\n*** Delete File: old.py\n*** End Patch"}`,
			category: FileWrite, class: Edit, written: []string{"old.py"},
		},
	})
}

// TestFileToolsOfEachAgent checks the reads and searches of the agents'
// own file tools, with their argument conventions.
func TestFileToolsOfEachAgent(t *testing.T) {
	t.Parallel()
	runAgentCalls(t, []agentCall{
		{
			name: "Gemini CLI read_file counts its offset from 0", format: "gemini-cli", cwd: "/repo",
			tool: "read_file", args: `{"file_path": "/repo/a.go", "offset": 10, "limit": 5}`, result: "x\n",
			category: FileRead, class: FileLevel, files: []string{"a.go"}, ranges: []LineRange{lines("a.go", 11, 15)},
		},
		{
			name: "Gemini CLI read_file with start_line and end_line", format: "gemini-cli", cwd: "/repo",
			tool: "read_file", args: `{"file_path": "/repo/a.go", "start_line": 10, "end_line": 20}`, result: "x\n",
			category: FileRead, class: FileLevel, files: []string{"a.go"}, ranges: []LineRange{lines("a.go", 10, 20)},
		},
		{
			name: "Codex read_file counts its offset from 1", format: "codex-rollout", cwd: "/repo",
			tool: "read_file", args: `{"file_path": "/repo/a.go", "offset": 10, "limit": 5}`, result: "x\n",
			category: FileRead, class: FileLevel, files: []string{"a.go"}, ranges: []LineRange{lines("a.go", 10, 14)},
		},
		{
			name: "the OpenHands SDK's read_file counts its offset from 0", format: "openhands-v1", cwd: "/workspace",
			tool: "read_file", args: `{"file_path": "/workspace/a.py", "offset": 0, "limit": 50}`, result: "x\n",
			category: FileRead, class: FileLevel, files: []string{"a.py"}, ranges: []LineRange{lines("a.py", 1, 50)},
		},
		{
			name: "Gemini CLI grep_search", format: "gemini-cli", cwd: "/repo",
			tool: "grep_search", args: `{"pattern": "func Parse", "dir_path": "/repo/pkg"}`,
			category: CodeSearch, class: FileLevel, surfaced: []string{}, query: "func Parse",
		},
		{
			name: "OpenHands V0 read action with a view range", format: "openhands-v0", cwd: "/workspace",
			tool: "read", args: `{"path": "/workspace/a.py", "start": 0, "end": -1, "view_range": [5, 9]}`,
			category: FileRead, class: FileLevel, files: []string{"a.py"}, ranges: []LineRange{lines("a.py", 5, 9)},
		},
	})
}
