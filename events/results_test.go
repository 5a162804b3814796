package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

func TestExtractSearchResults(t *testing.T) {
	t.Parallel()
	runExtractCases(t, []extractCase{
		{
			name: "Grep content output reads the hit lines",
			tool: "Grep", rule: ruleGrep, cwd: "/path/to/Demo",
			args:   `{"pattern": "useTodos", "path": "/path/to/Demo", "output_mode": "content", "-n": true}`,
			result: "/path/to/Demo/todo-app/src/app/page.tsx:4:import { useTodos } from '@/hooks/useTodos';\n/path/to/Demo/todo-app/src/app/page.tsx:9:  const t = useTodos();\n/path/to/Demo/todo-app/src/hooks/useTodos.ts:12:export function useTodos() {",
			want: Extraction{
				Files:  []FileRef{hitRead("todo-app/src/app/page.tsx"), hitRead("todo-app/src/hooks/useTodos.ts")},
				Ranges: []LineRange{lines("todo-app/src/app/page.tsx", 4, 4), lines("todo-app/src/app/page.tsx", 9, 9), lines("todo-app/src/hooks/useTodos.ts", 12, 12)},
				Query:  "useTodos",
			},
		},
		{
			name: "Grep files_with_matches output surfaces files only",
			tool: "Grep", rule: ruleGrep,
			args:   `{"pattern": "useTodos", "output_mode": "files_with_matches"}`,
			result: "Found 2 files\n/testbed/src/hooks/useTodos.ts\n/testbed/src/app/page.tsx",
			want:   Extraction{Files: []FileRef{surfaced("src/hooks/useTodos.ts"), surfaced("src/app/page.tsx")}, Query: "useTodos"},
		},
		{
			name: "Grep count output surfaces files only",
			tool: "Grep", rule: ruleGrep,
			args:   `{"pattern": "x", "output_mode": "count"}`,
			result: "/testbed/a.py:3\n/testbed/b.py:1\n\nFound 4 total occurrences across 2 files.",
			want:   Extraction{Files: []FileRef{surfaced("a.py"), surfaced("b.py")}, Query: "x"},
		},
		{
			name: "Grep over one file prints bare line numbers for that file",
			tool: "Grep", rule: ruleGrep,
			args:   `{"pattern": "def ", "path": "/testbed/src/a.py", "output_mode": "content", "-n": true}`,
			result: "3:def f():\n10:def g():\n",
			want: Extraction{
				Files:  []FileRef{{Path: "src/a.py", Read: true}},
				Ranges: []LineRange{lines("src/a.py", 3, 3), lines("src/a.py", 10, 10)},
				Query:  "def ",
			},
		},
		{
			name: "no matches names nothing",
			tool: "Grep", rule: ruleGrep,
			args:   `{"pattern": "zzz"}`,
			result: "No matches found",
			want:   Extraction{Query: "zzz"},
		},
		{
			name: "Glob output surfaces files in order",
			tool: "Glob", rule: ruleGlob, cwd: "/path/to/Demo",
			args:   `{"pattern": "**/package.json", "path": "/path/to/Demo"}`,
			result: "/path/to/Demo/todo-app/package.json\n/path/to/Demo/package.json\n(Results are truncated. Consider using a more specific path or pattern.)",
			want:   Extraction{Files: []FileRef{surfaced("todo-app/package.json"), surfaced("package.json")}, Query: "**/package.json"},
		},
		{
			name: "Glob with no files names nothing",
			tool: "Glob", rule: ruleGlob,
			args:   `{"pattern": "**/*.md", "path": "~/.claude/commands"}`,
			result: "No files found",
			want:   Extraction{Query: "**/*.md"},
		},
		{
			name: "a listing tool's bare names belong to the listed directory",
			tool: "list_dir", rule: ruleGlob,
			args:   `{"path": "/testbed/src"}`,
			result: "a.go\nsub/\nnotes.md\n",
			want:   Extraction{Files: []FileRef{surfaced("src/a.go"), surfaced("src/notes.md")}},
		},
		{
			name: "a search's relative hits are not joined to its scope again",
			tool: "grep_search", rule: ruleGrep,
			args:   `{"query": "x", "path": "src"}`,
			result: "src/a.go:3:x\n",
			want:   Extraction{Files: []FileRef{hitRead("src/a.go")}, Ranges: []LineRange{lines("src/a.go", 3, 3)}, Query: "x"},
		},
		{
			name: "a listing tool's names with a slash are relative to the working directory",
			tool: "file_search", rule: ruleGlob,
			args:   `{"query": "*.go", "path": "src"}`,
			result: "src/a.go\nsrc/b/c.go\n",
			want:   Extraction{Files: []FileRef{surfaced("src/a.go"), surfaced("src/b/c.go")}, Query: "*.go"},
		},
		{
			name: "Claude Code's LS tree is joined level by level",
			tool: "LS", rule: ruleGlob,
			args:   `{"path": "/testbed"}`,
			result: "- /testbed/\n  - Makefile\n  - src/\n    - a.go\n    - b/\n      - c.go\n  - README.md\n\nNOTE: do any of the files above seem malicious?",
			want:   Extraction{Files: []FileRef{surfaced("Makefile"), surfaced("src/a.go"), surfaced("src/b/c.go"), surfaced("README.md")}},
		},
		{
			name: "SWE-agent find_file output surfaces the file",
			tool: "find_file", rule: ruleGlob, cwd: "/SWE-agent__test-repo",
			args:   `{"file_name": "missing_colon.py"}`,
			result: "Found 1 matches for \"missing_colon.py\" in /SWE-agent__test-repo:\r\n/SWE-agent__test-repo/tests/missing_colon.py\n(Open file: n/a)\n(Current directory: /SWE-agent__test-repo)\nbash-$",
			want:   Extraction{Files: []FileRef{surfaced("tests/missing_colon.py")}, Query: "missing_colon.py"},
		},
		{
			name: "SWE-agent search_file hits are read lines of the searched file",
			tool: "search_file", rule: ruleGrep,
			args:   `{"search_term": "TimeDelta", "file": "src/marshmallow/fields.py"}`,
			result: "Found 2 matches for \"TimeDelta\" in /testbed/src/marshmallow/fields.py:\nLine 1443:class TimeDelta(Field):\nLine 1470:        TimeDelta\nEnd of matches for \"TimeDelta\" in /testbed/src/marshmallow/fields.py",
			want: Extraction{
				Files:  []FileRef{{Path: "src/marshmallow/fields.py", Read: true}},
				Ranges: []LineRange{lines("src/marshmallow/fields.py", 1443, 1443), lines("src/marshmallow/fields.py", 1470, 1470)},
				Query:  "TimeDelta",
			},
		},
		{
			name: "SWE-agent search_dir lists files with their match counts",
			tool: "search_dir", rule: ruleGrep,
			args:   `{"search_term": "TimeDelta"}`,
			result: "Found 3 matches for \"TimeDelta\" in /testbed:\n/testbed/src/marshmallow/fields.py (2 matches)\n/testbed/tests/test_fields.py (1 matches)\nEnd of matches for \"TimeDelta\" in /testbed",
			want:   Extraction{Files: []FileRef{surfaced("src/marshmallow/fields.py"), surfaced("tests/test_fields.py")}, Query: "TimeDelta"},
		},
		{
			name: "the evaldata File/Lines form is a read range",
			tool: "code_search", rule: ruleSGSearch,
			args:   `{"query": "feature"}`,
			result: "File: pkg/feature.go\nLines: 10-25\n\nFile: pkg/util.go\nLines: 42 - 50\n",
			want: Extraction{
				Files:  []FileRef{hitRead("pkg/feature.go"), hitRead("pkg/util.go")},
				Ranges: []LineRange{lines("pkg/feature.go", 10, 25), lines("pkg/util.go", 42, 50)},
				Query:  "feature",
			},
		},
		{
			name: "a File line without Lines only surfaces the file",
			tool: "code_search", rule: ruleSGSearch,
			args:   `{"query": "feature"}`,
			result: "File: pkg/feature.go\nsome summary\n",
			want:   Extraction{Files: []FileRef{surfaced("pkg/feature.go")}, Query: "feature"},
		},
		{
			name: "prose and markdown tables in a deep search answer name no files",
			tool: "deepsearch", rule: Rule{Category: DeepSearch, Class: Semantic},
			args:   `{"question": "how are todos stored?"}`,
			result: "File: not found in the index\n\n| component | lines |\n| storage | 120 |\n storage | 12\nTodos live in `src/store.ts`.\n",
			want:   Extraction{},
		},
		{
			name: "a diff in a commit search result names its files",
			tool: "mcp__sourcegraph__sg_diff_search", rule: Rule{Category: CommitSearch, Class: Semantic},
			args:   `{"pattern": "rounding"}`,
			result: "commit abc\ndiff --git a/src/fields.py b/src/fields.py\n--- a/src/fields.py\n+++ b/src/fields.py\n@@ -1 +1 @@\n",
			want:   Extraction{Files: []FileRef{hitRead("src/fields.py")}, Query: "rounding"},
		},
	})
}

