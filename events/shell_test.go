package events

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentretrieval/agentretrieval/trace"
)

// words renders parsed pipelines as "cmd arg | cmd arg ; next" with
// redirections in angle form, for compact expectations.
func renderPipelines(pls []shellPipeline) string {
	var parts []string
	for _, pl := range pls {
		var cmds []string
		for _, c := range pl.cmds {
			var ws []string
			for _, w := range c.words {
				s := w.text
				if w.dynamic {
					s += "$"
				}
				if w.glob {
					s += "*"
				}
				ws = append(ws, s)
			}
			for _, r := range c.redirs {
				s := r.op + r.target.text
				if r.fd >= 0 {
					s = string(rune('0'+r.fd)) + s
				}
				if r.body != "" {
					s += "{" + r.body + "}"
				}
				ws = append(ws, s)
			}
			cmds = append(cmds, strings.Join(ws, " "))
		}
		parts = append(parts, strings.Join(cmds, " | "))
	}
	return strings.Join(parts, " ; ")
}

func TestParseShell(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"words split on blanks", "cat  a.go\tb.go", "cat a.go b.go"},
		{"single quotes keep everything", `sed -n '10,20p' 'my file.py'`, "sed -n 10,20p my file.py"},
		{"double quotes keep blanks and mark variables", `grep "a b" "$HOME/x"`, "grep a b /x$"},
		{"backslash escapes a blank", `cat my\ file.go`, "cat my file.go"},
		{"escaped double quote inside double quotes", `grep "say \"hi\"" a.go`, `grep say "hi" a.go`},
		{"and, or, semicolon and newline end pipelines", "cd src && cat a.go || echo no; ls\npwd", "cd src ; cat a.go ; echo no ; ls ; pwd"},
		{"pipes join commands", "cat a.go | head -50 |& tee log", "cat a.go | head -50 | tee log"},
		{"a trailing ampersand ends a pipeline", "npm run dev & sleep 1", "npm run dev ; sleep 1"},
		{"unquoted globs are marked", "ls src/*.go 'x*'", "ls src/*.go* x*"},
		{"a redirection target is not a word", "echo hi > out.txt", "echo hi >out.txt"},
		{"a descriptor before a redirection is kept", "make 2>&1 >/dev/null", "make 2>&1 >/dev/null"},
		{"append and both-streams redirections", "a >> log &> all", "a >>log &>all"},
		{"a redirection glued to a word ends it", "echo hi>out.txt", "echo hi >out.txt"},
		{"input redirection", "wc -l < a.go", "wc -l <a.go"},
		{"a here-document body is captured, not parsed", "cat > f.py <<EOF\nimport os; rm -rf /\nEOF\nls", "cat >f.py <<EOF{import os; rm -rf /\n} ; ls"},
		{"a quoted here-document delimiter", "cat <<'END' > x.txt\nhello $USER\nEND", "cat <<END{hello $USER\n} >x.txt"},
		{"a tab-stripping here-document", "cat <<-EOF\n\tbody\n\tEOF\necho ok", "cat <<-EOF{\tbody\n} ; echo ok"},
		{"a here-string", "grep x <<< 'a b'", "grep x <<<a b{a b}"},
		{"a command substitution runs first", "echo \"Created $(pwd)/hello.txt\"", "pwd ; echo Created /hello.txt$"},
		{"nested substitutions are parsed", "echo $(cat $(ls x.txt))", "ls x.txt ; cat $ ; echo $"},
		{"backticks are substitutions", "echo `cat a.go`", "cat a.go ; echo $"},
		{"arithmetic is not a command", "echo $((1 + 2))", "echo $"},
		{"a process substitution runs its commands", "diff <(cat a.go) b.go", "cat a.go ; diff $ b.go"},
		{"comments are skipped", "ls # list files\ncat a.go", "ls ; cat a.go"},
		{"a hash inside a word is not a comment", "echo a#b", "echo a#b"},
		{"line continuations join lines", "grep -rn \\\n  foo src", "grep -rn foo src"},
		{"subshell parentheses separate commands", "(cd src && cat a.go)", "cd src ; cat a.go"},
		{"ANSI-C quoting keeps the text", "echo $'a b'", "echo a b"},
		{"an unterminated quote runs to the end", "cat 'a.go", "cat a.go"},
		{"an empty script has no pipelines", "  \n ; ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, renderPipelines(parseShell(tt.in)))
		})
	}
}

func bash(cmd string) string {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return string(b)
}

