package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentretrieval/agentretrieval/trace"
)

// Rules as a taxonomy would hand them to Extract.
var (
	ruleRead     = Rule{Match: "Read", Category: FileRead, Class: FileLevel}
	ruleWrite    = Rule{Match: "Write", Category: FileWrite, Class: Edit}
	ruleGrep     = Rule{Match: "Grep", Category: CodeSearch, Class: FileLevel}
	ruleGlob     = Rule{Match: "Glob", Category: FileSearch, Class: FileLevel}
	ruleBash     = Rule{Match: "Bash", Category: OtherCategory, Class: OtherClass, Shell: true}
	ruleOther    = Rule{Match: "Task", Category: OtherCategory, Class: OtherClass}
	ruleEditor   = Rule{Match: "str_replace_editor", Category: FileWrite, Class: Edit}
	ruleSGSearch = Rule{Match: "mcp__sourcegraph__*keyword_search", Category: CodeSearch, Class: Semantic}
	ruleSGRead   = Rule{Match: "mcp__sourcegraph__*read_file", Category: FileRead, Class: Semantic}
	ruleSGList   = Rule{Match: "mcp__sourcegraph__*list_files", Category: FileSearch, Class: Semantic}
	ruleNavigate = Rule{Match: "aura_navigate", Category: SymbolNavigation, Class: Semantic}
)

// File reference constructors, named for what the call did to the file.
func argRead(p string) FileRef           { return FileRef{Path: p, Read: true} }
func argNamed(p string) FileRef          { return FileRef{Path: p} }
func argWrote(p string) FileRef          { return FileRef{Path: p, Written: true} }
func hitRead(p string) FileRef           { return FileRef{Path: p, Read: true, FromResult: true} }
func surfaced(p string) FileRef          { return FileRef{Path: p, FromResult: true} }
func lines(p string, s, e int) LineRange { return LineRange{Path: p, Start: s, End: e} }

// printed is the output of a command that printed n lines of a file: a
// call's reads are measured from what it printed.
func printed(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// numberedLines is the output of `nl -ba` or `cat -n` cut to lines first
// to last.
func numberedLines(first, last int) string {
	var b strings.Builder
	for i := first; i <= last; i++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", i, i)
	}
	return b.String()
}

// extractCase is one call and the extraction it must give.
type extractCase struct {
	name    string
	tool    string
	rule    Rule
	args    string
	result  string
	isError bool
	cwd     string
	want    Extraction
}

func runExtractCases(t *testing.T, tests []extractCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			call := &trace.ToolCall{
				Name:      tt.tool,
				Arguments: json.RawMessage(tt.args),
				Result:    tt.result,
				HasResult: tt.result != "",
				IsError:   tt.isError,
			}
			got := Extract(call, tt.rule, PathNormalizer{CWD: tt.cwd})
			assert.Equal(t, tt.want, got)
			checkInvariants(t, got, PathNormalizer{CWD: tt.cwd})
		})
	}
}

// checkInvariants asserts what every Extraction promises.
func checkInvariants(t testing.TB, e Extraction, n PathNormalizer) {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range e.Files {
		if !normalizedPath(f.Path) {
			t.Fatalf("file path %q is not normalized", f.Path)
		}
		if seen[n.Key(f.Path)] {
			t.Fatalf("file %q listed twice", f.Path)
		}
		seen[n.Key(f.Path)] = true
	}
	for i, r := range e.Ranges {
		if r.Start < 1 || r.End < r.Start {
			t.Fatalf("range %+v is not 1 <= start <= end", r)
		}
		if !seen[n.Key(r.Path)] {
			t.Fatalf("range %+v is for a file not in Files", r)
		}
		if i > 0 && e.Ranges[i-1].Path == r.Path && e.Ranges[i-1].End+1 >= r.Start {
			t.Fatalf("ranges %+v and %+v were not coalesced", e.Ranges[i-1], r)
		}
	}
}