func TestExtractReadResults(t *testing.T) {
	t.Parallel()
	runExtractCases(t, []extractCase{
		{
			name: "read_file's File/Lines result is a range",
			tool: "read_file", rule: ruleRead,
			args:   `{"path": "x.go"}`,
			result: "File: x.go\nLines: 3-9\n",
			want:   Extraction{Files: []FileRef{argRead("x.go")}, Ranges: []LineRange{lines("x.go", 3, 9)}},
		},
		{
			name: "SWE-agent open shows numbered lines under a File header",
			tool: "open", rule: ruleRead, cwd: "/SWE-agent__test-repo",
			args:   `{"path": "tests/missing_colon.py"}`,
			result: "[File: tests/missing_colon.py (10 lines total)]\r\n1:#!/usr/bin/env python3\r\n2:\r\n3:\r\n4:def division(a: float, b: float) -> float\r\n(Open file: /SWE-agent__test-repo/tests/missing_colon.py)\n(Current directory: /SWE-agent__test-repo)\nbash-$",
			want:   Extraction{Files: []FileRef{argRead("tests/missing_colon.py")}, Ranges: []LineRange{lines("tests/missing_colon.py", 1, 4)}},
		},
		{
			name: "SWE-agent goto shows a window in the middle of a file",
			tool: "goto", rule: ruleRead,
			args:   `{"line_number": 1474}`,
			result: "[File: /testbed/src/marshmallow/fields.py (1997 lines total)]\n(1456 more lines above)\n1457:            self.MINUTES,\n1458:            self.HOURS,\n(539 more lines below)",
			want:   Extraction{Files: []FileRef{hitRead("src/marshmallow/fields.py")}, Ranges: []LineRange{lines("src/marshmallow/fields.py", 1457, 1458)}},
		},
		{
			name: "Sourcegraph read_file JSON content is a read with its lines",
			tool: "mcp__sourcegraph__sg_read_file", rule: ruleSGRead,
			args:   `{"repo": "github.com/org/repo", "path": "internal/search/zoekt.go", "startLine": 100, "endLine": 140}`,
			result: `{"repository": "github.com/org/repo", "path": "internal/search/zoekt.go", "startLine": 100, "endLine": 103, "content": "a\nb\nc\nd"}`,
			want: Extraction{
				Files:  []FileRef{argRead("internal/search/zoekt.go")},
				Ranges: []LineRange{lines("internal/search/zoekt.go", 100, 103)},
			},
		},
		{
			name: "a read numbering lines with bars is a range",
			tool: "read_file", rule: ruleRead,
			args:   `{"target_file": "src/app.ts"}`,
			result: "    40|import x from 'y';\n    41|\n    42|export {}\n",
			want:   Extraction{Files: []FileRef{argRead("src/app.ts")}, Ranges: []LineRange{lines("src/app.ts", 40, 42)}},
		},
		{
			name: "a read numbering lines with colons is a range",
			tool: "mcp__sourcegraph__sg_read_file", rule: ruleSGRead,
			args:   `{"path": "main.go"}`,
			result: "1: package main\n2: \n3: func main() {}\n",
			want:   Extraction{Files: []FileRef{argRead("main.go")}, Ranges: []LineRange{lines("main.go", 1, 3)}},
		},
		{
			name: "text with a few numbered lines is not numbered content: the plain text is the whole file",
			tool: "read_file", rule: ruleRead,
			args:   `{"path": "notes.md"}`,
			result: "Steps:\n1: install\n2: run\nthen read the docs\nand more text\n",
			want:   Extraction{Files: []FileRef{argRead("notes.md")}, Ranges: []LineRange{lines("notes.md", 1, 5)}},
		},
		{
			name: "a read that returns a JSON file verbatim names no other files",
			tool: "file.read", rule: ruleRead,
			args:   `{"path": "package.json"}`,
			result: `{"name": "todo-app", "files": ["dist"], "main": "dist/index.js", "workspaces": [{"path": "packages/a/index.ts"}]}`,
			want:   Extraction{Files: []FileRef{argRead("package.json")}, Ranges: []LineRange{lines("package.json", 1, 1)}},
		},
		{
			name: "JSON content with a start line covers as many lines as it has",
			tool: "mcp__sourcegraph__read_file", rule: ruleSGRead,
			args:   `{"path": "a.go"}`,
			result: `{"file": "a.go", "startLine": 20, "content": "x\ny\nz\n"}`,
			want:   Extraction{Files: []FileRef{argRead("a.go")}, Ranges: []LineRange{lines("a.go", 20, 22)}},
		},
	})
}

