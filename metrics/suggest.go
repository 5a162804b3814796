package metrics

import (
	"strconv"
	"strings"
)

// Suggest returns the metric name nearest to an unknown one, spelled with
// its cutoff and view ("recal@5" gives "recall@5", "read.mrrr" gives
// "read.mrr"), or "" when no name is near enough to be a likely typo: at
// most a third of the name's length in edits (insertions, deletions,
// substitutions and swaps of adjacent letters), and at least one.
func Suggest(name string) string {
	k := "5"
	if i := strings.LastIndexByte(name, '@'); i >= 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil && n >= 1 {
			k = strconv.Itoa(n)
		}
	}
	best, bestDist := "", -1
	consider := func(c string) {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if bestDist < 0 || d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	for _, d := range definitions {
		c := strings.Replace(d.Name, "@k", "@"+k, 1)
		consider(c)
		if d.Views {
			consider("read." + c)
		}
	}
	if bestDist < 0 || bestDist > max(1, len([]rune(name))/3) {
		return ""
	}
	return best
}

// UnknownMetricError words the error for a name that is not a metric, with
// the nearest name when one is close.
func UnknownMetricError(name string) string {
	msg := "unknown metric " + strconv.Quote(name)
	if s := Suggest(name); s != "" {
		return msg + "; did you mean " + s + "?"
	}
	return msg + " (retrievaltest metrics -list prints every name)"
}

// editDistance is the optimal string alignment distance between a and b.
func editDistance(a, b string) int {
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
