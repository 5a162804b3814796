package events

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestPlainShell(t *testing.T) {
	t.Parallel()
	w := func(text string) shellWord { return shellWord{text: text} }
	cmd := func(words ...shellWord) simpleCommand { return simpleCommand{words: words} }
	pipe := func(cmds ...simpleCommand) shellPipeline { return shellPipeline{cmds: cmds} }
	tests := []struct {
		name string
		src  string
		want []shellPipeline
		ok   bool
	}{
		{"a command with options", "ls -la src/", []shellPipeline{pipe(cmd(w("ls"), w("-la"), w("src/")))}, true},
		{"blanks around words", " \tls  -la\t", []shellPipeline{pipe(cmd(w("ls"), w("-la")))}, true},
		{"&& and || start pipelines", "cd app && npx tsc || echo no",
			[]shellPipeline{pipe(cmd(w("cd"), w("app"))), pipe(cmd(w("npx"), w("tsc"))), pipe(cmd(w("echo"), w("no")))}, true},
		{"| joins commands", "find . -name \"*.ts\" | grep -v test",
			[]shellPipeline{pipe(cmd(w("find"), w("."), w("-name"), w("*.ts")), cmd(w("grep"), w("-v"), w("test")))}, true},
		{"| without blanks", "ls|wc", []shellPipeline{pipe(cmd(w("ls")), cmd(w("wc")))}, true},
		{"; ends a pipeline, and may end the line", "ls a; ls b;",
			[]shellPipeline{pipe(cmd(w("ls"), w("a"))), pipe(cmd(w("ls"), w("b")))}, true},
		{"an unquoted * or ? marks a glob", "rm *.o a?c",
			[]shellPipeline{pipe(cmd(w("rm"), shellWord{text: "*.o", glob: true}, shellWord{text: "a?c", glob: true}))}, true},
		{"a quoted * is no glob", "grep '*' x", []shellPipeline{pipe(cmd(w("grep"), w("*"), w("x")))}, true},
		{"parts of a word are joined", `find --name="a b"'c'd`, []shellPipeline{pipe(cmd(w("find"), w("--name=a bcd")))}, true},
		{"a word of parts ends at a blank", "echo \"a\"b\tc 'd'e f", []shellPipeline{pipe(cmd(w("echo"), w("ab"), w("c"), w("de"), w("f")))}, true},
		{"a word of parts ends at an operator", "echo \"a\"b|wc;ls 'c'd&&ls 'e'f||ls",
			[]shellPipeline{pipe(cmd(w("echo"), w("ab")), cmd(w("wc"))), pipe(cmd(w("ls"), w("cd"))), pipe(cmd(w("ls"), w("ef"))), pipe(cmd(w("ls")))}, true},
		{"a redirection right after a word of parts is left to the parser", "sort 'a'b<in", nil, false},
		{"a new line after a word of parts is left to the parser", "echo 'a'b\nls", nil, false},
		{"every plain character, the first and last of each range", "echo azAZ09_./,:+@%=-",
			[]shellPipeline{pipe(cmd(w("echo"), w("azAZ09_./,:+@%=-")))}, true},
		{"a quoted tilde is a character", "ls '~/a' \"~\"", []shellPipeline{pipe(cmd(w("ls"), w("~/a"), w("~")))}, true},
		{"empty quotes are an empty word", `echo "" ''`, []shellPipeline{pipe(cmd(w("echo"), w(""), w("")))}, true},
		{"= after the command name is a word", "make CC=gcc", []shellPipeline{pipe(cmd(w("make"), w("CC=gcc")))}, true},
		{"a keyword after the command name is a word", "echo if done", []shellPipeline{pipe(cmd(w("echo"), w("if"), w("done")))}, true},
		{"an empty line", "  ", nil, true},
		{"a line as long as allowed", "echo " + strings.Repeat("a", maxPlainShellBytes-5),
			[]shellPipeline{pipe(cmd(w("echo"), w(strings.Repeat("a", maxPlainShellBytes-5))))}, true},
		{"a here-document's body is not counted in the line's length", "cat << 'EOF'\n" + strings.Repeat("a", maxPlainShellBytes) + "\nEOF",
			[]shellPipeline{{cmds: []simpleCommand{{words: []shellWord{w("cat")}, redirs: []*shellRedirect{
				{fd: -1, op: "<<", target: w("EOF"), body: strings.Repeat("a", maxPlainShellBytes) + "\n"}}}}}}, true},
		{"redirections to words", "sort < in.txt > out.txt >> log",
			[]shellPipeline{{cmds: []simpleCommand{{words: []shellWord{w("sort")}, redirs: []*shellRedirect{
				{fd: -1, op: "<", target: w("in.txt")}, {fd: -1, op: ">", target: w("out.txt")}, {fd: -1, op: ">>", target: w("log")}}}}}}, true},
		{"a here-document's body may hold empty lines, and a tab may follow its delimiter", "cat << 'EOF'\t\na\n\nb\nEOF",
			[]shellPipeline{{cmds: []simpleCommand{{words: []shellWord{w("cat")}, redirs: []*shellRedirect{
				{fd: -1, op: "<<", target: w("EOF"), body: "a\n\nb\n"}}}}}}, true},
		{"blanks around a redirection may be tabs", "ls\t>\tout",
			[]shellPipeline{{cmds: []simpleCommand{{words: []shellWord{w("ls")}, redirs: []*shellRedirect{{fd: -1, op: ">", target: w("out")}}}}}}, true},
		{"a here-document with a quoted delimiter", "cat > a.ts << 'EOF'\nconst a = `${b}`;\n\tEOF\nEOF\n",
			[]shellPipeline{{cmds: []simpleCommand{{words: []shellWord{w("cat")}, redirs: []*shellRedirect{
				{fd: -1, op: ">", target: w("a.ts")}, {fd: -1, op: "<<", target: w("EOF"), body: "const a = `${b}`;\n\tEOF\n"}}}}}}, true},
		{"a here-document before a redirection", "cat <<\"END\" >a.md\nEND",
			[]shellPipeline{{cmds: []simpleCommand{{words: []shellWord{w("cat")}, redirs: []*shellRedirect{
				{fd: -1, op: "<<", target: w("END")}, {fd: -1, op: ">", target: w("a.md")}}}}}}, true},

		{"an assignment is left to the parser", "FOO=1 make", nil, false},
		{"a keyword is left to the parser", "if true; then ls; fi", nil, false},
		{"a keyword after | is left to the parser", "ls | while read x", nil, false},
		{"a declaration is left to the parser", "export PATH", nil, false},
		{"let is left to the parser", "let x", nil, false},
		{"a redirection alone is left to the parser", "> out", nil, false},
		{"a file descriptor is left to the parser", "ls 2> out", nil, false},
		{"a redirection without blanks before is left to the parser", "ls>out", nil, false},
		{"a duplication is left to the parser", "ls >&2", nil, false},
		{"a here-string is left to the parser", "cat <<< x", nil, false},
		{"a here-document with tabs stripped is left to the parser", "cat <<- 'EOF'\nx\nEOF", nil, false},
		{"an unquoted delimiter is left to the parser", "cat << EOF\n$x\nEOF", nil, false},
		{"an empty delimiter is left to the parser", "cat << ''\nx\n\n", nil, false},
		{"a delimiter of other characters is left to the parser", "cat << 'E F'\nx\nE F", nil, false},
		{"a delimiter with more after its quote is left to the parser", "cat << 'EOF'x\nEOF\nEOFx", nil, false},
		{"an unclosed here-document is left to the parser", "cat << 'EOF'\nx\n", nil, false},
		{"a here-document without a body is left to the parser", "cat << 'EOF'", nil, false},
		{"two here-documents are left to the parser", "cat << 'A' << 'B'\nA\nB", nil, false},
		{"a command after a here-document is left to the parser", "cat << 'EOF'\nx\nEOF\nls", nil, false},
		{"a pipe after a here-document is left to the parser", "cat << 'EOF' | wc\nx\nEOF", nil, false},
		{"a carriage return in a body is left to the parser", "cat << 'EOF'\nx\r\nEOF", nil, false},
		{"a redirection without a word is left to the parser", "ls >", nil, false},
		{"a redirection to an operator is left to the parser", "ls > ; ls", nil, false},
		{"a background job is left to the parser", "sleep 1 &", nil, false},
		{"|& is left to the parser", "make |& tee log", nil, false},
		{"a newline is left to the parser", "ls\nls", nil, false},
		{"an expansion is left to the parser", "echo $HOME", nil, false},
		{"an expansion in double quotes is left to the parser", `echo "$HOME"`, nil, false},
		{"an escape is left to the parser", `echo a\ b`, nil, false},
		{"an escape in double quotes is left to the parser", `echo "a\"b"`, nil, false},
		{"a backquote is left to the parser", "echo \"`ls`\"", nil, false},
		{"an unclosed quote is left to the parser", `echo "a`, nil, false},
		{"a tab in quotes is left to the parser", "echo 'a\tb'", nil, false},
		{"non-ASCII is left to the parser", "echo é", nil, false},
		{"brackets are left to the parser", "ls [ab]", nil, false},
		{"a tilde is left to the parser", "ls ~/x", nil, false},
		{"a comment is left to the parser", "ls # all", nil, false},
		{"a trailing && is left to the parser", "ls &&", nil, false},
		{"a trailing | is left to the parser", "ls |", nil, false},
		{"a leading | is left to the parser", "| ls", nil, false},
		{"a doubled ; is left to the parser", "ls;; ls", nil, false},
		{"a script past the parser's limit is left to the parser", "cat << 'EOF'\n" + strings.Repeat("a\n", maxShellBytes/2) + "EOF", nil, false},
		{"a long line is left to the parser", "echo " + strings.Repeat("a", maxPlainShellBytes-4), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := plainShell(tt.src)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("plainShell(%q) = %+v, %v; want %+v, %v", tt.src, got, ok, tt.want, tt.ok)
			}
			if ok {
				checkPlainShell(t, tt.src)
			}
		})
	}
}

