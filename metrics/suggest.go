package metrics

import (
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/suggest"
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
	var names []string
	for _, d := range definitions {
		c := strings.Replace(d.Name, "@k", "@"+k, 1)
		names = append(names, c)
		if d.Views {
			names = append(names, "read."+c)
		}
	}
	return suggest.Closest(name, names)
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
