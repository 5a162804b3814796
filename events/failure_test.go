package events

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUncaughtTraceback(t *testing.T) {
	t.Parallel()
	frames := "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    f()\n"
	for _, tc := range []struct {
		name   string
		output string
		want   bool
	}{
		{"an exception after the frames ends the program", "start\n" + frames + "ValueError: bad\n", true},
		{"an exception with no message", frames + "KeyboardInterrupt\n", true},
		{"an exception of a module", frames + "pkg.mod.CustomError: x\n", true},
		{"a message of eight lines after the exception", frames + "ValueError: a\n" + strings.Repeat("more\n", 7), true},
		{"nine lines after the exception are the program going on", frames + "ValueError: a\n" + strings.Repeat("more\n", 8), false},
		{"frames alone are no uncaught exception", frames, false},
		{"a caught traceback followed by output is not", frames + "handled, going on\n", false},
		{"no traceback", "ValueError: bad\n", false},
		{"the last traceback decides", frames + "ValueError: a\n" + frames + "all fine\n", false},
		{"the last traceback decides when it ends the program", frames + "all fine\n" + frames + "ValueError: b\n", true},
		{"three tracebacks: the last decides", frames + "ValueError: a\n" + frames + "ok\n" + frames + "ValueError: c\n", true},
	} {
		assert.Equal(t, tc.want, uncaughtTraceback(tc.output), tc.name)
	}
}

func TestFailedEdit(t *testing.T) {
	t.Parallel()
	assert.True(t, failedEdit("ERROR:\nNo replacement was performed, old_str `x` did not appear verbatim in /a.py."))
	assert.True(t, failedEdit("Your proposed edit has introduced new syntax error(s)."))
	assert.True(t, failedEdit("Failed to edit, 0 occurrences found for old_string in /a.py. No edits made."))
	assert.False(t, failedEdit("The file /a.py has been edited. Here's the result of running `cat -n`"))
	// Only the start of a long answer is looked at.
	assert.False(t, failedEdit(strings.Repeat("x", 64<<10)+"No replacement was performed"))
}

func TestFailedTargetsKeepOnlyWhatTheOutputShowsToExist(t *testing.T) {
	t.Parallel()
	named := func(result string, names []string, files ...FileRef) []string {
		c := newCollector(PathNormalizer{})
		for _, f := range files {
			c.addFile(f.Path, f.Read, f.Written, f.FromResult)
		}
		c.failedTargets(result, names)
		var out []string
		for _, f := range c.files {
			out = append(out, f.Path)
		}
		return out
	}
	a, b := argNamed("a.py"), argNamed("b.py")
	assert.Nil(t, named("", nil, a), "empty output")
	assert.Nil(t, named("bash: foo: command not found\n", nil, a), "a command that was not found")
	assert.Nil(t, named("File does not exist.", nil, a), "a read of a missing file")
	assert.Equal(t, []string{"a.py"}, named("File content (748KB) exceeds maximum allowed size", nil, a), "a refusal that implies the file")
	assert.Equal(t, []string{"a.py"}, named("cat: b.py: No such file or directory\nprint(1)\n", []string{"cat"}, a, b), "one of two missing")
	assert.Equal(t, []string{"b.py"}, named("ls: x: No such file\n", []string{"ls"}, surfaced("b.py")), "a file the output showed stays")
	assert.Equal(t, []string{"a.py", "b.py"}, named("grep: b.py mentioned, not found anywhere\nhit\n", []string{"sed"}, a, b),
		"a message of another command names nothing missing")
}

func TestOnlyTheFirstLinesOfAnOutputAreReadForMissingFiles(t *testing.T) {
	t.Parallel()
	c := newCollector(PathNormalizer{})
	c.addFile("a.py", false, false, false)
	c.dropMissing(strings.Repeat("ok\n", 2000)+"cat: a.py: No such file or directory\n", []string{"cat"})
	assert.Len(t, c.files, 1, "a message past the first 2,000 lines is not looked for")
	c.dropMissing(strings.Repeat("ok\n", 1999)+"cat: a.py: No such file or directory\n", []string{"cat"})
	assert.Empty(t, c.files)

	assert.True(t, onlyMissing(strings.Repeat("x: not found\n", 50)))
	assert.False(t, onlyMissing(strings.Repeat("x: not found\n", 51)), "a long output is more than a not-found message")
}