// checkPlainShell checks that plainShell reads src as the parser does.
func checkPlainShell(t *testing.T, src string) {
	t.Helper()
	got, ok := plainShell(src)
	if !ok {
		return
	}
	want := parseShellTree(src)
	if !reflect.DeepEqual(shellTexts(got), shellTexts(want)) {
		t.Errorf("plainShell(%q) = %v, parser: %v", src, shellTexts(got), shellTexts(want))
	}
}

// shellTexts writes pipelines out for comparison: the capacity of a word
// list and an empty list against none do not matter.
func shellTexts(pls []shellPipeline) []string {
	var out []string
	for _, pl := range pls {
		var b strings.Builder
		for i, c := range pl.cmds {
			if i > 0 {
				b.WriteString(" |")
			}
			for _, w := range c.words {
				b.WriteString(" " + strconvQuote(w.text))
				if w.glob {
					b.WriteString("(glob)")
				}
				if w.dynamic {
					b.WriteString("(dynamic)")
				}
			}
			for _, r := range c.redirs {
				fmt.Fprintf(&b, " %d%s%s", r.fd, r.op, strconvQuote(r.target.text))
				if r.target.glob || r.target.dynamic {
					fmt.Fprintf(&b, "(%v,%v)", r.target.glob, r.target.dynamic)
				}
				if r.body != "" {
					b.WriteString(" body " + strconvQuote(r.body))
				}
			}
		}
		out = append(out, b.String())
	}
	return out
}

func strconvQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// TestPlainShellAgreesOnSamples reads every shell command of the samples
// and of the fuzz corpus both ways.
func TestPlainShellAgreesOnSamples(t *testing.T) {
	t.Parallel()
	cmds := fuzzCorpusCommands(t)
	plain := 0
	if _, err := os.Stat(samplesDir); err == nil {
		for _, calls := range sampleShellCalls(t) {
			cmds = append(cmds, shellScripts(calls)...)
		}
	}
	for _, c := range cmds {
		if _, ok := plainShell(c); ok {
			plain++
		}
		checkPlainShell(t, c)
	}
	if plain == 0 {
		t.Errorf("none of %d commands read without the parser", len(cmds))
	}
}

func FuzzPlainShell(f *testing.F) {
	for _, s := range shellFuzzSeeds {
		f.Add(s)
	}
	for _, s := range []string{"ls -la", `find . -name "*.go" | xargs grep -l x`, "cd a && make; ls|wc -l", `a'b'"c"`,
		"cat > a.go << 'EOF'\npackage a\nEOF\n", "cat <<\"X\" >> b < c\n\nX"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkPlainShell(t, src)
	})
}
