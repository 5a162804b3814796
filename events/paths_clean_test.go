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
		assert.Equal(t, c == '"', classes&classQuote != 0, "byte %#x: quote", c)
		assert.Equal(t, c == ':', classes&classColon != 0, "byte %#x: colon", c)
		assert.Equal(t, c == '-', classes&classDash != 0, "byte %#x: dash", c)
	}
	assert.Equal(t, uint8(classControl|classShell|classBracket), pathClasses("a\x01b$c[d"))
	assert.Equal(t, uint8(classQuote|classColon|classDash), pathClasses(`a"b:c-d`))
	assert.Equal(t, uint8(classDash), pathClasses("src/a-b_c.go"))
	assert.Equal(t, uint8(0), pathClasses("src/a_b.c.go"))
}

// pathClasses looks at four bytes a turn and the rest one by one: a byte
// of each class is found at every position of paths of every length
// around those turns.
func TestPathClassesFindAByteAtEveryPosition(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 13; n++ {
		for i := range n {
			for _, tc := range []struct {
				c     byte
				class uint8
			}{{'\n', classControl}, {'*', classShell}, {'[', classBracket}} {
				b := []byte(strings.Repeat("a", n))
				b[i] = tc.c
				assert.Equal(t, tc.class, pathClasses(string(b)), "%q", b)
			}
		}
		assert.Equal(t, uint8(0), pathClasses(strings.Repeat("a", n)), "%d plain bytes", n)
	}
}

func TestHasBlankFindsABlankOrATab(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want bool
	}{
		{"src/a.go", false},
		{"", false},
		{"src/a b.go", true},
		{"src/a\tb.go", true},
		{"\tsrc/a.go", true},
		{" src/a.go", true},
		{"src/a.go ", true},
		{"a\t b", true},
		{"src/a\u00a0b.go", false}, // a no-break space is not a blank here
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, hasBlank(tt.s), "%q", tt.s)
	}
}

// A working directory that is not clean is cleaned before paths are made
// relative to it; a clean one is used as it is.
func TestPathNormalizerCleansTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	for _, cwd := range []string{"/root/repo", "/root/repo/", "/root//repo", "/root/x/../repo", "/root/./repo", " /root/repo "} {
		got, ok := PathNormalizer{CWD: cwd}.File("/root/repo/src/a.go", FromArgument)
		assert.True(t, ok, "CWD %q", cwd)
		assert.Equal(t, "src/a.go", got, "CWD %q", cwd)
	}
	_, ok := PathNormalizer{CWD: "/root/x/.."}.File("/root", FromArgument)
	assert.False(t, ok, "the working directory itself, written unclean, is not a file")
}
