package events

import "sync"

// newCollector returns an empty collector. Its maps are made when first
// written: most calls name one file and no symbol, and every call of a
// session gets a collector, one that an earlier call's event gave back
// (recycle) when there is one.
func newCollector(n PathNormalizer) *collector {
	c := collectors.Get().(*collector)
	c.n = n
	return c
}

// collectors holds the collectors given back by recycle, with their list
// of files and their maps emptied, for the next calls.
var collectors = sync.Pool{New: func() any { return new(collector) }}

// maxRecycled bounds what a recycled collector keeps: a list of files or a
// map that held more is left to the garbage collector rather than
// cleared, which costs in proportion to the most a map ever held.
const maxRecycled = 16

// recycle empties c and gives it back for a later call's extraction. What
// finish returned shares c's files, symbols and warnings: the caller has
// copied what it keeps of them, and reads the Extraction no more. The
// symbols and the warnings are not reused (an event takes the symbols).
func (c *collector) recycle() {
	files := c.files
	if cap(files) > maxRecycled {
		files = nil
	}
	clear(files)
	// The index stays nil: a collector of a few files compares their
	// paths (lookup).
	*c = collector{
		files:  files[:0],
		argRng: clearedMap(c.argRng),
		resRng: clearedMap(c.resRng),
	}
	collectors.Put(c)
}

// clearedMap returns m emptied, or nil when it held more than a recycled
// collector keeps.
func clearedMap[V any](m map[string]V) map[string]V {
	if len(m) > maxRecycled {
		return nil
	}
	clear(m)
	return m
}
