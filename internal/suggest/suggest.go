// Package suggest finds the known name nearest to a misspelt one, for the
// "did you mean" of error messages (scenario keys, metric names, steps).
package suggest

import "strings"

// Closest returns the candidate nearest to word, compared without case, or
// "" when none is near enough to be a likely typo: within a third of the
// word's length in edits, and at least one. Ties go to the candidate that
// sorts first, so the answer does not depend on the candidates' order.
func Closest(word string, candidates []string) string {
	best, bestDist := "", -1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		d := Distance(lw, strings.ToLower(c))
		if bestDist < 0 || d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > max(1, len([]rune(word))/3) {
		return ""
	}
	return best
}

// Distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent characters
// each cost one, so "raito" is one edit from "ratio".
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