func TestExtractArguments(t *testing.T) {
	t.Parallel()
	runExtractCases(t, []extractCase{
		{
			name: "a Read names its file as read",
			tool: "Read", rule: ruleRead, cwd: "/path/to/Demo",
			args: `{"file_path": "/path/to/Demo/todo-app/package.json"}`,
			want: Extraction{Files: []FileRef{argRead("todo-app/package.json")}},
		},
		{
			name: "a Read with offset and limit reads those lines",
			tool: "Read", rule: ruleRead, cwd: "/root",
			args: `{"file_path": "/root/data/tess_lc.txt", "offset": 100, "limit": 50}`,
			want: Extraction{Files: []FileRef{argRead("data/tess_lc.txt")}, Ranges: []LineRange{lines("data/tess_lc.txt", 100, 149)}},
		},
		{
			name: "a Read with a limit alone reads from the first line",
			tool: "Read", rule: ruleRead, cwd: "/root",
			args: `{"file_path": "/root/data/tess_lc.txt", "limit": 50}`,
			want: Extraction{Files: []FileRef{argRead("data/tess_lc.txt")}, Ranges: []LineRange{lines("data/tess_lc.txt", 1, 50)}},
		},
		{
			name: "a Read takes its ranges from the numbers the result shows",
			tool: "Read", rule: ruleRead, cwd: "/root",
			args:   `{"file_path": "/root/data/tess_lc.txt", "limit": 50}`,
			result: "     1→# column1: time (mjd)\n     2→# column2: flux (relative)\n     3→# column3: flag\n     4→# column4: flux error\n",
			want:   Extraction{Files: []FileRef{argRead("data/tess_lc.txt")}, Ranges: []LineRange{lines("data/tess_lc.txt", 1, 4)}},
		},
		{
			name: "numbered lines that skip make separate ranges",
			tool: "Read", rule: ruleRead,
			args:   `{"file_path": "a.go"}`,
			result: "     1→package a\n     2→\n     7→func x() {}\n",
			want:   Extraction{Files: []FileRef{argRead("a.go")}, Ranges: []LineRange{lines("a.go", 1, 2), lines("a.go", 7, 7)}},
		},
		{
			name: "a Read's trailing system reminder is not content",
			tool: "Read", rule: ruleRead,
			args:   `{"file_path": "/testbed/t.ts"}`,
			result: "     1→export type T = 1;\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks malicious.\n</system-reminder>\n",
			want:   Extraction{Files: []FileRef{argRead("t.ts")}, Ranges: []LineRange{lines("t.ts", 1, 1)}},
		},
		{
			name: "a failed Read names the file but reads nothing",
			tool: "Read", rule: ruleRead, cwd: "/root", isError: true,
			args:   `{"file_path": "/root/data/tess_lc.txt"}`,
			result: "<tool_use_error>File content (748.9KB) exceeds maximum allowed size (256KB).</tool_use_error>",
			want:   Extraction{Files: []FileRef{argNamed("data/tess_lc.txt")}},
		},
		{
			name: "a tool_use_error result counts as a failure without the error flag",
			tool: "Edit", rule: ruleWrite,
			args:   `{"file_path": "/testbed/CLAUDE.md", "old_string": "a", "new_string": "b"}`,
			result: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
			want:   Extraction{Files: []FileRef{argNamed("CLAUDE.md")}},
		},
		{
			name: "a Write writes its file and ignores the result",
			tool: "Write", rule: ruleWrite, cwd: "/path/to/Demo",
			args:   `{"file_path": "/path/to/Demo/components/TodoItem.tsx", "content": "import React from 'react';"}`,
			result: "File created successfully at: /path/to/Demo/components/TodoItem.tsx",
			want:   Extraction{Files: []FileRef{argWrote("components/TodoItem.tsx")}},
		},
		{
			name: "an Edit's cat -n echo of the edited file shows the lines it prints",
			tool: "Edit", rule: ruleWrite,
			args:   `{"file_path": "/testbed/page.tsx", "old_string": "a", "new_string": "b"}`,
			result: "The file /testbed/page.tsx has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     1→'use client';\n",
			want:   Extraction{Files: []FileRef{{Path: "page.tsx", Read: true, Written: true}}, Ranges: []LineRange{lines("page.tsx", 1, 1)}},
		},
		{
			name: "SWE-agent's edit writes the open file its result names and shows its window",
			tool: "edit", rule: ruleWrite, cwd: "/testbed",
			args:   `{"search": "x", "replace": "y"}`,
			result: "Text replaced. Please review the changes and make sure they are correct.\r\n[File: /testbed/src/marshmallow/fields.py (1998 lines total)]\r\n(1458 more lines above)\r\n1459:            self.WEEKS,",
			want: Extraction{
				Files:  []FileRef{{Path: "src/marshmallow/fields.py", Read: true, Written: true, FromResult: true}},
				Ranges: []LineRange{lines("src/marshmallow/fields.py", 1459, 1459)},
			},
		},
		{
			name: "SWE-agent's refused edit fails, writes nothing and shows only the original code",
			tool: "edit", rule: ruleWrite, cwd: "/testbed",
			args: `{"search": "x", "replace": "y"}`,
			result: "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: unexpected indent\n\n" +
				"This is how your edit would have looked if applied\n-------------------------------------------------\n[File: /testbed/src/marshmallow/fields.py (1998 lines total)]\n(1458 more lines above)\n1459:              self.WEEKS,\n1460:        )\n-------------------------------------------------\n\n" +
				"This is the original code before your edit\n-------------------------------------------------\n[File: /testbed/src/marshmallow/fields.py (1998 lines total)]\n(1458 more lines above)\n1459:            self.WEEKS,\n-------------------------------------------------\nYour changes have NOT been applied. Please fix your edit command and try again.\n",
			want: Extraction{
				Files:  []FileRef{hitRead("src/marshmallow/fields.py")},
				Ranges: []LineRange{lines("src/marshmallow/fields.py", 1459, 1459)},
				Failed: true,
			},
		},
		{
			name: "a NotebookEdit writes its notebook",
			tool: "NotebookEdit", rule: ruleWrite,
			args: `{"notebook_path": "/testbed/nb/analysis.ipynb", "new_source": "x = 1"}`,
			want: Extraction{Files: []FileRef{argWrote("nb/analysis.ipynb")}},
		},
		{
			name: "a real top-level folder named a is kept from an argument",
			tool: "Read", rule: ruleRead,
			args: `{"file_path": "a/b.go"}`,
			want: Extraction{Files: []FileRef{argRead("a/b.go")}},
		},
		{
			name: "every file key is read, in argument order",
			tool: "file.read", rule: ruleRead,
			args: `{"filePath": "x.go", "target_file": "y.go", "paths": ["z.go", "x.go"]}`,
			want: Extraction{Files: []FileRef{argRead("x.go"), argRead("y.go"), argRead("z.go")}},
		},
		{
			name: "a file URI argument is a file",
			tool: "read_file", rule: ruleRead,
			args: `{"uri": "file:///workspace/pkg/a.go"}`,
			want: Extraction{Files: []FileRef{argRead("pkg/a.go")}},
		},
		{
			name: "an http URI argument is not a file",
			tool: "read_file", rule: ruleRead,
			args: `{"uri": "https://example.com/a.go"}`,
			want: Extraction{},
		},
		{
			name: "startLine and endLine arguments are a range",
			tool: "read_file", rule: ruleSGRead,
			args: `{"repo": "github.com/org/repo", "path": "pkg/a.go", "startLine": 10, "endLine": 40}`,
			want: Extraction{Files: []FileRef{argRead("pkg/a.go")}, Ranges: []LineRange{lines("pkg/a.go", 10, 40)}},
		},
		{
			name: "snake_case line arguments are a range",
			tool: "read_file", rule: ruleRead,
			args: `{"path": "pkg/a.go", "start_line": "5", "end_line": "9"}`,
			want: Extraction{Files: []FileRef{argRead("pkg/a.go")}, Ranges: []LineRange{lines("pkg/a.go", 5, 9)}},
		},
		{
			name: "a line argument is a one-line range",
			tool: "read_file", rule: ruleRead,
			args: `{"path": "pkg/a.go", "line": 12}`,
			want: Extraction{Files: []FileRef{argRead("pkg/a.go")}, Ranges: []LineRange{lines("pkg/a.go", 12, 12)}},
		},
		{
			name: "inverted or zero line arguments are no range",
			tool: "read_file", rule: ruleRead,
			args: `{"path": "pkg/a.go", "startLine": 40, "endLine": 10, "line": 0}`,
			want: Extraction{Files: []FileRef{argRead("pkg/a.go")}},
		},
		{
			name: "a Grep's pattern is the query and its directory path a scope",
			tool: "Grep", rule: ruleGrep,
			args: `{"pattern": "useTodos", "path": "/testbed/src", "glob": "*.ts", "output_mode": "files_with_matches"}`,
			want: Extraction{Query: "useTodos"},
		},
		{
			name: "a search path that looks like a file is named",
			tool: "Grep", rule: ruleGrep,
			args: `{"pattern": "useTodos", "path": "/testbed/src/hooks.ts"}`,
			want: Extraction{Files: []FileRef{argNamed("src/hooks.ts")}, Query: "useTodos"},
		},
		{
			name: "the first query key present wins",
			tool: "grep_search", rule: ruleGrep,
			args: `{"includePattern": "*.go", "query": "func main"}`,
			want: Extraction{Query: "func main"},
		},
		{
			name: "a navigation tool's name argument is a symbol",
			tool: "aura_navigate", rule: ruleNavigate,
			args: `{"name": "TodoList", "file": "src/list.tsx"}`,
			want: Extraction{Files: []FileRef{argNamed("src/list.tsx")}, Symbols: []string{"TodoList"}},
		},
		{
			name: "a name argument of a non-navigation tool is not a symbol",
			tool: "Task", rule: ruleOther,
			args: `{"name": "worker", "description": "Analyze project structure"}`,
			want: Extraction{},
		},
		{
			name: "symbol keys are symbols for any tool, once each",
			tool: "find_references", rule: ruleNavigate,
			args: `{"symbolName": "Open", "symbol": "Open", "qualifiedName": "os.Open"}`,
			want: Extraction{Symbols: []string{"Open", "os.Open"}},
		},
		{
			name: "a Task's prose result names no files",
			tool: "Task", rule: ruleOther,
			args:   `{"prompt": "Examine the package.json file(s) in /path/to/Demo"}`,
			result: "Package.json Analysis Summary\n/path/to/Demo/todo-app/package.json\n",
			want:   Extraction{},
		},
		{
			name: "arguments that are not JSON are ignored with a warning",
			tool: "Read", rule: ruleRead,
			args: `{"file_path": `,
			want: Extraction{Warnings: []string{"arguments: not a valid JSON object (unexpected EOF); none was read"}},
		},
	})
}

