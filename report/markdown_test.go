package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./report/ -update")
	assert.Equal(t, string(want), string(got), "differs from %s; run go test ./report/ -update if the change is intended", path)
}

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"a pipe is escaped so it cannot end the cell", "src/a|b.go", `src/a\|b.go`},
		{"a newline becomes a line break tag", "grep\nsearch", "grep<br>search"},
		{"a CRLF becomes one line break tag", "a\r\nb", "a<br>b"},
		{"a lone CR becomes a line break tag", "a\rb", "a<br>b"},
		{"a tab becomes a space", "a\tb", "a b"},
		{"an escape sequence shows escaped, not obeyed", "a\x1b]0;x\ab", `a\\u001b\]0;x\\ab`},
		{"a C1 control shows escaped", "a\u009bb", `a\\u009bb`},
		{"backticks cannot open a code span", "run `rm -rf`", "run \\`rm -rf\\`"},
		{"a backslash stays a backslash", `C:\repo`, `C:\\repo`},
		{"asterisks cannot make emphasis", "*bold*", `\*bold\*`},
		{"brackets cannot make a link", "[x](y)", `\[x\](y)`},
		{"angle brackets cannot make HTML", "<script>", `\<script>`},
		{"dollars cannot make math", "$x$", `\$x\$`},
		{"tildes cannot strike through", "~~x~~", `\~\~x\~\~`},
		{"underscores inside a word stay as written", "mcp__sourcegraph__keyword_search", "mcp__sourcegraph__keyword_search"},
		{"underscores at a word edge are escaped", "_private __init__", `\_private \_\_init\_\_`},
		{"an ampersand that could start an entity is escaped", "a &amp; b & c", `a \&amp; b & c`},
		{"plain text is unchanged", "Recall@5 (TREC)", "Recall@5 (TREC)"},
		{"non-ASCII letters count as word characters", "é_é", "é_é"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Escape(tt.in))
		})
	}
}

func TestCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"a path becomes a code span", "pkg/auth/token.go", "`pkg/auth/token.go`"},
		{"a pipe inside code is escaped for the table", "a|b", "`a\\|b`"},
		{"a backtick inside needs a longer fence", "a`b", "``a`b``"},
		{"a leading backtick is padded with spaces", "`x", "`` `x ``"},
		{"each line becomes its own span", "grep\nsearch", "`grep`<br>`search`"},
		{"empty text gives nothing", "", ""},
		{"control characters show escaped in code", "a\x1b[2J\u009b", "`a\\u001b[2J\\u009b`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Code(tt.in))
		})
	}
}

func TestFormatValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		metric string
		v      float64
		want   string
	}{
		{"a bounded figure has two decimals", "recall@5", 0.625, "0.62"},
		{"a read-view figure is bounded too", "read.mrr", 1, "1.00"},
		{"whole steps are integers", "ttfr_steps", 3, "3"},
		{"a mean of steps has one decimal", "ttfr_steps", 3.25, "3.2"},
		{"the reward has two decimals", RewardName, 1, "1.00"},
		{"a tiny negative is not shown as -0.00", "recall@5", -1e-12, "0.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, FormatValue(tt.metric, tt.v))
		})
	}
}

func TestFormatDeltaSigns(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "+0.08", FormatDelta("recall@5", 0.54, 0.62))
	assert.Equal(t, "-0.08", FormatDelta("recall@5", 0.62, 0.54))
	assert.Equal(t, "±0.00", FormatDelta("recall@5", 0.5, 0.5))
	assert.Equal(t, "-2", FormatDelta("steps_to_target", 6, 4))
}

func TestTablesStayOneRowPerLineWithHostileCells(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteExpectationsTable(&b, []ExpectationRow{{
		Scenario: "a|b", Type: "tools", Description: "x\ny\r\nz", Status: Fail,
		Measured: "`", Threshold: "|", Evidence: []string{"p|q", "l1\nl2"},
	}}))
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	require.Len(t, lines, 3, "header, separator and one row:\n%s", b.String())
	// An unescaped pipe would add a column: every line has the same count.
	count := func(s string) int { return strings.Count(s, "|") - strings.Count(s, `\|`) }
	assert.Equal(t, count(lines[0]), count(lines[2]))
}