func TestExtractJSONResults(t *testing.T) {
	t.Parallel()
	runExtractCases(t, []extractCase{
		{
			name: "Sourcegraph keyword_search hits under file keys are read with their lines",
			tool: "mcp__sourcegraph__sg_keyword_search", rule: ruleSGSearch,
			args:   `{"query": "repo:^github.com/org/repo$ zoektSearch"}`,
			result: `{"results": [{"repository": "github.com/org/repo", "file": "internal/search/zoekt.go", "matches": [{"lineNumber": 120, "preview": "func zoektSearch("}, {"lineNumber": 121, "preview": "  ctx context.Context,"}, {"lineNumber": 300, "preview": "zoektSearch(ctx)"}]}, {"repository": "github.com/org/repo", "file": "cmd/main.go", "lineNumber": 7, "content": "zoektSearch()"}]}`,
			want: Extraction{
				Files:  []FileRef{hitRead("internal/search/zoekt.go"), hitRead("cmd/main.go")},
				Ranges: []LineRange{lines("internal/search/zoekt.go", 120, 121), lines("internal/search/zoekt.go", 300, 300), lines("cmd/main.go", 7, 7)},
				Query:  "repo:^github.com/org/repo$ zoektSearch",
			},
		},
		{
			name: "a repository written in front of the path is stripped",
			tool: "mcp__sourcegraph__keyword_search", rule: ruleSGSearch,
			args:   `{"query": "x"}`,
			result: `[{"repository": "github.com/org/repo", "file": "github.com/org/repo/pkg/a.go"}, {"file": "github.com/org/other/-/blob/pkg/b.go"}]`,
			want:   Extraction{Files: []FileRef{surfaced("pkg/a.go"), surfaced("pkg/b.go")}, Query: "x"},
		},
		{
			name: "hits without content are surfaced, not read",
			tool: "mcp__sourcegraph__find_references", rule: Rule{Category: SymbolNavigation, Class: Semantic},
			args:   `{"symbol": "zoektSearch"}`,
			result: `{"references": [{"path": "a.go", "startLine": 3, "endLine": 3}, {"filePath": "b.go", "line": 9}]}`,
			want:   Extraction{Files: []FileRef{surfaced("a.go"), surfaced("b.go")}, Symbols: []string{"zoektSearch"}},
		},
		{
			name: "Sourcegraph list_files entries are surfaced and directories skipped",
			tool: "mcp__sourcegraph__sg_list_files", rule: ruleSGList,
			args:   `{"repo": "github.com/org/repo", "path": "internal"}`,
			result: `{"repo": "github.com/org/repo", "path": "internal", "entries": [{"path": "internal/search", "type": "dir"}, {"path": "internal/search/run", "type": "file"}, {"path": "internal/README.md"}, {"path": "internal/vendor", "isDirectory": true}]}`,
			want:   Extraction{Files: []FileRef{surfaced("internal/search/run"), surfaced("internal/README.md")}},
		},
		{
			name: "MCP text content blocks holding JSON are unwrapped",
			tool: "mcp__sourcegraph__sg_keyword_search", rule: ruleSGSearch,
			args:   `{"query": "x"}`,
			result: `[{"type": "text", "text": "{\"results\": [{\"file\": \"a.go\", \"lineNumber\": 4, \"preview\": \"x\"}]}"}]`,
			want:   Extraction{Files: []FileRef{hitRead("a.go")}, Ranges: []LineRange{lines("a.go", 4, 4)}, Query: "x"},
		},
		{
			name: "MCP text content blocks holding text are read as text",
			tool: "mcp__sourcegraph__sg_keyword_search", rule: ruleSGSearch,
			args:   `{"query": "x"}`,
			result: `{"content": [{"type": "text", "text": "File: a.go\nLines: 1-3"}]}`,
			want:   Extraction{Files: []FileRef{hitRead("a.go")}, Ranges: []LineRange{lines("a.go", 1, 3)}, Query: "x"},
		},
		{
			name: "JSON with a lines string is a range",
			tool: "deepsearch", rule: Rule{Category: DeepSearch, Class: Semantic},
			args:   `{"question": "where is X?"}`,
			result: `{"sources": [{"path": "pkg/x.go", "lines": "10-25"}]}`,
			want:   Extraction{Files: []FileRef{hitRead("pkg/x.go")}, Ranges: []LineRange{lines("pkg/x.go", 10, 25)}},
		},
		{
			name: "file URIs and http URIs in JSON",
			tool: "lsp_definition", rule: Rule{Category: SymbolNavigation, Class: Semantic},
			args:   `{"symbol": "Foo"}`,
			result: `[{"uri": "file:///workspace/pkg/foo.go"}, {"uri": "https://example.com/x.go"}]`,
			want:   Extraction{Files: []FileRef{surfaced("pkg/foo.go")}, Symbols: []string{"Foo"}},
		},
		{
			name: "invalid JSON falls back to text",
			tool: "Grep", rule: ruleGrep,
			args:   `{"pattern": "x"}`,
			result: "{\"file\": \"a.go\",\nb.go:2:x\n",
			want:   Extraction{Files: []FileRef{hitRead("b.go")}, Ranges: []LineRange{lines("b.go", 2, 2)}, Query: "x"},
		},
		{
			name: "deeply nested JSON stops at the depth limit",
			tool: "Grep", rule: ruleGrep,
			args:   `{"pattern": "x"}`,
			result: strings.Repeat("[", 200) + `{"file": "a.go"}` + strings.Repeat("]", 200),
			want:   Extraction{Query: "x"},
		},
	})
}