func TestExtractEditorCommands(t *testing.T) {
	t.Parallel()
	runExtractCases(t, []extractCase{
		{
			name: "str_replace_editor view is a read of the lines shown",
			tool: "str_replace_editor", rule: ruleEditor,
			args:   `{"command": "view", "path": "/testbed/src/marshmallow/fields.py", "view_range": [1456, 1460]}`,
			result: "Here's the result of running `cat -n` on /testbed/src/marshmallow/fields.py:\n  1456\t            self.MINUTES,\n  1457\t            self.HOURS,\n  1458\t            self.WEEKS,\n",
			want: Extraction{
				Files:    []FileRef{argRead("src/marshmallow/fields.py")},
				Ranges:   []LineRange{lines("src/marshmallow/fields.py", 1456, 1458)},
				Category: FileRead, Class: FileLevel,
			},
		},
		{
			name: "a view_range ending at -1 with no result to show the end is no range",
			tool: "str_replace_based_edit_tool", rule: ruleEditor,
			args: `{"command": "view", "path": "/testbed/a.py", "view_range": [5, -1]}`,
			want: Extraction{Files: []FileRef{argRead("a.py")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a view of a directory is a listing",
			tool: "str_replace_editor", rule: ruleEditor,
			args:   `{"command": "view", "path": "/testbed/src"}`,
			result: "Here's the files and directories up to 2 levels deep in /testbed/src, excluding hidden items:\n/testbed/src\n/testbed/src/a.py\n/testbed/src/sub\n/testbed/src/sub/b.py\n",
			want: Extraction{
				Files:    []FileRef{surfaced("src/a.py"), surfaced("src/sub/b.py")},
				Category: FileSearch, Class: FileLevel,
			},
		},
		{
			name: "str_replace writes the file",
			tool: "str_replace_editor", rule: Rule{Category: FileRead, Class: FileLevel},
			args: `{"command": "str_replace", "path": "/testbed/src/a.py", "old_str": "x", "new_str": "y"}`,
			want: Extraction{Files: []FileRef{argWrote("src/a.py")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "create under the editor's own rule needs no refinement",
			tool: "str_replace_editor", rule: ruleEditor,
			args: `{"command": "create", "path": "/workspace/game_2048.py", "file_text": "import random"}`,
			want: Extraction{Files: []FileRef{argWrote("game_2048.py")}},
		},
	})
}

func TestExtractNilCall(t *testing.T) {
	t.Parallel()
	assert.Equal(t, Extraction{}, Extract(nil, ruleRead, PathNormalizer{}))
}

func ExampleExtract() {
	call := &trace.ToolCall{
		Name:      "Bash",
		Arguments: json.RawMessage(`{"command": "cd /testbed && grep -rn 'def serialize' src/"}`),
		Result:    "src/marshmallow/fields.py:1470:    def serialize(self, attr, obj):\nsrc/marshmallow/schema.py:12:def serialize(x):\n",
		HasResult: true,
	}
	rule := Rule{Match: "Bash", Category: OtherCategory, Class: OtherClass, Shell: true}
	e := Extract(call, rule, PathNormalizer{CWD: "/testbed"})
	fmt.Println(e.Category, e.Class, e.Query)
	for _, f := range e.Files {
		fmt.Println(f.Path, f.Read)
	}
	fmt.Println(e.Ranges)
	// Output:
	// code_search file_level def serialize
	// src/marshmallow/fields.py true
	// src/marshmallow/schema.py true
	// [{src/marshmallow/fields.py 1470 1470} {src/marshmallow/schema.py 12 12}]
}

func FuzzExtract(f *testing.F) {
	seeds := []struct{ tool, args, result string }{
		{"Read", `{"file_path": "/testbed/a.py", "offset": 3, "limit": 2}`, "     3→x\n     4→y\n"},
		{"Grep", `{"pattern": "x", "path": "src"}`, "src/a.go:1:x\nsrc/a.go-2-y\n"},
		{"mcp__sourcegraph__sg_keyword_search", `{"query": "x"}`, `[{"file": "a.go", "lineNumber": 3, "preview": "x"}]`},
		{"str_replace_editor", `{"command": "view", "path": "/testbed/a.py", "view_range": [1, -1]}`, "     1\tx\n"},
		{"Bash", `{"command": "cat a.go | head -5 > out.txt"}`, ""},
		{"LS", `{"path": "/testbed"}`, "- /testbed/\n  - a.go\n  - sub/\n    - b.go\n"},
		{"read_file", `{"path": "x.go"}`, "File: x.go\nLines: 3-9\n"},
	}
	for _, s := range seeds {
		for c := range Categories {
			f.Add(s.tool, s.args, s.result, uint8(c))
		}
	}
	f.Fuzz(func(t *testing.T, tool, args, result string, cat uint8) {
		rule := Rule{Category: Categories[int(cat)%len(Categories)], Class: Classes[int(cat)%len(Classes)], Shell: cat >= 128}
		n := PathNormalizer{CWD: "/testbed"}
		e := Extract(&trace.ToolCall{Name: tool, Arguments: json.RawMessage(args), Result: result}, rule, n)
		checkInvariants(t, e, n)
	})
}

func TestDecodeArgumentsLeavesOutTheTextWritten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args, by string
		want     map[string]any
		problems int
	}{
		{"a Write's content reads as nil", `{"file_path": "a.go", "content": "package a\n"}`, "",
			map[string]any{"file_path": "a.go", "content": nil}, 0},
		{"a rule classifying by content sees it", `{"file_path": "a.go", "content": "package a\n"}`, "content",
			map[string]any{"file_path": "a.go", "content": "package a\n"}, 0},
		{"a todo list reads as nil", `{"todos": [{"content": "x", "status": "pending"}]}`, "",
			map[string]any{"todos": nil}, 0},
		{"arguments decoded by the slow path leave it out too", `{"new_string": "b", "offset": 1e400}`, "",
			map[string]any{"new_string": nil, "offset": json.Number("1e400")}, 1},
		{"a number out of range in a value left out is still reported", `{"edits": [{"n": 1e400}], "file_path": "a.go"}`, "",
			map[string]any{"edits": nil, "file_path": "a.go"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args, _, problems := decodeArguments(json.RawMessage(tt.args), tt.by, false)
			assert.Equal(t, tt.want, args)
			assert.Len(t, problems, tt.problems)
		})
	}
}
