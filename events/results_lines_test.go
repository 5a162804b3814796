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