func TestExtractFileOrderAndMerging(t *testing.T) {
	t.Parallel()
	runExtractCases(t, []extractCase{
		{
			name: "an argument file seen again in the result stays an argument file",
			tool: "Grep", rule: ruleGrep,
			args:   `{"pattern": "x", "path": "/testbed/b.go"}`,
			result: "/testbed/a.go:1:x\n/testbed/b.go:2:x\n",
			want: Extraction{
				Files:  []FileRef{{Path: "b.go", Read: true}, hitRead("a.go")},
				Ranges: []LineRange{lines("b.go", 2, 2), lines("a.go", 1, 1)},
				Query:  "x",
			},
		},
		{
			name: "overlapping and adjacent ranges coalesce, sorted by start",
			tool: "Grep", rule: ruleGrep,
			args:   `{"pattern": "x"}`,
			result: "a.go:9:x\na.go:3:x\na.go-4-y\na.go:5:x\na.go:10:x\na.go:20:x\n",
			want:   Extraction{Files: []FileRef{hitRead("a.go")}, Ranges: []LineRange{lines("a.go", 3, 5), lines("a.go", 9, 10), lines("a.go", 20, 20)}, Query: "x"},
		},
	})
}

func TestExtractFoldsCase(t *testing.T) {
	t.Parallel()
	call := &trace.ToolCall{Name: "Grep", Arguments: json.RawMessage(`{"pattern": "x"}`), Result: "Src/A.go:1:x\nsrc/a.go:2:x\n"}
	got := Extract(call, ruleGrep, PathNormalizer{FoldCase: true})
	assert.Equal(t, []FileRef{hitRead("Src/A.go")}, got.Files, "one file under case folding, first spelling kept")
	assert.Equal(t, []LineRange{lines("Src/A.go", 1, 2)}, got.Ranges)

	got = Extract(call, ruleGrep, PathNormalizer{})
	assert.Len(t, got.Files, 2, "two files when case matters")
}

