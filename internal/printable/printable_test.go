package printable

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestLineEscapesEveryControlCharacter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain text is unchanged", `fix/auth: a "quoted" \ path`, `fix/auth: a "quoted" \ path`},
		{"non-ASCII letters are unchanged", "café ünïcode 日本", "café ünïcode 日本"},
		{"an OSC title sequence is shown, not obeyed", "x\x1b]0;pwned\ay", `x\u001b]0;pwned\ay`},
		{"a CSI clear screen", "\x1b[2J", `\u001b[2J`},
		{"carriage return, newline and tab", "a\rb\nc\td", `a\rb\nc\td`},
		{"NUL and DEL", "a\x00b\x7f", `a\u0000b\u007f`},
		{"a C1 control (CSI as one character)", "a\u009b31mb", `a\u009b31mb`},
		{"a bidi override", "a\u202eb", `a\u202eb`},
		{"a line separator", "a\u2028b", `a\u2028b`},
		{"a byte that is not UTF-8", "a\xffb", `a\xffb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Line(tt.in))
		})
	}
}

func TestTextKeepsNewlinesAndTabs(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a\n\tb\\u001b[31m\\r", Text("a\n\tb\x1b[31m\r"))
	assert.Equal(t, "two\nlines", Text("two\nlines"))
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "a\x1bb", "\u009b", "\xff\xfe", "a\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		for _, r := range got {
			if unsafe(r, false) {
				t.Fatalf("Line(%q) = %q still holds %U", s, got, r)
			}
		}
		if !utf8.ValidString(got) {
			t.Fatalf("Line(%q) = %q is not UTF-8", s, got)
		}
		if firstUnsafe(s, false) == len(s) && got != s {
			t.Fatalf("Line(%q) = %q changed safe text", s, got)
		}
	})
}

func TestWriterEscapesEachWriteAndReportsItsLength(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b)
	n, err := w.Write([]byte("warning: \x1b]0;x\a\n"))
	assert.NoError(t, err)
	assert.Equal(t, len("warning: \x1b]0;x\a\n"), n)
	assert.Equal(t, "warning: \\u001b]0;x\\a\n", b.String())
	assert.Same(t, &b, w.Unwrap())
}

func TestTextKeepsAJSONDocumentValidAndItsMeaning(t *testing.T) {
	t.Parallel()
	in := map[string]string{"name": "a\x1b\u009b\u202e\x7f\u2028b"}
	raw, err := json.Marshal(in)
	assert.NoError(t, err)
	var out map[string]string
	assert.NoError(t, json.Unmarshal([]byte(Text(string(raw))), &out))
	assert.Equal(t, in, out)
}

func TestWriterJoinsACharacterSplitBetweenWrites(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b)
	text := []byte("q日本\u009bx\n")
	for i := range text {
		_, err := w.Write(text[i : i+1])
		assert.NoError(t, err)
	}
	assert.Equal(t, "q日本\\u009bx\n", b.String())
}
