// Package lazyre compiles a package's regular expressions on first use
// rather than when the program starts. A regular expression compiled in a
// package variable is compiled by every run of the binary, whatever the
// command: its time, its allocations and the pages of the compiler's code
// it touches all count in the start-up of `retrievaltest version`.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns the same *regexp.Regexp ever after. Like regexp.MustCompile,
// it panics if expr does not compile, but only when first called: the
// expressions given to it are constants of the program, each used by a
// test.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