// TestExtractCapsLargeResults: a 64 MB result is scanned only up to the
// cap, quickly, and what lies past the cap is not seen.
func TestExtractCapsLargeResults(t *testing.T) {
	t.Parallel()
	const size = 64 << 20
	var b strings.Builder
	b.Grow(size + 100)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "src/f%d.go:%d:some matching line of code\n", i%50000, i%1000+1)
	}
	b.WriteString("src/past_the_cap.go:1:x\n")
	big := b.String()

	tests := []struct {
		name string
		tool string
		rule Rule
		args string
	}{
		{"a 64 MB grep result", "Grep", ruleGrep, `{"pattern": "x"}`},
		{"a 64 MB shell grep", "Bash", ruleBash, bash("grep -rn x src")},
		{"a 64 MB read", "Read", ruleRead, `{"file_path": "big.log"}`},
		{"a 64 MB JSON-looking result", "mcp__sourcegraph__sg_keyword_search", ruleSGSearch, `{"query": "x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result := big
			if strings.HasPrefix(tt.tool, "mcp") {
				result = "[" + big
			}
			got := Extract(&trace.ToolCall{Name: tt.tool, Arguments: json.RawMessage(tt.args), Result: result}, tt.rule, PathNormalizer{})
			require.NotEmpty(t, got.Files, "what lies before the cap is seen")
			require.LessOrEqual(t, len(got.Files), maxFilesPerCall)
			for _, f := range got.Files {
				assert.NotEqual(t, "src/past_the_cap.go", f.Path, "nothing past the scan cap is seen")
			}
		})
	}
}

// A "File:" header is read past any blank strings.TrimSpace trims,
// Unicode spaces included, though lines are refused before trimming when
// their first byte cannot start one.
func TestFileHeadersAreReadPastEveryLeadingBlank(t *testing.T) {
	t.Parallel()
	headers := []string{"File: src/a.go", "[File: src/a.go (9 lines total)]", `Found 1 matches for "x" in src/a.go:`}
	for _, lead := range []string{"", "  ", "\t", "\v\f\r", "\n", "\u00a0", "\u3000 ", "\u0085", "\u2028"} {
		for _, h := range headers {
			c := newCollector(PathNormalizer{})
			c.scanText("     1→package a\n"+lead+h+"\nLines: 3-4\n", resultScan{forms: formFileLines})
			if assert.Len(t, c.files, 1, "%q", lead+h) {
				assert.Equal(t, "src/a.go", c.files[0].Path, "%q", lead+h)
			}
		}
	}
	for _, text := range []string{"Xile: src/a.go\n", " \u00a0Lines: 3-4\n", "\u00e9File: src/a.go\n", "\t\n   \n"} {
		c := newCollector(PathNormalizer{})
		c.scanText(text, resultScan{forms: formFileLines})
		assert.Empty(t, c.files, "%q", text)
	}
}

func TestMayOpenFileHeaderLooksPastASCIIBlanks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want bool
	}{
		{"File: a.go", true},
		{"[File: a.go]", true},
		{" \t\v\f\r\nFound 2", true},
		{"\u00a0File: a.go", true},
		{"     12→text", false},
		{"12:text", false},
		{"file: a.go", false},
		{"", false},
		{" \t ", false},
		{"E", false},
		{"G", false},
		{"Z", false},
		{"\x7f", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, mayOpenFileHeader(tt.line), "%q", tt.line)
	}
}
