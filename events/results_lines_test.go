package events

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// An `ls -l` line's name is what follows its time, in every time style GNU
// and BSD ls print; a line that is not one, or has no name after its time,
// gives none.
func TestParseLsLong(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line    string
		name    string
		regular bool
		ok      bool
	}{
		{"-rw-r--r-- 1 user group 1234 Sep  3 09:47 main.go", "main.go", true, true},
		{"-rw-r--r-- 1 user group 1234 Sep  3  2024 old.go", "old.go", true, true},
		{"-rw-r--r-- 1 user group 12 9  3 09:47 a.go", "a.go", true, true},
		{"-rw-r--r-- 1 user group 12 2024-09-03 09:47 b.go", "b.go", true, true},
		{"-rw-r--r-- 1 user group 12 2024-09-03 09:47:12.123456789 +0200 c.go", "c.go", true, true},
		{"-rw-r--r-- 1 user group 12 2024-09-03 09:47:12.123456789 -0700 d.go", "d.go", true, true},
		{"-rw-r--r-- 1 user group 12 2024-09-03 09:47:12 +02:00 e.go", "+02:00 e.go", true, true},
		{"drwxr-xr-x 2 user group 4096 Sep  3 09:47 src", "src", false, true},
		{"-rw-r--r-- 1 user group 1 Sep  3 09:47 my file.go", "my file.go", true, true},
		{"-rw-r--r-- 1 u g 1 Sep  3 09:47 a b c d e f g h.go", "a b c d e f g h.go", true, true},
		{"lrwxrwxrwx 1 user group 7 Sep  3 09:47 link -> target", "link -> target", false, true},
		{"-rw-r--r--@ 1 user staff 1 Sep  3 09:47 x.go", "x.go", true, true},
		{"-rw-r--r--+ 1 user group 1 Sep  3 09:47 y.go", "y.go", true, true},
		{"\t-rw-r--r-- 1 user group 1 Sep  3 09:47 z.go", "", false, false},
		{"-rw-r--r-- 1 user group 12 Sep  3 09:47", "", false, false},
		{"-rw-r--r-- 1 user group 12 Sep  3 09:47 ", "", false, false},
		{"-rw-r--r-- 1 u 3 09:47 x", "x", true, true},
		{"-rw-r--r-- 1 user group 12 2024-09-03 09:47:12.1 +0200", "+0200", true, true},
		{"-rw-r--r--x 1 user group 1 Sep  3 09:47 w.go", "", false, false},
		{"-rw-r--r-- 1 2024 x.go", "", false, false},
		{"-rw-r--r-- 1 3 2024 x.go y", "", false, false},
		{"-rw-r--r-- 1 user 3 2024 x.go y", "x.go y", true, true},
		{"-rw-r--r-- user group", "", false, false},
		{"-rw-r-- 1 user group 1 Sep  3 09:47 v.go", "", false, false},
		{"hello world, this is not ls", "", false, false},
		{"-x", "", false, false},
	} {
		name, regular, ok := parseLsLong(tc.line)
		assert.Equal(t, tc.ok, ok, "%q", tc.line)
		assert.Equal(t, tc.name, name, "%q", tc.line)
		assert.Equal(t, tc.regular, regular, "%q", tc.line)
	}
}

// What a Grep's output showed: matched and context lines of each file
// read, counts only surfacing their files, binary notices and group
// separators skipped, a file name with dashes read whole, a single file's
// lines numbered without its name, and prose with a colon nothing.
func TestGrepOutputLines(t *testing.T) {
	t.Parallel()
	dir := `{"pattern": "x", "path": "src"}`
	runExtractCases(t, []extractCase{
		{name: "matches, context and a separator", tool: "Grep", rule: ruleGrep, args: dir,
			result: "src/a.go:3:x\nsrc/a.go-4-y\n--\nsrc/b.go:9:z\n",
			want:   Extraction{Files: []FileRef{hitRead("src/a.go"), hitRead("src/b.go")}, Ranges: []LineRange{lines("src/a.go", 3, 4), lines("src/b.go", 9, 9)}, Query: "x"}},
		{name: "a count surfaces its file", tool: "Grep", rule: ruleGrep, args: dir,
			result: "src/a.go:3\n",
			want:   Extraction{Files: []FileRef{surfaced("src/a.go")}, Query: "x"}},
		{name: "a binary file's notice is skipped", tool: "Grep", rule: ruleGrep, args: dir,
			result: "Binary file src/c.bin matches\nsrc/a.go:3:x\n",
			want:   Extraction{Files: []FileRef{hitRead("src/a.go")}, Ranges: []LineRange{lines("src/a.go", 3, 3)}, Query: "x"}},
		{name: "lines without a file name under a folder are nobody's", tool: "Grep", rule: ruleGrep, args: dir,
			result: "3:x\n4-y\n",
			want:   Extraction{Query: "x"}},
		{name: "files without line numbers are read, no lines", tool: "Grep", rule: ruleGrep, args: dir,
			result: "src/a.go:x\nsrc/b.go:y\n",
			want:   Extraction{Files: []FileRef{hitRead("src/a.go"), hitRead("src/b.go")}, Query: "x"}},
		{name: "a name with dashes and its context line", tool: "Grep", rule: ruleGrep, args: dir,
			result: "src/a-b.go:3:x\nsrc/a-b.go-4-y\n",
			want:   Extraction{Files: []FileRef{hitRead("src/a-b.go")}, Ranges: []LineRange{lines("src/a-b.go", 3, 4)}, Query: "x"}},
		{name: "prose with a colon", tool: "Grep", rule: ruleGrep, args: dir,
			result: "some prose: with a colon\n",
			want:   Extraction{Query: "x"}},
		{name: "a single file's numbered and context lines", tool: "Grep", rule: ruleGrep, args: `{"pattern": "x", "path": "src/a.go"}`,
			result: "3:x\n4-y\n",
			want:   Extraction{Files: []FileRef{argRead("src/a.go")}, Ranges: []LineRange{lines("src/a.go", 3, 4)}, Query: "x"}},
	})
}