func TestExtractShell(t *testing.T) {
	t.Parallel()
	runExtractCases(t, []extractCase{
		// Reading through the shell is reading.
		{
			name: "sed -n prints a line range",
			tool: "Bash", rule: ruleBash,
			args:   bash("sed -n '10,20p' /testbed/x.py"),
			result: printed(11),
			want:   Extraction{Files: []FileRef{argRead("x.py")}, Ranges: []LineRange{lines("x.py", 10, 20)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "sed -n with several prints records each range",
			tool: "Bash", rule: ruleBash,
			args:   bash("sed -n -e '1,5p' -e '40,45p' a.py"),
			result: printed(11),
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 1, 5), lines("a.py", 40, 45)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "sed -n to the end of the file ends where the output ends",
			tool: "Bash", rule: ruleBash,
			args:   bash("sed -n '100,$p' a.py"),
			result: "x\ny\nz\n",
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 100, 102)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "sed with a quit prints the first lines",
			tool: "Bash", rule: ruleBash,
			args:   bash("sed 20q a.py"),
			result: printed(20),
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 1, 20)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "sed with a pattern script reads without a range",
			tool: "Bash", rule: ruleBash,
			args:   bash("sed -n '/def main/,/^$/p' a.py"),
			result: "def main():\n    run()\n\n",
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "cd changes the directory of a cat piped to head",
			tool: "Bash", rule: ruleBash,
			args:   bash("cd src && cat a.go | head -50"),
			result: printed(50),
			want:   Extraction{Files: []FileRef{argRead("src/a.go")}, Ranges: []LineRange{lines("src/a.go", 1, 50)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "an absolute cd resolves against the workspace",
			tool: "Bash", rule: ruleBash,
			args:   bash("cd /testbed/pkg && head -n 30 util.go"),
			result: printed(30),
			want:   Extraction{Files: []FileRef{argRead("pkg/util.go")}, Ranges: []LineRange{lines("pkg/util.go", 1, 30)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "head without a count prints ten lines",
			tool: "Bash", rule: ruleBash,
			args:   bash("head a.go b.go"),
			result: "==> a.go <==\n" + printed(10) + "\n==> b.go <==\n" + printed(10),
			want:   Extraction{Files: []FileRef{argRead("a.go"), argRead("b.go")}, Ranges: []LineRange{lines("a.go", 1, 10), lines("b.go", 1, 10)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a plain cat shows as many lines as it printed",
			tool: "Bash", rule: ruleBash,
			args:   bash("cat /testbed/setup.cfg"),
			result: "[metadata]\nname = x\n",
			want:   Extraction{Files: []FileRef{argRead("setup.cfg")}, Ranges: []LineRange{lines("setup.cfg", 1, 2)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a failed cat's error message is not counted as lines, and the missing file is not named",
			tool: "Bash", rule: ruleBash, isError: true,
			args:   bash("cat missing.py"),
			result: "cat: missing.py: No such file or directory",
			want:   Extraction{Category: FileRead, Class: FileLevel},
		},
		{
			name: "cat -n takes its ranges from the numbers printed",
			tool: "Bash", rule: ruleBash,
			args:   bash("cat -n a.py | sed -n '5,6p'"),
			result: "     5\timport os\n     6\timport re\n",
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 5, 6)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "nl -ba numbers every line",
			tool: "Bash", rule: ruleBash,
			args:   bash("nl -ba a.py | head -3"),
			result: "     1\tx\n     2\ty\n     3\tz\n",
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 1, 3)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "tail from a line prints to the end",
			tool: "Bash", rule: ruleBash,
			args:   bash("tail -n +200 a.py"),
			result: "a\nb\n",
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 200, 201)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "tail of the last lines reads without a range",
			tool: "Bash", rule: ruleBash,
			args:   bash("tail -20 a.py"),
			result: "a\nb\n",
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "awk with NR bounds prints those lines",
			tool: "Bash", rule: ruleBash,
			args:   bash("awk 'NR>=10 && NR<=20' a.py"),
			result: printed(11),
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 10, 20)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "bat with a line range prints it",
			tool: "Bash", rule: ruleBash,
			args:   bash("bat --line-range 30:40 a.rs"),
			result: printed(11),
			want:   Extraction{Files: []FileRef{argRead("a.rs")}, Ranges: []LineRange{lines("a.rs", 30, 40)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "less and more read their file",
			tool: "Bash", rule: ruleBash,
			args:   bash("less README.md; more LICENSE"),
			result: "# Demo\nMIT License\n",
			want:   Extraction{Files: []FileRef{argRead("README.md"), argRead("LICENSE")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a cat piped to wc shows no content",
			tool: "Bash", rule: ruleBash,
			args:   bash("cat a.py | wc -l"),
			result: "42\n",
			want:   Extraction{Files: []FileRef{argNamed("a.py")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a cat piped to grep reads the file without a range",
			tool: "Bash", rule: ruleBash,
			args:   bash("cat a.py | grep import"),
			result: "import os\n",
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Query: "import", Category: FileRead, Class: FileLevel},
		},
		{
			name: "a cat whose output goes to a file reads nothing and writes the file",
			tool: "Bash", rule: ruleBash,
			args: bash("cat a.py > b.py"),
			want: Extraction{Files: []FileRef{argWrote("b.py"), argNamed("a.py")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "input redirection feeds a reader its file",
			tool: "Bash", rule: ruleBash,
			args:   bash("head -n 5 < a.py"),
			result: printed(5),
			want:   Extraction{Files: []FileRef{argRead("a.py")}, Ranges: []LineRange{lines("a.py", 1, 5)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "wrappers and assignments before the command are skipped",
			tool: "Bash", rule: ruleBash,
			args:   bash("LC_ALL=C timeout 10 sudo -u app cat /app/main.py"),
			result: printed(3),
			want:   Extraction{Files: []FileRef{argRead("main.py")}, Ranges: []LineRange{lines("main.py", 1, 3)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "bash -c runs its script",
			tool: "Bash", rule: ruleBash,
			args:   bash("bash -lc 'cat a.go'"),
			result: printed(3),
			want:   Extraction{Files: []FileRef{argRead("a.go")}, Ranges: []LineRange{lines("a.go", 1, 3)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a cd into a variable leaves relative paths unresolved",
			tool: "Bash", rule: ruleBash,
			args:   bash("cd $REPO && cat a.go /testbed/b.go"),
			result: printed(6),
			want:   Extraction{Files: []FileRef{argRead("b.go")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "globbed operands are not files",
			tool: "Bash", rule: ruleBash,
			args: bash("cat src/*.go"),
			want: Extraction{Category: FileRead, Class: FileLevel},
		},
		{
			name: "a quoted star is part of a real name",
			tool: "Bash", rule: ruleBash,
			args:   bash("cat 'app/[id]/page.tsx'"),
			result: printed(3),
			want:   Extraction{Files: []FileRef{argRead("app/[id]/page.tsx")}, Ranges: []LineRange{lines("app/[id]/page.tsx", 1, 3)}, Category: FileRead, Class: FileLevel},
		},

		// Searching.
		{
			name: "grep -rn hits are read lines, context lines included",
			tool: "Bash", rule: ruleBash,
			args:   bash("grep -rn foo src/"),
			result: "src/a.go:12:\tfoo()\nsrc/a.go-13-\tbar()\n--\nsrc/b/c.go:4:  foo := 1\n",
			want: Extraction{
				Files:  []FileRef{hitRead("src/a.go"), hitRead("src/b/c.go")},
				Ranges: []LineRange{lines("src/a.go", 12, 13), lines("src/b/c.go", 4, 4)},
				Query:  "foo", Category: CodeSearch, Class: FileLevel,
			},
		},
		{
			name: "grep over one file prints bare line numbers",
			tool: "Bash", rule: ruleBash,
			args:   bash("grep -n 'def serialize' src/fields.py"),
			result: "1470:    def serialize(self):\n1502:    def serialize_x(self):\n",
			want: Extraction{
				Files:  []FileRef{argRead("src/fields.py")},
				Ranges: []LineRange{lines("src/fields.py", 1470, 1470), lines("src/fields.py", 1502, 1502)},
				Query:  "def serialize", Category: CodeSearch, Class: FileLevel,
			},
		},
		{
			name: "grep without line numbers reads the hit files without ranges",
			tool: "Bash", rule: ruleBash,
			args:   bash("grep -r TODO ."),
			result: "./a.go:// TODO fix\n./docs/x.md:TODO: write\n",
			want:   Extraction{Files: []FileRef{hitRead("a.go"), hitRead("docs/x.md")}, Query: "TODO", Category: CodeSearch, Class: FileLevel},
		},
		{
			name: "grep with an -e pattern searches the operands",
			tool: "Bash", rule: ruleBash,
			args:   bash("grep -e '-v' -n src/cli.py"),
			result: "12:    parser.add_argument('-v')\n",
			want:   Extraction{Files: []FileRef{argRead("src/cli.py")}, Ranges: []LineRange{lines("src/cli.py", 12, 12)}, Query: "-v", Category: CodeSearch, Class: FileLevel},
		},
		{
			name: "rg -l lists files without reading them",
			tool: "Bash", rule: ruleBash,
			args:   bash("rg -l useTodos"),
			result: "src/hooks/useTodos.ts\nsrc/app/page.tsx\n",
			want:   Extraction{Files: []FileRef{surfaced("src/hooks/useTodos.ts"), surfaced("src/app/page.tsx")}, Query: "useTodos", Category: CodeSearch, Class: FileLevel},
		},
		{
			name: "grep -c counts name files only",
			tool: "Bash", rule: ruleBash,
			args:   bash("grep -rc import src"),
			result: "src/a.py:3\nsrc/b.py:0\n",
			want:   Extraction{Files: []FileRef{surfaced("src/a.py"), surfaced("src/b.py")}, Query: "import", Category: CodeSearch, Class: FileLevel},
		},
		{
			name: "rg --heading output attributes lines to the heading file",
			tool: "Bash", rule: ruleBash,
			args:   bash("rg -n --heading Open"),
			result: "pkg/os.go\n12:func Open() {}\n40:  Open()\n\npkg/io.go\n3:// Open\n",
			want: Extraction{
				Files:  []FileRef{hitRead("pkg/os.go"), hitRead("pkg/io.go")},
				Ranges: []LineRange{lines("pkg/os.go", 12, 12), lines("pkg/os.go", 40, 40), lines("pkg/io.go", 3, 3)},
				Query:  "Open", Category: CodeSearch, Class: FileLevel,
			},
		},
		{
			name: "git grep is a code search",
			tool: "Bash", rule: ruleBash,
			args:   bash("git grep -n TimeDelta -- src"),
			result: "src/marshmallow/fields.py:1443:class TimeDelta(Field):\n",
			want: Extraction{
				Files:  []FileRef{hitRead("src/marshmallow/fields.py")},
				Ranges: []LineRange{lines("src/marshmallow/fields.py", 1443, 1443)},
				Query:  "TimeDelta", Category: CodeSearch, Class: FileLevel,
			},
		},
		{
			name: "a grep with no match shows nothing",
			tool: "Bash", rule: ruleBash, isError: true,
			args: bash("grep -rn nothing_here ."),
			want: Extraction{Query: "nothing_here", Category: CodeSearch, Class: FileLevel},
		},

		// Listing.
		{
			name: "find surfaces the files it prints",
			tool: "Bash", rule: ruleBash,
			args:   bash("find . -name '*.go'"),
			result: "./a.go\n./pkg/b.go\n./pkg\n",
			want:   Extraction{Files: []FileRef{surfaced("a.go"), surfaced("pkg/b.go")}, Query: "*.go", Category: FileSearch, Class: FileLevel},
		},
		{
			name: "a real find over an absolute directory piped to head",
			tool: "Bash", rule: ruleBash, cwd: "/path/to/Demo",
			args:   bash(`find /path/to/Demo -type f -name "*.md" -o -name "*.json" -o -name "*.tsx" | head -20`),
			result: "/path/to/Demo/types/state.ts\n/path/to/Demo/components/TodoItem.tsx\n/path/to/Demo/todo-app/node_modules/.pnpm/safe-array-concat@1.1.3/node_modules/safe-array-concat/test/index.js",
			want: Extraction{
				Files:    []FileRef{surfaced("types/state.ts"), surfaced("components/TodoItem.tsx"), surfaced("todo-app/node_modules/.pnpm/safe-array-concat@1.1.3/node_modules/safe-array-concat/test/index.js")},
				Query:    "*.md",
				Category: FileSearch, Class: FileLevel,
			},
		},
		{
			name: "find with -exec grep reads the hits",
			tool: "Bash", rule: ruleBash,
			args:   bash(`find src -name "*.py" -exec grep -n "import os" {} +`),
			result: "src/a.py:1:import os\n",
			want:   Extraction{Files: []FileRef{hitRead("src/a.py")}, Ranges: []LineRange{lines("src/a.py", 1, 1)}, Query: "*.py", Category: FileSearch, Class: FileLevel},
		},
		{
			name: "find piped to xargs grep reads the hits",
			tool: "Bash", rule: ruleBash,
			args:   bash(`find . -name "*.ts" | xargs grep -n useTodos`),
			result: "./src/app/page.tsx:4:import { useTodos } from '@/hooks';\n",
			want:   Extraction{Files: []FileRef{hitRead("src/app/page.tsx")}, Ranges: []LineRange{lines("src/app/page.tsx", 4, 4)}, Query: "*.ts", Category: FileSearch, Class: FileLevel},
		},
		{
			name: "fd's pattern is the query",
			tool: "Bash", rule: ruleBash,
			args:   bash("fd -e go handler internal"),
			result: "internal/http/handler.go\n",
			want:   Extraction{Files: []FileRef{surfaced("internal/http/handler.go")}, Query: "handler", Category: FileSearch, Class: FileLevel},
		},
		{
			name: "ls -la lists regular files of the listed directory",
			tool: "Bash", rule: ruleBash, cwd: "/path/to/Demo",
			args:   bash("ls -la /path/to/Demo/todo-app/src/app"),
			result: "total 40\ndrwxr-xr-x 6 kaito staff   192  9  3 10:00 .\ndrwxr-xr-x 7 kaito staff   224  9  3 09:54 ..\n-rw-r--r-- 1 kaito staff 25931  9  3 09:53 favicon.ico\n-rw-r--r-- 1 kaito staff   488  9  3 09:53 globals.css\nlrwxr-xr-x 1 kaito staff     9  9  3 09:53 link.css -> globals.css\ndrwxr-xr-x 2 kaito staff    64  9  3 09:53 api",
			want: Extraction{
				Files:    []FileRef{surfaced("todo-app/src/app/favicon.ico"), surfaced("todo-app/src/app/globals.css")},
				Category: FileSearch, Class: FileLevel,
			},
		},
		{
			name: "ls -la keeps dotfiles and names with spaces and skips directories",
			tool: "Bash", rule: ruleBash,
			args:   bash("ls -la"),
			result: "total 8\ndrwxr-xr-x  8 kaito staff  256 Sep  7 18:25 .\ndrwxr-xr-x 12 kaito staff  384 Sep  7 18:52 .git\n-rw-r--r--  1 kaito staff 2162 Sep  7  2024 .gitignore\n-rw-r--r--  1 kaito staff 3314 Sep  3 10:02 My Notes.md\n",
			want:   Extraction{Files: []FileRef{surfaced(".gitignore"), surfaced("My Notes.md")}, Category: FileSearch, Class: FileLevel},
		},
		{
			name: "ls -l with ISO times",
			tool: "Bash", rule: ruleBash,
			args:   bash("ls -l --time-style=long-iso src"),
			result: "-rw-r--r-- 1 root root 120 2024-05-01 12:00 main.go\n",
			want:   Extraction{Files: []FileRef{surfaced("src/main.go")}, Category: FileSearch, Class: FileLevel},
		},
		{
			name: "plain ls output in columns",
			tool: "Bash", rule: ruleBash, cwd: "/testbed",
			args:   bash("ls -F"),
			result: "AUTHORS.rst\t    LICENSE\t RELEASING.md\t      performance/    setup.py\r\nCHANGELOG.rst\t    MANIFEST.in  azure-pipelines.yml  pyproject.toml  src/\r\n",
			want: Extraction{
				Files:    []FileRef{surfaced("AUTHORS.rst"), surfaced("LICENSE"), surfaced("RELEASING.md"), surfaced("setup.py"), surfaced("CHANGELOG.rst"), surfaced("MANIFEST.in"), surfaced("azure-pipelines.yml"), surfaced("pyproject.toml")},
				Category: FileSearch, Class: FileLevel,
			},
		},
		{
			name: "ls -R headers change the directory",
			tool: "Bash", rule: ruleBash,
			args:   bash("ls -lR pkg"),
			result: "pkg:\ntotal 4\n-rw-r--r-- 1 u g 1 Jan  1 00:00 a.go\n\npkg/sub:\ntotal 4\n-rw-r--r-- 1 u g 1 Jan  1 00:00 b.go\n",
			want:   Extraction{Files: []FileRef{surfaced("pkg/a.go"), surfaced("pkg/sub/b.go")}, Category: FileSearch, Class: FileLevel},
		},
		{
			name: "tree entries are joined to the directory drawn",
			tool: "Bash", rule: ruleBash, cwd: "/path/to/Demo",
			args:   bash("tree /path/to/Demo -I 'node_modules|.git' -L 3"),
			result: "lsd: 3: No such file or directory (os error 2).\n\n\nDemo\n├── CLAUDE.md\n├── components\n│   ├── AddTodo.tsx\n│   └── index.ts\n└── todo-app\n    ├── node_modules\n    │   └── x.js\n    └── next.config.ts\n\n4 directories, 5 files\n",
			want: Extraction{
				Files:    []FileRef{surfaced("CLAUDE.md"), surfaced("components/AddTodo.tsx"), surfaced("components/index.ts"), surfaced("todo-app/node_modules/x.js"), surfaced("todo-app/next.config.ts")},
				Category: FileSearch, Class: FileLevel,
			},
		},
		{
			name: "wc names its files without reading them",
			tool: "Bash", rule: ruleBash, cwd: "/root",
			args:   bash("wc -l /root/data/tess_lc.txt"),
			result: "16673 /root/data/tess_lc.txt",
			want:   Extraction{Files: []FileRef{argNamed("data/tess_lc.txt")}, Category: FileSearch, Class: FileLevel},
		},

		// History.
		{
			name: "git show of a revision's file reads the file",
			tool: "Bash", rule: ruleBash,
			args:   bash("git show HEAD:pkg/a.go"),
			result: "package a\n",
			want:   Extraction{Files: []FileRef{argRead("pkg/a.go")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "git show of a file on a branch with a slash in its name",
			tool: "Bash", rule: ruleBash,
			args:   bash("git show origin/main:src/a.py"),
			result: printed(3),
			want:   Extraction{Files: []FileRef{argRead("src/a.py")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "git log -L follows lines of its file",
			tool: "Bash", rule: ruleBash,
			args:   bash("git log -L 10,20:src/a.py"),
			result: "commit abc\nAuthor: A <a@b.c>\n\n    Fix\n\ndiff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -10,2 +10,2 @@\n-x = 1\n+x = 2\n y = 3\n",
			want:   Extraction{Files: []FileRef{argRead("src/a.py")}, Ranges: []LineRange{lines("src/a.py", 10, 11)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "plus options of less and tail are not files",
			tool: "Bash", rule: ruleBash,
			args:   bash("less +G a.log; tail +5 b.log"),
			result: "started\nstopped\n",
			want:   Extraction{Files: []FileRef{argRead("a.log"), argRead("b.log")}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "git show of a commit restricted to a path reads the path",
			tool: "Bash", rule: ruleBash,
			args:   bash("git show abc123 -- src/a.py"),
			result: "commit abc123\nAuthor: A <a@b.c>\n\n    Fix\n\ndiff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -4,2 +4,2 @@\n-x = 1\n+x = 2\n y = 3\n",
			want:   Extraction{Files: []FileRef{argRead("src/a.py")}, Ranges: []LineRange{lines("src/a.py", 4, 5)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "git diff output paths lose a/ and b/ but a real folder a survives, and hunks show new-side lines",
			tool: "Bash", rule: ruleBash,
			args:   bash("git diff"),
			result: "diff --git a/a/b.go b/a/b.go\nindex 1..2 100644\n--- a/a/b.go\n+++ b/a/b.go\n@@ -1 +1 @@\n-x\n+y\ndiff --git a/src/new.go b/src/new.go\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.go\n",
			want:   Extraction{Files: []FileRef{hitRead("a/b.go"), hitRead("src/new.go")}, Ranges: []LineRange{lines("a/b.go", 1, 1)}, Category: CommitSearch, Class: FileLevel},
		},
		{
			name: "git log -p of a path reads it",
			tool: "Bash", rule: ruleBash,
			args:   bash("git log -p -- src/a.py"),
			result: "commit abc\nAuthor: A <a@b.c>\n\n    Fix\n\ndiff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -4,2 +4,2 @@\n-x = 1\n+x = 2\n y = 3\n",
			want:   Extraction{Files: []FileRef{argRead("src/a.py")}, Ranges: []LineRange{lines("src/a.py", 4, 5)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "git log without paths searches history",
			tool: "Bash", rule: ruleBash,
			args:   bash("git log --oneline --grep=timedelta -n 5"),
			result: "abc123 Fix timedelta rounding\n",
			want:   Extraction{Query: "timedelta", Category: CommitSearch, Class: FileLevel},
		},
		{
			name: "git log --stat names changed files",
			tool: "Bash", rule: ruleBash,
			args:   bash("git log --stat -1"),
			result: "commit abc\nAuthor: A <a@b.c>\n\n    Fix\n\n src/a.py | 3 ++-\n 1 file changed\n",
			want:   Extraction{Files: []FileRef{surfaced("src/a.py")}, Category: CommitSearch, Class: FileLevel},
		},
		{
			name: "git blame with -L reads those lines",
			tool: "Bash", rule: ruleBash,
			args:   bash("git blame -L 10,20 src/a.py"),
			result: printed(11),
			want:   Extraction{Files: []FileRef{argRead("src/a.py")}, Ranges: []LineRange{lines("src/a.py", 10, 20)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "git -C changes the directory",
			tool: "Bash", rule: ruleBash,
			args:   bash("git -C sub ls-files"),
			result: "a.go\nb/c.go\n",
			want:   Extraction{Files: []FileRef{surfaced("sub/a.go"), surfaced("sub/b/c.go")}, Category: FileSearch, Class: FileLevel},
		},

		// Writing.
		{
			name: "a here-document written to a file is a write and its body is not parsed",
			tool: "Bash", rule: ruleBash,
			args: bash("cat > src/new.py <<'EOF'\nimport os\ncat /etc/passwd > leak.txt\nEOF"),
			want: Extraction{Files: []FileRef{argWrote("src/new.py")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "a redirect writes its target",
			tool: "execute_bash", rule: Rule{Category: OtherCategory, Class: OtherClass},
			args:   bash(`printf 'Hello, world!\n' > hello.txt && echo "Created $(pwd)/hello.txt" && echo "Size: $(wc -c < hello.txt) bytes" && printf 'Content: ' && cat hello.txt`),
			result: "Created /app/hello.txt\nSize: 14 bytes\nContent: Hello, world!",
			want:   Extraction{Files: []FileRef{{Path: "hello.txt", Read: true, Written: true}}, Category: FileWrite, Class: Edit},
		},
		{
			name: "2>&1 and /dev/null are not writes",
			tool: "Bash", rule: ruleBash,
			args:   bash("python3 -c \"import numpy\" 2>&1 > /dev/null; make test 2>/dev/null"),
			result: "All packages available",
			want:   Extraction{},
		},
		{
			name: "a bare redirection truncates its file",
			tool: "Bash", rule: ruleBash,
			args: bash("> out.log"),
			want: Extraction{Files: []FileRef{argWrote("out.log")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "a cat counted by grep -c shows no content",
			tool: "Bash", rule: ruleBash,
			args:   bash("cat a.py | grep -c import"),
			result: "3\n",
			want:   Extraction{Files: []FileRef{argNamed("a.py")}, Query: "import", Category: FileRead, Class: FileLevel},
		},
		{
			name: "appending to a log through stderr is a write",
			tool: "Bash", rule: ruleBash,
			args: bash("pytest 2>> errors.log"),
			want: Extraction{Files: []FileRef{argWrote("errors.log")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "sed -i edits in place",
			tool: "Bash", rule: ruleBash,
			args: bash("sed -i 's/old/new/g' src/a.py src/b.py"),
			want: Extraction{Files: []FileRef{argWrote("src/a.py"), argWrote("src/b.py")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "sed -i with a suffix still edits in place",
			tool: "Bash", rule: ruleBash,
			args: bash("sed -i.bak -e 's/x/y/' a.cfg"),
			want: Extraction{Files: []FileRef{argWrote("a.cfg")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "perl -pi edits in place",
			tool: "Bash", rule: ruleBash,
			args: bash("perl -pi -e 's/x/y/' a.pl"),
			want: Extraction{Files: []FileRef{argWrote("a.pl")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "tee writes and passes output on",
			tool: "Bash", rule: ruleBash,
			args: bash("echo x | tee -a notes.md"),
			want: Extraction{Files: []FileRef{argWrote("notes.md")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "cp writes its destination, mv also its source",
			tool: "Bash", rule: ruleBash,
			args: bash("cp a.go b.go && mv c.go pkg/"),
			want: Extraction{Files: []FileRef{argNamed("a.go"), argWrote("b.go"), argWrote("c.go"), argWrote("pkg/c.go")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "touch and rm write",
			tool: "Bash", rule: ruleBash,
			args: bash("touch new.txt && rm reproduce.py && rm -rf build"),
			want: Extraction{Files: []FileRef{argWrote("new.txt"), argWrote("reproduce.py")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "a read and a write in one line: the write decides the category",
			tool: "Bash", rule: ruleBash,
			args:   bash("echo '# x' >> notes.md && cat src/a.py"),
			result: printed(3),
			want:   Extraction{Files: []FileRef{argWrote("notes.md"), argRead("src/a.py")}, Ranges: []LineRange{lines("src/a.py", 1, 3)}, Category: FileWrite, Class: Edit},
		},
		{
			name: "apply_patch writes the files its patch names",
			tool: "shell", rule: Rule{Category: OtherCategory, Class: OtherClass},
			args: `{"command": ["apply_patch", "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: src/b.py\n+z\n*** End Patch\n"]}`,
			want: Extraction{Files: []FileRef{argWrote("src/a.py"), argWrote("src/b.py")}, Category: FileWrite, Class: Edit},
		},
		{
			name: "git apply of a here-document writes the patched files",
			tool: "Bash", rule: ruleBash,
			args: bash("git apply <<'EOF'\n--- a/a/x.go\n+++ b/a/x.go\n@@ -1 +1 @@\n-x\n+y\nEOF"),
			want: Extraction{Files: []FileRef{argWrote("a/x.go")}, Category: FileWrite, Class: Edit},
		},

		// Unrecognized commands and argument shapes.
		{
			name: "running a program names it without reading it",
			tool: "Bash", rule: ruleBash,
			args:   bash("python reproduce.py && npm run build"),
			result: "344\n",
			want:   Extraction{Files: []FileRef{argNamed("reproduce.py")}},
		},
		{
			name: "a Codex argv command runs its bash -lc script",
			tool: "exec_command", rule: Rule{Category: OtherCategory, Class: OtherClass},
			args:   `{"cmd": ["bash", "-lc", "sed -n '1,40p' src/main.rs"], "workdir": "/repo"}`,
			result: printed(40),
			want:   Extraction{Files: []FileRef{argRead("/repo/src/main.rs")}, Ranges: []LineRange{lines("/repo/src/main.rs", 1, 40)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a workdir under the session directory resolves relative paths",
			tool: "exec_command", rule: Rule{Category: OtherCategory, Class: OtherClass}, cwd: "/repo",
			args:   `{"cmd": "cat main.go", "workdir": "/repo/cmd"}`,
			result: printed(3),
			want:   Extraction{Files: []FileRef{argRead("cmd/main.go")}, Ranges: []LineRange{lines("cmd/main.go", 1, 3)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a plain argv is quoted word by word",
			tool: "shell", rule: Rule{Category: OtherCategory, Class: OtherClass},
			args:   `{"command": ["cat", "my file.go"]}`,
			result: printed(3),
			want:   Extraction{Files: []FileRef{argRead("my file.go")}, Ranges: []LineRange{lines("my file.go", 1, 3)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "Terminus keystrokes are a command",
			tool: "bash_command", rule: Rule{Category: OtherCategory, Class: OtherClass},
			args:   `{"keystrokes": "cat hello.txt\n", "duration": 0.1}`,
			result: "Hello, world!\n",
			want:   Extraction{Files: []FileRef{argRead("hello.txt")}, Ranges: []LineRange{lines("hello.txt", 1, 1)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "a command given as a bare JSON string",
			tool: "run", rule: Rule{Category: OtherCategory, Class: OtherClass},
			args:   `"head -n 3 a.txt"`,
			result: printed(3),
			want:   Extraction{Files: []FileRef{argRead("a.txt")}, Ranges: []LineRange{lines("a.txt", 1, 3)}, Category: FileRead, Class: FileLevel},
		},
		{
			name: "code of a python execute tool is not a shell script",
			tool: "execute", rule: Rule{Category: OtherCategory, Class: OtherClass, Shell: true},
			args: `{"code": "cat = open('a.py').read()", "language": "python"}`,
			want: Extraction{},
		},
		{
			name: "a shell-named tool without a command is read like any tool",
			tool: "run", rule: Rule{Category: FileRead, Class: FileLevel, Shell: true},
			args: `{"file_path": "a.py"}`,
			want: Extraction{Files: []FileRef{argRead("a.py")}},
		},
		{
			name: "a tool_use_error shell call did not run",
			tool: "Bash", rule: ruleBash,
			args:   bash("cat a.py"),
			result: "<tool_use_error>Permission denied</tool_use_error>",
			want:   Extraction{Files: []FileRef{argNamed("a.py")}, Category: FileRead, Class: FileLevel},
		},
	})
}

func FuzzShellCommand(f *testing.F) {
	for _, s := range shellFuzzSeeds {
		f.Add(s, "a.go:1:x\n./b.go\n-rw-r--r-- 1 u g 1 Jan  1 00:00 c.go\n")
	}
	f.Fuzz(func(t *testing.T, cmd, result string) {
		_ = parseShell(cmd)
		b, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			return
		}
		n := PathNormalizer{CWD: "/testbed"}
		e := Extract(&trace.ToolCall{Name: "Bash", Arguments: b, Result: result}, ruleBash, n)
		checkInvariants(t, e, n)
	})
}

// pathologicalCommands and pathologicalResults are generated inputs shaped
// to trigger quadratic work (growing directories, deep nesting, hundreds of
// thousands of substitutions). Before the caps, a chain of 20,000 cd's took
// 30 seconds; BenchmarkExtractPathological measures them now.
func pathologicalInputs() (commands, results map[string]string) {
	const n = 200000
	commands = map[string]string{
		"unclosed substitutions":      strings.Repeat("$(", n),
		"many substitutions":          strings.Repeat("$(a)", n),
		"unclosed backticks":          strings.Repeat("`$(", n),
		"many here-documents":         strings.Repeat("cat <<a <<b <<c\n", n/10),
		"an unterminated here-doc":    "cat <<EOF\n" + strings.Repeat("x\n", n),
		"a long pipeline":             strings.Repeat("cat a.go | ", n/10),
		"a chain of cd's":             strings.Repeat("cd a && ", n/10) + "cat b.go",
		"alternating quotes":          strings.Repeat(`'"`, n),
		"unclosed arithmetic":         strings.Repeat("$((", n),
		"unclosed parameter braces":   strings.Repeat("${", n),
		"find with many -exec":        "find " + strings.Repeat("-exec ", n/10),
		"many operands":               "cat " + strings.Repeat("a.go ", n/5),
		"nested xargs":                strings.Repeat("xargs ", n/10),
		"process substitutions":       strings.Repeat("<(", n),
		"many redirections":           strings.Repeat("> a ", n/5),
		"many sed ranges":             "sed -n '" + strings.Repeat("1,2p;", n/5) + "' a",
		"a long dot-dot operand":      "rm " + strings.Repeat("a/../", n/5) + "x",
		"nested bash -c":              strings.Repeat("bash -c '", 50) + "cat a",
		"a deep cd with dot elements": strings.Repeat("cd ./a/../b && ", n/10) + "cat c.go",
	}
	results = map[string]string{
		"a deep tree line":        strings.Repeat("│   ", n/10) + "├── x.go\n",
		"many tree lines":         strings.Repeat("│   ├── a\n", n/10),
		"a long dashed line":      strings.Repeat("a-", n) + "\n",
		"a deep LS line":          strings.Repeat("  ", n/10) + "- x\n",
		"unclosed JSON arrays":    strings.Repeat("[", n),
		"many grep lines":         strings.Repeat("a.go:1:x\n", n),
		"many ls lines":           strings.Repeat("-rw-r--r-- 1 u g 1 Jan  1 00:00 a b c d e f g h i j\n", n/10),
		"many numbered lines":     strings.Repeat("     1→x\n", n),
		"many File/Lines headers": strings.Repeat("File: a.go\nLines: 1-2\n", n/10),
	}
	return commands, results
}

// TestExtractPathologicalInputs checks that the generated worst cases are
// handled within the caps and yield well-formed extractions.
func TestExtractPathologicalInputs(t *testing.T) {
	t.Parallel()
	commands, results := pathologicalInputs()
	check := func(t *testing.T, tool string, rule Rule, args, result string) {
		t.Helper()
		e := Extract(&trace.ToolCall{Name: tool, Arguments: json.RawMessage(args), Result: result}, rule, PathNormalizer{CWD: "/testbed"})
		checkInvariants(t, e, PathNormalizer{CWD: "/testbed"})
	}
	for name, cmd := range commands {
		t.Run("command: "+name, func(t *testing.T) {
			t.Parallel()
			check(t, "Bash", ruleBash, bash(cmd), "x")
		})
	}
	for name, result := range results {
		t.Run("result: "+name, func(t *testing.T) {
			t.Parallel()
			check(t, "Grep", ruleGrep, `{"pattern": "x"}`, result)
			check(t, "Read", ruleRead, `{"file_path": "a.go"}`, result)
			check(t, "Bash", ruleBash, bash("grep -rn x . ; tree ; ls -la"), result)
		})
	}
}

// BenchmarkExtractPathological reports the time of each generated worst
// case; run with -bench Pathological to see a regression to quadratic work.
func BenchmarkExtractPathological(b *testing.B) {
	commands, results := pathologicalInputs()
	n := PathNormalizer{CWD: "/testbed"}
	for name, cmd := range commands {
		c := &trace.ToolCall{Name: "Bash", Arguments: json.RawMessage(bash(cmd)), Result: "x"}
		b.Run("command/"+name, func(b *testing.B) {
			for b.Loop() {
				Extract(c, ruleBash, n)
			}
		})
	}
	for name, result := range results {
		c := &trace.ToolCall{Name: "Grep", Arguments: json.RawMessage(`{"pattern": "x"}`), Result: result}
		b.Run("result/"+name, func(b *testing.B) {
			for b.Loop() {
				Extract(c, ruleGrep, n)
			}
		})
	}
}
