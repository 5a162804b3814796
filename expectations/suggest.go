package expectations

import (
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/suggest"
)

// closest is suggest.Closest: the candidate nearest to word, or "".
func closest(word string, candidates []string) string { return suggest.Closest(word, candidates) }

// unknownMessage words the error for a key, type or name that is not
// known: a suggestion when one is close, else the list of known ones.
// where, when not empty, names the mapping the key is in.
func unknownMessage(what, got, where string, known []string) string {
	head := what + " " + quoteKey(got)
	if where != "" {
		head += " in " + where
	}
	if s := closest(got, known); s != "" {
		return head + "; did you mean " + s + "?"
	}
	sorted := slices.Clone(known)
	slices.Sort(sorted)
	return head + " (known: " + strings.Join(sorted, ", ") + ")"
}

func quoteKey(s string) string {
	return `"` + s + `"`
}
