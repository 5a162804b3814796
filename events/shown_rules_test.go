package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentretrieval/agentretrieval/trace"
)

// One case per rule of ../shared/extraction/SPEC.md, each with a minimal
// output shaped as the agent that met it writes it (the trace readers have
// already taken off the agent's wrapper: mini-swe-agent's <output>, Gemini
// CLI's Command:/Exit Code: block).
func TestWhatACallShowedFollowsTheRuleBook(t *testing.T) {
	t.Parallel()
	type want struct {
		class   Class
		failed  bool
		files   []string
		read    []string
		written []string
		ranges  []LineRange
	}
	cases := []struct {
		name    string
		tool    string
		args    map[string]any
		result  string
		noReply bool
		isError bool
		want    want
	}{
		{
			name: "Codex: sed asking for 200 lines of a 113-line file showed 113",
			tool: "shell", args: map[string]any{"command": []any{"bash", "-lc", "sed -n '1,200p' lib/f.ts"}},
			result: printed(113),
			want:   want{class: FileLevel, files: []string{"lib/f.ts"}, read: []string{"lib/f.ts"}, ranges: []LineRange{lines("lib/f.ts", 1, 113)}},
		},
		{
			name: "Codex: the omitted middle of a long output was not shown",
			tool: "shell", args: map[string]any{"command": []any{"bash", "-lc", "sed -n '1,420p' h.tsx"}},
			result: "Total output lines: 420\n\n" + printed(128) + "\n[... omitted 164 of 420 lines ...]\n\n" + printed(128),
			want:   want{class: FileLevel, files: []string{"h.tsx"}, read: []string{"h.tsx"}, ranges: []LineRange{lines("h.tsx", 1, 128), lines("h.tsx", 293, 420)}},
		},
		{
			name: "mini-swe-agent: a grep that printed nothing read nothing and, failing, names nothing",
			tool: "bash", args: map[string]any{"command": `grep -n "NVL" q.sql`}, isError: true,
			want: want{class: FileLevel},
		},
		{
			name: "mini-swe-agent: grep filtering a program's output searches no file",
			tool: "bash", args: map[string]any{"command": "python -m pip list | grep -i sqlfluff"}, result: "sqlfluff 0.9.1\n",
			want: want{class: OtherClass},
		},
		{
			name: "mini-swe-agent: a redirect into the project makes git diff an edit",
			tool: "bash", args: map[string]any{"command": "git diff -- ./src/a.py > patch.txt"},
			want: want{class: Edit, files: []string{"patch.txt", "src/a.py"}, written: []string{"patch.txt"}},
		},
		{
			name: "mini-swe-agent: a fixer rewrites its operand",
			tool: "bash", args: map[string]any{"command": "sqlfluff fix q.sql --rules L060 --force"},
			result: "== [q.sql] FAIL\nPersisting Changes...\n== [q.sql] PASS\n",
			want:   want{class: Edit, files: []string{"q.sql"}, written: []string{"q.sql"}},
		},
		{
			name: "mini-swe-agent: a command that was not found names nothing",
			tool: "bash", args: map[string]any{"command": "sqlfluff lint q.sql"}, isError: true,
			result: "/bin/sh: 1: sqlfluff: command not found\n",
			want:   want{class: OtherClass},
		},
		{
			name: "mini-swe-agent: pytest's header names its config files",
			tool: "bash", args: map[string]any{"command": "cd test && python -m pytest rules/std_test.py -k L060"},
			result: "rootdir: /testbed\nconfigfile: pytest.ini (WARNING: ignoring pytest config in tox.ini!)\ncollected 0 items\n",
			want:   want{class: OtherClass, files: []string{"test/rules/std_test.py", "pytest.ini", "tox.ini"}},
		},
		{
			name: "SWE-agent: a traceback's frames show the lines they quote, and the program failed",
			tool: "bash", args: map[string]any{"command": "python repro.py"},
			result: "Traceback (most recent call last):\n  File \"/testbed/repro.py\", line 17, in <module>\n    x = f()\n  File \"/testbed/pkg/a.py\", line 5, in f\n    raise ValueError(1)\nValueError: 1\n",
			want: want{class: OtherClass, failed: true, files: []string{"repro.py", "pkg/a.py"}, read: []string{"repro.py", "pkg/a.py"},
				ranges: []LineRange{lines("repro.py", 17, 17), lines("pkg/a.py", 5, 5)}},
		},
		{
			name: "Gemini CLI: a script's 'Saved … to' output is a write",
			tool: "run_shell_command", args: map[string]any{"command": "python3 /root/fill.py"},
			result: "Saved filled offer letter to /root/out.docx\n",
			want:   want{class: Edit, files: []string{"/root/fill.py", "/root/out.docx"}, written: []string{"/root/out.docx"}},
		},
		{
			name: "Codex: ls prints one entry a line, spaces included, in its folder",
			tool: "shell", args: map[string]any{"command": []any{"bash", "-lc", "ls docs"}},
			result: "LM Studio configuration.md\nlicense\nguides\n",
			want:   want{class: FileLevel, files: []string{"docs/LM Studio configuration.md", "docs/license"}},
		},
		{
			name: "Codex: a searched folder is not a file",
			tool: "shell", args: map[string]any{"command": []any{"bash", "-lc", "rg -n foo -S .deepwiki"}},
			result: ".deepwiki/a.md:3:foo\n",
			want:   want{class: FileLevel, files: []string{".deepwiki/a.md"}, read: []string{".deepwiki/a.md"}, ranges: []LineRange{lines(".deepwiki/a.md", 3, 3)}},
		},
		{
			name: "OpenHands: a file whose printed start was dropped is read, without lines",
			tool: "execute_bash", args: map[string]any{"command": "cat big.log"},
			result: "[Previous command outputs are truncated. Showing the last 2 lines of the output below.]\nx\ny\n",
			want:   want{class: FileLevel, files: []string{"big.log"}, read: []string{"big.log"}},
		},
		{
			name: "Codex: two reads whose outputs run together, one cut short by its file's end, show their files without lines",
			tool: "shell", args: map[string]any{"command": []any{"bash", "-lc", "sed -n '1,80p' a.ts && sed -n '1,80p' b.ts"}},
			result: printed(120),
			want:   want{class: FileLevel, files: []string{"a.ts", "b.ts"}, read: []string{"a.ts", "b.ts"}},
		},
		{
			name: "Codex: two reads that printed all they asked for show it",
			tool: "shell", args: map[string]any{"command": []any{"bash", "-lc", "sed -n '1,80p' a.ts && sed -n '10,20p' b.ts"}},
			result: printed(91),
			want: want{class: FileLevel, files: []string{"a.ts", "b.ts"}, read: []string{"a.ts", "b.ts"},
				ranges: []LineRange{lines("a.ts", 1, 80), lines("b.ts", 10, 20)}},
		},
		{
			name: "the module of python -m and the code of node -e are no files",
			tool: "Bash", args: map[string]any{"command": "python -m json.tool data.json && node -e console.log && node --eval process.exit && python -c sys.exit"},
			result: "{}\n",
			want:   want{class: OtherClass, files: []string{"data.json"}},
		},
		{
			name: "echo prints words, not files",
			tool: "Bash", args: map[string]any{"command": "echo notes.txt"}, result: "notes.txt\n",
			want: want{class: OtherClass},
		},
		{
			name: "a reporting run of a fixer writes nothing; its fixing run does",
			tool: "Bash", args: map[string]any{"command": "ruff check a.py && ruff check --fix b.py"}, result: "Found 1 error.\n",
			want: want{class: Edit, files: []string{"a.py", "b.py"}, written: []string{"b.py"}},
		},
		{
			name: "a read whose output is only its error message read nothing",
			tool: "Bash", args: map[string]any{"command": "head -n 5 a.ts 2>&1"},
			result: "head: cannot open 'a.ts' for reading: Permission denied\n",
			want:   want{class: FileLevel, files: []string{"a.ts"}},
		},
		{
			name: "a fixer given only folders names no file and is no edit",
			tool: "Bash", args: map[string]any{"command": "gofmt -w ./pkg"}, result: "",
			want: want{class: OtherClass},
		},
		{
			name: "a save reported past the first 2,000 lines is not looked for",
			tool: "Bash", args: map[string]any{"command": "python3 gen.py"}, result: printed(2000) + "Saved output to out.docx\n",
			want: want{class: OtherClass, files: []string{"gen.py"}},
		},
		{
			name: "a save reported on the 2,000th line is looked at",
			tool: "Bash", args: map[string]any{"command": "python3 gen.py"}, result: printed(1999) + "Saved output to out.docx\n",
			want: want{class: Edit, files: []string{"gen.py", "out.docx"}, written: []string{"out.docx"}},
		},
		{
			name: "a save line of 300 characters is looked at, a longer one is prose",
			tool: "Bash", args: map[string]any{"command": "python3 gen.py"},
			result: "Saved " + strings.Repeat("x", 300-len("Saved  to a.docx")) + " to a.docx\nSaved " + strings.Repeat("x", 301-len("Saved  to b.docx")) + " to b.docx\n",
			want:   want{class: Edit, files: []string{"gen.py", "a.docx"}, written: []string{"a.docx"}},
		},
		{
			name: "diff -u shows the new side of its hunks",
			tool: "Bash", args: map[string]any{"command": "diff -u a.py b.py"}, isError: true,
			result: "--- a.py\t2026-01-01\n+++ b.py\t2026-01-01\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n",
			want:   want{class: OtherClass, files: []string{"a.py", "b.py"}, read: []string{"b.py"}, ranges: []LineRange{lines("b.py", 1, 2)}},
		},
		{
			name: "a command with no recorded reply showed nothing",
			tool: "Bash", args: map[string]any{"command": "cat patch.txt"}, noReply: true,
			want: want{class: FileLevel, files: []string{"patch.txt"}},
		},
		{
			name: "stderr to nul writes no file",
			tool: "Bash", args: map[string]any{"command": "cat a.go 2>nul"}, result: printed(3),
			want: want{class: FileLevel, files: []string{"a.go"}, read: []string{"a.go"}, ranges: []LineRange{lines("a.go", 1, 3)}},
		},
		{
			name: "a missing operand of cat is not a file read",
			tool: "Bash", args: map[string]any{"command": "cat LM Studio.md a.go"}, isError: true,
			result: "cat: LM: No such file or directory\ncat: Studio.md: No such file or directory\n" + printed(2),
			want:   want{class: FileLevel, files: []string{"a.go"}, read: []string{"a.go"}},
		},
		{
			name: "SWE-agent: a refused edit wrote nothing and shows only the original code",
			tool: "edit", args: map[string]any{"command": "edit 2:3\nx\nend_of_edit"},
			result: "Your proposed edit has introduced new syntax error(s).\nThis is how your edit would have looked if applied\n-------------------------------------------------\n[File: /testbed/a.py (9 lines total)]\n1:a\n2:x\n-------------------------------------------------\n\nThis is the original code before your edit\n-------------------------------------------------\n[File: /testbed/a.py (9 lines total)]\n1:a\n2:b\n3:c\n-------------------------------------------------\nYour changes have NOT been applied. Please fix your edit command and try again.\n",
			want:   want{class: Edit, failed: true, files: []string{"a.py"}, read: []string{"a.py"}, ranges: []LineRange{lines("a.py", 1, 3)}},
		},
		{
			name: "SWE-agent: an edit's window shows the lines it prints",
			tool: "edit", args: map[string]any{"command": "edit 1:1\nimport os\nend_of_edit"},
			result: "[File: /testbed/r.py (2 lines total)]\n1:import os\n2:\nFile updated. Please review the changes.\n",
			want:   want{class: Edit, files: []string{"r.py"}, read: []string{"r.py"}, written: []string{"r.py"}, ranges: []LineRange{lines("r.py", 1, 2)}},
		},
		{
			name: "SWE-agent: submit's diff shows its new side",
			tool: "submit", args: map[string]any{"command": "submit"},
			result: "diff --git a/pkg/h.py b/pkg/h.py\n--- a/pkg/h.py\n+++ b/pkg/h.py\n@@ -10,3 +10,4 @@ def f():\n     a = 1\n-    b = 2\n+    b = 3\n+    c = 4\n \n",
			want:   want{class: OtherClass, files: []string{"pkg/h.py"}, read: []string{"pkg/h.py"}, ranges: []LineRange{lines("pkg/h.py", 10, 13)}},
		},
		{
			name: "Gemini CLI: read_file of a whole file shows all its lines",
			tool: "read_file", args: map[string]any{"file_path": "/root/data.json"}, result: "{\n  \"a\": 1\n}\n",
			want: want{class: FileLevel, files: []string{"/root/data.json"}, read: []string{"/root/data.json"}, ranges: []LineRange{lines("/root/data.json", 1, 3)}},
		},
		{
			name: "Gemini CLI: search_file_content hits show their lines",
			tool: "search_file_content", args: map[string]any{"pattern": "Token"},
			result: "Found 2 matches for pattern \"Token\" in the workspace directory:\n---\nFile: pkg/t.go\nL12: func Token() {}\n---\nFile: README.md\nL3: Token docs\n---",
			want: want{class: FileLevel, files: []string{"pkg/t.go", "README.md"}, read: []string{"pkg/t.go", "README.md"},
				ranges: []LineRange{lines("pkg/t.go", 12, 12), lines("README.md", 3, 3)}},
		},
		{
			name: "Gemini CLI: read_many_files shows each file whole, without its separators",
			tool: "read_many_files", args: map[string]any{"paths": []any{"a.go", "b.md"}},
			result: "--- /testbed/a.go ---\n\npackage a\n\nfunc A() {}\n\n--- /testbed/b.md ---\n\n# B\n\n--- End of content ---",
			want: want{class: FileLevel, files: []string{"a.go", "b.md"}, read: []string{"a.go", "b.md"},
				ranges: []LineRange{lines("a.go", 1, 3), lines("b.md", 1, 1)}},
		},
		{
			name: "Claude Code: Read's empty last numbered line is the final newline",
			tool: "Read", args: map[string]any{"file_path": "/testbed/p.json"}, result: "     1→{\n     2→}\n     3→\n\n<system-reminder>\nx\n</system-reminder>\n",
			want: want{class: FileLevel, files: []string{"p.json"}, read: []string{"p.json"}, ranges: []LineRange{lines("p.json", 1, 2)}},
		},
	}
	tax := DefaultTaxonomy()
	paths := PathNormalizer{CWD: "/testbed"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args, err := json.Marshal(tc.args)
			assert.NoError(t, err)
			c := &trace.ToolCall{Name: tc.tool, Arguments: args, Result: tc.result, HasResult: !tc.noReply, IsError: tc.isError}
			rule, _ := tax.ClassifyCall(c)
			ex := Extract(c, rule, paths)
			class := rule.Class
			if ex.Class != "" {
				class = ex.Class
			}
			var files, read, written []string
			for _, f := range ex.Files {
				files = append(files, f.Path)
				if f.Read {
					read = append(read, f.Path)
				}
				if f.Written {
					written = append(written, f.Path)
				}
			}
			got := want{class: class, failed: ex.Failed, files: files, read: read, written: written, ranges: ex.Ranges}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestMCPToolsAreKnownUnderEachAgentsNaming(t *testing.T) {
	t.Parallel()
	tax := DefaultTaxonomy()
	for _, tc := range []struct {
		tool  string
		class Class
		known bool
		mcp   bool
	}{
		{"mcp__serena__find_symbol", Semantic, true, true},
		{"serena__find_symbol", Semantic, true, true},
		{"serena.find_symbol", Semantic, true, true},
		{"sourcegraph__keyword_search", Semantic, true, true},
		{"filesystem__read_text_file", FileLevel, true, true},
		{"context7__get-library-docs", OtherClass, true, true},
		{"acme__lookup", OtherClass, false, true},
		{"read__me", OtherClass, false, true},
		{"file.read", FileLevel, true, false},
		{"plain_tool", OtherClass, false, false},
	} {
		r, known := tax.Classify(tc.tool)
		assert.Equal(t, tc.class, r.Class, tc.tool)
		assert.Equal(t, tc.known, known, tc.tool)
		assert.Equal(t, tc.mcp, r.IsMCP(tc.tool), tc.tool)
	}
}

func TestAtMost64ProgramsOfACallNameFiles(t *testing.T) {
	t.Parallel()
	var script []string
	for i := range 70 {
		script = append(script, fmt.Sprintf("python3 s%d.py", i))
	}
	args, _ := json.Marshal(map[string]any{"command": strings.Join(script, "; ")})
	c := &trace.ToolCall{Name: "Bash", Arguments: args, Result: "ok\n", HasResult: true}
	rule, _ := DefaultTaxonomy().ClassifyCall(c)
	ex := Extract(c, rule, PathNormalizer{})
	assert.Len(t, ex.Files, 64)
	assert.Equal(t, "s63.py", ex.Files[63].Path)
}

// A search that printed many files, some under names it also printed
// alone (folders, listed by the command or matched by its pattern): the
// folders are dropped however many names there are, and a name that is a
// prefix of another without a slash between them stays.
func TestFoldersAmongManyNamesOfASearchAreDropped(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	want := []string{"src/a.go"} // named by the command first
	for i := range 40 {
		fmt.Fprintf(&out, "pkg%02d/a.go:1:foo\n", i)
		want = append(want, fmt.Sprintf("pkg%02d/a.go", i))
	}
	out.WriteString(".deepwiki/a.md:3:foo\nsrc/a.go.orig:2:foo\nsrc/a.go:2:foo\n")
	want = append(want, ".deepwiki/a.md", "src/a.go.orig")
	c := &trace.ToolCall{Name: "Bash", Arguments: []byte(`{"command":"rg -n foo -S .deepwiki src/a.go pkg*"}`), Result: out.String(), HasResult: true}
	rule, _ := DefaultTaxonomy().ClassifyCall(c)
	ex := Extract(c, rule, PathNormalizer{CWD: "/w"})
	var files []string
	for _, f := range ex.Files {
		files = append(files, f.Path)
	}
	assert.Equal(t, want, files)
}
