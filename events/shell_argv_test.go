package events

import "testing"

// Codex records shell calls as argv arrays: {"command": ["bash", "-lc",
// SCRIPT]} for the shell tool, and ["cat", "x"] for local_shell_call. An
// argv runs without a shell: each element is one word, as written.
func TestExtractShellArgv(t *testing.T) {
	t.Parallel()
	other := Rule{Category: OtherCategory, Class: OtherClass}
	runExtractCases(t, []extractCase{
		{
			name: "a bash -lc argv runs its script",
			tool: "shell", rule: other,
			args:   `{"command": ["bash", "-lc", "cat x.go | head -5"]}`,
			result: printed(5),
			want:   Extraction{Files: []FileRef{argRead("x.go")}, Ranges: []LineRange{lines("x.go", 1, 5)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a bash -c argv with positional arguments runs its script, not its last argument",
			tool: "shell", rule: other,
			args:   `{"command": ["bash", "-c", "sed -n '3,9p' a.py", "arg0", "b.py"]}`,
			result: printed(7),
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 3, 9)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "separate -l and -c flags and a full path to the shell",
			tool: "shell", rule: other,
			args:   `{"command": ["/bin/bash", "-l", "-c", "head -n 3 a.txt"]}`,
			result: printed(3),
			want:   Extraction{Files: []FileRef{argRead("a.txt")}, Ranges: []LineRange{lines("a.txt", 1, 3)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "an argv element with spaces is one word",
			tool: "shell", rule: other,
			args:   `{"command": ["sed", "-n", "1,5p", "my notes.md"]}`,
			result: printed(5),
			want:   Extraction{Files: []FileRef{argRead("my notes.md")}, Ranges: []LineRange{lines("my notes.md", 1, 5)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a grep pattern with a space stays the query",
			tool: "shell", rule: other,
			args:   `{"command": ["grep", "-n", "def main", "app.py"]}`,
			result: "12:def main():\n",
			want:   Extraction{Files: []FileRef{argRead("app.py")}, Ranges: []LineRange{lines("app.py", 12, 12)}, Query: "def main", Category: CodeSearch, Class: FileLevel},
		},
		{
			name: "brackets in an argv element are part of the name, not a glob",
			tool: "shell", rule: other,
			args:   `{"command": ["cat", "app/[id]/page.tsx"]}`,
			result: printed(4),
			want:   Extraction{Files: []FileRef{argRead("app/[id]/page.tsx")}, Ranges: []LineRange{lines("app/[id]/page.tsx", 1, 4)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "an argv element is not expanded: a substitution in it runs nothing",
			tool: "shell", rule: other,
			args: `{"command": ["echo", "$(cat secret.txt)"]}`,
			want: Extraction{},
		},
		{
			name: "a local_shell_call action resolves against its working directory",
			tool: "local_shell", rule: other, cwd: "/repo",
			args:   `{"type": "exec", "command": ["cat", "README.md"], "working_directory": "/repo/docs"}`,
			result: printed(4),
			want:   Extraction{Files: []FileRef{argRead("docs/README.md")}, Ranges: []LineRange{lines("docs/README.md", 1, 4)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "an argv with a non-string element is not a command",
			tool: "shell", rule: other,
			args: `{"command": ["cat", 3]}`,
			want: Extraction{},
		},
	})
}
