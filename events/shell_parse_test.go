package events

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Agents write broken shell; these scripts are rejected by the parser and
// read as far as they go.
func TestParseShellRecovers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an unterminated double quote runs to the end", `grep -n "foo bar src/a.go`, "grep -n foo bar src/a.go"},
		{"an unterminated substitution runs to the end", `echo "x $(cat a.go`, "cat a.go ; echo x $"},
		{"an unterminated here-document runs to the end", "cat > f.py <<EOF\nimport os\nprint(1)", "cat >f.py <<EOF{import os\nprint(1)\n}"},
		{"a missing fi is supplied", "if [ -f a.py ]; then cat a.py", "[* -f a.py ] ; cat a.py"},
		{"a pipe at the end is dropped", "cat a.go |", "cat a.go"},
		{"a stray parenthesis cuts the script there", "echo hi) ; cat b.go", "echo hi ; cat b.go"},
		{"a stray fi is skipped", "cat a.go; fi; cat b.go", "cat a.go ; cat b.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, renderPipelines(parseShell(tt.in)))
		})
	}
}

func TestParseShellCompoundCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"a group's output redirection is a command of its own", "{ cat a; cat b; } > out.txt", "cat a ; cat b ; >out.txt"},
		{"a subshell in a pipeline gives its statements", "(cat a.go) | head -5", "cat a.go ; head -5"},
		{"if, while, for and case give the commands inside them", "if true; then cat a; fi; while read l; do echo $l; done; for f in $(ls); do cat $f; done; case $x in a) cat b;; esac",
			"true ; cat a ; read l ; echo $ ; ls ; cat $ ; cat b"},
		{"a function body is read", "f() { cat a.go; }; f", "cat a.go ; f"},
		{"time and ! wrap a pipeline", "time cat a.go | head -3; ! grep -q x b.go", "cat a.go | head -3 ; grep -q x b.go"},
		{"declarations keep their substitutions", "export X=$(cat a.txt)", "cat a.txt ; export X=$"},
		{"an unquoted here-document's substitutions are not run", "cat <<EOF\n$(cat secret.txt)\nEOF", "cat <<EOF{$(cat secret.txt)\n}"},
		{"an extended glob is a pattern", "cat @(a|b).go", "cat @(a|b).go*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, renderPipelines(parseShell(tt.in)))
		})
	}
}

// The parser recurses once per level of nesting; scripts are handed to it
// in pieces of at most maxShellOpeners openers so that its stack stays
// small whatever the input.
func TestParseShellBoundsNesting(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("(", 100000) + "cat a.go" + strings.Repeat(")", 100000)
	assert.Empty(t, parseShell(deep), "a line nested deeper than the cap is skipped")
	assert.Equal(t, "cat a.go ; cat b.go", renderPipelines(parseShell(deep+"\ncat a.go\n"+deep+"\ncat b.go")),
		"the lines around it are read")
	big := "cat > app.js <<'EOF'\n" + strings.Repeat("f({a: [1]});\n", 3000) + "EOF\ncat a.go"
	got := parseShell(big)
	if assert.Len(t, got, 2, "a here-document of many brackets is cut into pieces") {
		assert.Equal(t, "cat a.go", renderPipelines(got[len(got)-1:]))
	}
}
