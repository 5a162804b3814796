package benchgen

import (
	"bytes"
	"strconv"
)

// Repeat returns sample (a trace, JSON Lines) written copies times, each
// copy's identifiers made its own: every occurrence of each of the markers
// (such as `toolu_` or `"uuid":"`) is followed, in copy i, by i and then
// sep, so that the calls and messages of one copy never join those of
// another. It is the recipe of scripts/bench-real.sh, in Go, for
// benchmarks on real traces made bigger:
//
//	Repeat(claude, 130, Marked{[]string{`toolu_`}, "x"},
//		Marked{[]string{`"uuid":"`, `"parentUuid":"`}, "-"})
func Repeat(sample []byte, copies int, groups ...Marked) []byte {
	out := make([]byte, 0, copies*(len(sample)+len(sample)/16))
	for i := range copies {
		out = appendCopy(out, sample, i, groups)
	}
	return out
}

// Marked is a set of markers whose values Repeat makes unique, and the
// separator written after the copy's number.
type Marked struct {
	Markers []string
	Sep     string
}

// appendCopy appends copy i of sample to out.
func appendCopy(out, sample []byte, i int, groups []Marked) []byte {
	n := strconv.Itoa(i)
	rest := sample
	for len(rest) > 0 {
		at, end, sep := -1, 0, ""
		for _, g := range groups {
			for _, m := range g.Markers {
				if j := bytes.Index(rest, []byte(m)); j >= 0 && (at < 0 || j < at) {
					at, end, sep = j, j+len(m), g.Sep
				}
			}
		}
		if at < 0 {
			return append(out, rest...)
		}
		out = append(out, rest[:end]...)
		out = append(out, n...)
		out = append(out, sep...)
		rest = rest[end:]
	}
	return out
}
