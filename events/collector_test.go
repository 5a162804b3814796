package events

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A collector finds its first files by comparing paths and indexes them
// past linearFiles (at once when it folds case): both ways must find the
// same files, merge their flags, and forget a dropped one.
func TestACollectorFindsItsFilesBeforeAndAfterIndexingThem(t *testing.T) {
	t.Parallel()
	for _, fold := range []bool{false, true} {
		t.Run(fmt.Sprint("fold case ", fold), func(t *testing.T) {
			t.Parallel()
			c := newCollector(PathNormalizer{FoldCase: fold})
			name := func(i int) string { return fmt.Sprintf("src/File%02d.go", i) }
			for n := 1; n <= 2*linearFiles; n++ {
				assert.True(t, c.addFile(name(n-1), false, false, true))
				assert.Equal(t, fold || n > linearFiles, c.index != nil, "indexed with %d files", n)
				for i := range n {
					j, ok := c.lookup(c.n.Key(name(i)))
					assert.True(t, ok, name(i))
					assert.Equal(t, i, j, name(i))
				}
				_, ok := c.lookup(c.n.Key(name(n)))
				assert.False(t, ok, "a file not added is not found")
			}
			last := name(2*linearFiles - 1)
			other := last
			if fold {
				other = strings.ToUpper(last)
			}
			assert.True(t, c.addFile(other, true, false, false), "a file added again is known")
			assert.Len(t, c.files, 2*linearFiles)
			assert.Equal(t, FileRef{Path: last, Read: true}, c.files[2*linearFiles-1], "the flags merge")
			c.addResultRange(other, 3, 4)
			assert.Equal(t, []LineRange{{Path: last, Start: 3, End: 4}}, c.resRng[c.n.Key(last)], "a range names the file as first added")

			c.drop(name(2))
			assert.Len(t, c.files, 2*linearFiles-1)
			assert.False(t, c.known(name(2)))
			for i := 3; i < 2*linearFiles; i++ {
				j, ok := c.lookup(c.n.Key(name(i)))
				assert.True(t, ok, name(i))
				assert.Equal(t, i-1, j, "%s moves up after a drop", name(i))
			}
			c.unread(other)
			assert.False(t, c.files[len(c.files)-1].Read)
			assert.Empty(t, c.resRng[c.n.Key(last)])
		})
	}
}

func TestACollectorWithoutAnIndexDropsAFile(t *testing.T) {
	t.Parallel()
	c := newCollector(PathNormalizer{})
	for _, p := range []string{"a.go", "b.go", "c.go"} {
		c.addFile(p, true, false, false)
	}
	c.drop("b.go")
	assert.Nil(t, c.index)
	assert.Equal(t, []FileRef{{Path: "a.go", Read: true}, {Path: "c.go", Read: true}}, c.files)
	i, ok := c.lookup("c.go")
	assert.True(t, ok)
	assert.Equal(t, 1, i)
	c.drop("b.go")
	assert.Len(t, c.files, 2, "dropping an unknown file changes nothing")
}

func TestStringValuesYieldTheNonBlankStringsOfAnArgument(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		arg  any
		want []string
	}{
		{"a.go", []string{"a.go"}},
		{"  ", nil},
		{[]any{"a.go", 3.0, " ", nil, "b.go", []any{"c.go"}}, []string{"a.go", "b.go"}},
		{map[string]any{"a": "a.go"}, nil},
		{nil, nil},
	} {
		assert.Equal(t, c.want, slices.Collect(stringValues(c.arg)), "%v", c.arg)
	}
	var first []string
	for s := range stringValues([]any{"a.go", "b.go", "c.go"}) {
		first = append(first, s)
		if len(first) == 2 {
			break
		}
	}
	assert.Equal(t, []string{"a.go", "b.go"}, first, "a loop that breaks ends the sequence")
}

// A collector given back once its event is made comes back empty, as a new
// one, keeping only an emptied list of files and small emptied range maps;
// what the event took from it (its symbols) stays as it was.
func TestARecycledCollectorComesBackEmpty(t *testing.T) {
	n := PathNormalizer{CWD: "/w"}
	fill := func(c *collector) {
		for i := range linearFiles + 1 {
			c.addFile(fmt.Sprintf("/w/f%d.go", i), true, i == 0, false)
		}
		c.addArgRange("/w/f0.go", 1, 2)
		c.addResultRange("/w/f1.go", 3, 4)
		c.addSymbol("Sym")
		c.setQuery("q")
		c.category, c.class, c.failed, c.noRelative = "search", "grep", true, true
		c.warnf("w")
	}
	// The pool may drop what it is given (it does at random under the race
	// detector): a few tries get the collector back.
	reused := false
	for range 20 {
		c := newCollector(n)
		fill(c)
		ex := c.finish()
		symbols := ex.Symbols
		c.recycle()
		assert.Equal(t, []string{"Sym"}, symbols, "the symbols an event took are left as they were")
		again := newCollector(PathNormalizer{CWD: "/v"})
		if again != c {
			continue
		}
		reused = true
		assert.Empty(t, again.files)
		assert.Equal(t, make([]FileRef, cap(again.files)), again.files[:cap(again.files)], "nothing is left in the list's spare room")
		assert.Empty(t, again.argRng)
		assert.Empty(t, again.resRng)
		bare := *again
		bare.files, bare.argRng, bare.resRng = nil, nil, nil
		assert.Equal(t, collector{n: PathNormalizer{CWD: "/v"}}, bare, "every other field as a new collector's")
		again.recycle()
	}
	assert.True(t, reused, "a recycled collector serves a later call")

	// A collector of as many ranges as it keeps keeps its maps; one of
	// more files or ranges leaves them to the garbage collector.
	reused = false
	for range 20 {
		c := newCollector(n)
		for i := range maxRecycled {
			p := fmt.Sprintf("/w/f%d.go", i)
			c.addResultRange(p, 1, 2)
			c.addArgRange(p, 1, 2)
		}
		c.recycle()
		again := newCollector(n)
		if again != c {
			continue
		}
		reused = true
		assert.NotNil(t, again.files, "a list of %d files is kept", maxRecycled)
		assert.NotNil(t, again.resRng, "and a map of as many")
		assert.NotNil(t, again.argRng)
		again.recycle()
	}
	assert.True(t, reused, "a recycled collector serves a later call")

	reused = false
	for range 20 {
		c := newCollector(n)
		for i := range maxRecycled + 1 {
			p := fmt.Sprintf("/w/f%d.go", i)
			c.addFile(p, true, false, false)
			c.addResultRange(p, 1, 2)
			c.addArgRange(p, 1, 2)
		}
		files, res := c.files, c.resRng
		c.recycle()
		assert.Len(t, files, maxRecycled+1, "what the collector held is left as it was")
		assert.Len(t, res, maxRecycled+1)
		again := newCollector(n)
		if again != c {
			continue
		}
		reused = true
		assert.Nil(t, again.files, "a long list of files is not kept")
		assert.Nil(t, again.resRng, "nor a large map")
		assert.Nil(t, again.argRng)
		again.recycle()
	}
	assert.True(t, reused, "a recycled collector serves a later call")
}
