package events

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// isClean lets File skip path.Clean: it must accept only paths that
// path.Clean leaves as they are, and all of those but the few it
// leaves to path.Clean ("/", ".", a leading "..").
func TestIsCleanAcceptsOnlyPathsPathCleanKeeps(t *testing.T) {
	t.Parallel()
	paths := []string{""}
	for n := 1; n <= 7; n++ {
		for _, p := range paths {
			if len(p) == n-1 {
				for _, c := range []string{"a", ".", "/"} {
					paths = append(paths, p+c)
				}
			}
		}
	}
	accepted := 0
	for _, p := range paths {
		clean := path.Clean(p) == p
		if isClean(p) {
			accepted++
			assert.True(t, clean, "%q is accepted but path.Clean makes it %q", p, path.Clean(p))
		} else if clean {
			assert.True(t, p == "/" || p == "." || p == ".." || strings.HasPrefix(p, "../"),
				"%q is clean and refused", p)
		}
	}
	assert.Greater(t, accepted, 100)
}

func TestPathClassesAreTheBytesFileRefuses(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		s := string([]byte{byte(c)})
		classes := pathClasses(s)
		assert.Equal(t, c < 0x20 || c == 0x7f, classes&classControl != 0, "byte %#x: control", c)
		assert.Equal(t, strings.ContainsAny(s, "$`*?|;&<>{}\\"), classes&classShell != 0, "byte %#x: shell", c)
		assert.Equal(t, c == '[', classes&classBracket != 0, "byte %#x: bracket", c)
	}
	assert.Equal(t, uint8(classControl|classShell|classBracket), pathClasses("a\x01b$c[d"))
	assert.Equal(t, uint8(0), pathClasses("src/a-b_c.go"))
}
