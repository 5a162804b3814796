package groundtruth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The plain-list reader accepts only what it reads as the YAML parser
// does; everything else goes to the parser.
func TestThePlainListReaderAgreesWithTheYAMLParser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		fast      bool
	}{
		{"a list of paths", "- a.go\n- pkg/b.go\n- a.go\n", true},
		{"no newline at the end", "- a.go\n- b.go", true},
		{"CRLF line ends", "- a.go\r\n- b.go\r\n", true},
		{"comments and blank lines", "# truth\n\n- a.go # the fix\n  # more\n- b.go\n", true},
		{"files and expected edits", "files:\n  - a.go\n  - b.go\nexpected_edit_files:\n  - a.go\n", true},
		{"items at the key's indent", "files:\n- a.go\n- b.go\n", true},
		{"a key with a comment", "files: # the files\n  - a.go\n", true},
		{"a key with no items is null", "files:\nexpected_edit_files:\n  - a.go\n", true},
		{"quoted paths", "- 'it''s.go'\n- \"dir/b c.go\"\n- 'x #y.go' # c\n", true},
		{"a hash inside a plain path, which the parser would quote", "- a#b.go\n", false},
		{"a number to the parser", "- +-0\n", false},
		{"a colon inside a plain path", "- a:b.go\n", true},
		{"a path that looks like a word", "- yes.go\n- nullable/x.go\n", true},
		{"paths that start with a digit", "- 2fa/setup.go\n- 0x/main.go\n- 9lives.py\n", true},
		{"several expected edits", "files:\n  - a.go\nexpected_edit_files:\n  - b.go\n  - c.go\n", true},
		{"a number that starts with 9", "- 9\n", false},
		{"a number that starts with 0", "- 0\n", false},
		{"a time that starts with 9", "- 9:30\n", false},
		{"items that go deeper under a key", "files:\n- a.go\n  - b.go\n", false},
		{"a quoted apostrophe", "- ''''\n", true},
		{"a path beyond ASCII", "- docs/café.md\n", true},
		{"a five-letter boolean", "- False\n", false},
		{"a signed number", "- +1\n", false},
		{"a number that starts with a dot", "- .5\n", false},
		{"a sexagesimal that starts with 9", "- 9:2:3\n", false},
		{"a sexagesimal that starts with 0", "- 0:2:3\n", false},
		{"a path that starts with a dash", "- -x.go\n", false},
		{"an escape first in a double-quoted path", "- \"\\tb.go\"\n", false},
		{"a control character", "- a\x01.go\n", false},
		{"a DEL", "- a\x7f.go\n", false},
		{"a C1 control", "- a\u0085.go\n", false},
		{"a line separator", "- a\u2028.go\n", false},
		{"a byte-order mark inside", "- a\ufeff.go\n", false},
		{"invalid UTF-8", "- a\xff.go\n", false},
		{"a replacement character", "- a\ufffd.go\n", false},

		{"a number", "- 12\n", false},
		{"a float", "- 1e5\n", false},
		{"a hexadecimal number", "- 0x1F\n", false},
		{"an octal number", "- 0o17\n", false},
		{"an underscored number", "- 1_000\n", false},
		{"underscores inside a base prefix", "- 0_x0\n", false},
		{"infinity", "- .inf\n", false},
		{"not a number", "- .NaN\n", false},
		{"a boolean", "- true\n", false},
		{"a YAML 1.1 boolean", "- yes\n", false},
		{"null", "- null\n", false},
		{"a tilde", "- ~\n", false},
		{"a date", "- 2024-01-02\n", false},
		{"a time", "- 12:30:00\n", false},
		{"an empty item", "-\n", false},
		{"an empty quoted path", "- ''\n", false},
		{"escapes in a double-quoted path", "- \"a\\tb.go\"\n", false},
		{"an unterminated quote", "- 'a.go\n", false},
		{"text after a quote", "- 'a'b\n", false},
		{"a flow list", "[a.go, b.go]\n", false},
		{"a graded entry", "- {path: a.go, grade: 2}\n", false},
		{"a mapping entry", "- path: a.go\n", false},
		{"another key", "files:\n  - a.go\nsymbols:\n  - {file: a.go, symbol: F}\n", false},
		{"an unknown key holding paths", "files:\n  - a.go\ntests:\n  - a_test.go\n", false},
		{"a key given twice", "files:\n  - a.go\nfiles:\n  - b.go\n", false},
		{"a quoted key", "\"files\":\n  - a.go\n", false},
		{"a key with a value", "files: a.go\n", false},
		{"a key glued to a hash", "files:#x\n  - a.go\n", false},
		{"an item before any key in a mapping", "files:\n  - a.go\n- b.go\n", false},
		{"a key after a list", "- a.go\nfiles:\n", false},
		{"items at two indents", "files:\n  - a.go\n    - b.go\n", false},
		{"an indented top list", "  - a.go\n  - b.go\n", false},
		{"a tab", "- a.go\t\n", false},
		{"a lone carriage return", "- a\r.go\n", false},
		{"a continued plain path", "- a.go\n  b.go\n", false},
		{"an anchor", "- &x a.go\n", false},
		{"a tag", "- !!str 12\n", false},
		{"a dash without a space", "-a.go\n", false},
		{"a document marker", "---\n- a.go\n", false},
		{"only comments", "# nothing\n", false},
		{"a comma in a plain path", "- a,b.go\n", false},
		{"a colon at the end", "- a.go:\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := []byte(tt.doc)
			got, ok := yamlPaths(data)
			require.Equal(t, tt.fast, ok)
			if !ok {
				return
			}
			want, err := decodeYAML("gt.yaml", data, []byte(strings.TrimSpace(tt.doc)))
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// Whatever the plain-list reader accepts, the YAML parser accepts and
// reads the same way.
func FuzzPlainListAgreesWithTheYAMLParser(f *testing.F) {
	for _, s := range []string{
		"- a.go\n- b.go\n", "files:\n  - a.go\nexpected_edit_files:\n- b.go\n",
		"- 'it''s'\n", "- \"x y\" # c\n", "- a#b\n", "- +-0\n", "- 1.5\n", "- 0x10\n", "- yes\n",
		"- 2024-01-02\n", "- a: b\n", "files:\n", "- a.go # c\n\n# d\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		data := []byte(doc)
		got, ok := yamlPaths(data)
		if !ok {
			return
		}
		trimmed := []byte(strings.TrimSpace(doc))
		if len(trimmed) == 0 {
			t.Fatalf("accepted an empty document %q", doc)
		}
		want, err := decodeYAML("gt.yaml", data, trimmed)
		if err != nil {
			t.Fatalf("the plain reader accepted %q, the parser refused it: %v", doc, err)
		}
		assert.Equal(t, want, got, "%q", doc)
	})
}

// A list that starts with a comment is a list, whichever reader takes it.
func TestAListThatStartsWithACommentIsAList(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		"# the fix\n- a.go\n",
		"# the fix\n- {path: a.go, grade: 2}\n",
		"# a\n\n  # b\n[a.go]\n",
	} {
		truth, err := Parse("gt.yaml", []byte(doc))
		require.NoError(t, err, doc)
		assert.Equal(t, []string{"a.go"}, truth.Paths(), doc)
	}
}
