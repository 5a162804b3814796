package events

import "testing"

func TestExtractEditorAgentResults(t *testing.T) {
	t.Parallel()
	readFile := Rule{Match: "read_file", Category: FileRead, Class: FileLevel}
	grepSearch := Rule{Match: "grep_search", Category: CodeSearch, Class: FileLevel}
	editFile := Rule{Match: "edit_file", Category: FileWrite, Class: Edit}
	runExtractCases(t, []extractCase{
		{
			name: "a read answered with one fenced block shows its lines from the line asked for",
			tool: "read_file", rule: readFile, cwd: "/w",
			args:   `{"filePath": "/w/a.csv", "startLine": 3, "endLine": 20}`,
			result: "```plaintext\nc\nd\ne\n\n```",
			want:   Extraction{Files: []FileRef{argRead("a.csv")}, Ranges: []LineRange{lines("a.csv", 3, 5)}},
		},
		{
			name: "a fenced read without a start line starts at line 1, its last line kept when not empty",
			tool: "read_file", rule: readFile, cwd: "/w",
			args:   `{"filePath": "/w/a.go"}`,
			result: "```go\npackage a\nfunc A() {}\n```",
			want:   Extraction{Files: []FileRef{argRead("a.go")}, Ranges: []LineRange{lines("a.go", 1, 2)}},
		},
		{
			name: "an empty fenced block shows no line",
			tool: "read_file", rule: readFile, cwd: "/w",
			args:   `{"filePath": "/w/empty.go"}`,
			result: "```\n```",
			want:   Extraction{Files: []FileRef{argRead("empty.go")}},
		},
		{
			name: "two fenced blocks are not one read",
			tool: "read_file", rule: readFile, cwd: "/w",
			args:   `{"filePath": "/w/a.md"}`,
			result: "```\na\n```\ntext\n```\nb\n```",
			want:   Extraction{Files: []FileRef{argRead("a.md")}, Ranges: []LineRange{lines("a.md", 1, 7)}},
		},
		{
			name: "match tags name the file and the line each hit shows",
			tool: "grep_search", rule: grepSearch, cwd: "/w",
			args:   `{"query": "Total"}`,
			result: "2 matches<match path=\"/w/cart/total.go\" line=7>\nfunc Total() {\n</match>\n<match path=\"/w/cart/doc.go\" line=12>\n// Total sums\n// the cart.\n</match>\n",
			want: Extraction{Query: "Total", Files: []FileRef{hitRead("cart/total.go"), hitRead("cart/doc.go")},
				Ranges: []LineRange{lines("cart/total.go", 7, 7), lines("cart/doc.go", 12, 13)}},
		},
		{
			name: "a match tag without a line number shows the file without lines",
			tool: "grep_search", rule: grepSearch, cwd: "/w",
			args:   `{"query": "x"}`,
			result: "<match path=\"/w/a.go\">\nx := 1\n</match>",
			want:   Extraction{Query: "x", Files: []FileRef{hitRead("a.go")}},
		},
		{
			name: "a read of a folder lists its file entries and reads nothing",
			tool: "read_file", rule: readFile, cwd: "/w",
			args:   `{"path": "/w/src"}`,
			result: `{"absolutePath": "/w/src", "content": "a.ts\nlib/", "isDirectory": true, "directoryEntries": ["a.ts", "lib/", ""]}`,
			want:   Extraction{Files: []FileRef{surfaced("src/a.ts")}, Category: FileSearch},
		},
		{
			name: "a read whose JSON answer is not a folder reads the file",
			tool: "read_file", rule: readFile, cwd: "/w",
			args:   `{"path": "/w/a.json"}`,
			result: `{"isDirectory": false}`,
			want:   Extraction{Files: []FileRef{argRead("a.json")}, Ranges: []LineRange{lines("a.json", 1, 1)}},
		},
		{
			name: "Cline's search hits grouped by file, named from the working directory, read the files at no known line",
			tool: "search_files", rule: grepSearch, cwd: "/w",
			args:   `{"path": "cart", "regex": "maxRetries"}`,
			result: "Found 2 results.\n\ncart/retry.go\n│----\n│const maxRetries = 3\n│----\n\ncart/limits/doc.go\n│----\n│----",
			want:   Extraction{Query: "maxRetries", Files: []FileRef{hitRead("cart/retry.go"), surfaced("cart/limits/doc.go")}},
		},
		{
			name: "a result that only starts like Cline's search is not one",
			tool: "search_files", rule: grepSearch, cwd: "/w",
			args:   `{"regex": "x"}`,
			result: "Found nothing to report",
			want:   Extraction{Query: "x"},
		},
		{
			name: "an edit answered with a fenced diff shows the diff's new side",
			tool: "edit_file", rule: editFile, cwd: "/w",
			args:   `{"path": "/w/a.csv", "old_str": "b", "new_str": "b\nc"}`,
			result: "```diff\nIndex: /w/a.csv\n===================================================================\n--- /w/a.csv\toriginal\n+++ /w/a.csv\tmodified\n@@ -1,2 +1,3 @@\n a\n b\n+c\n```",
			want:   Extraction{Files: []FileRef{{Path: "a.csv", Read: true, Written: true}}, Ranges: []LineRange{lines("a.csv", 1, 3)}},
		},
		{
			name: "an edit whose result holds an unfenced diff shows nothing",
			tool: "edit_file", rule: editFile, cwd: "/w",
			args:   `{"path": "/w/a.csv", "old_str": "b", "new_str": "b\nc"}`,
			result: "done\n--- /w/a.csv\n+++ /w/a.csv\n@@ -1,2 +1,3 @@\n a\n b\n+c\n",
			want:   Extraction{Files: []FileRef{argWrote("a.csv")}},
		},
	})
}
