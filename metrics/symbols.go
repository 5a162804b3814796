package metrics

import (
	"strings"
	"unicode"

	"github.com/agentretrieval/agentretrieval/events"
)

// SymbolLevel holds symbol recall: the fraction of ground-truth symbols the
// agent looked for.
//
// Candidates are the identifier tokens of every event's Symbols and Query:
// maximal runs of letters, digits, '_', '$' and '.', with leading and
// trailing dots trimmed ("func ValidateToken\(" gives "func" and
// "ValidateToken"; "auth.ValidateToken" stays whole). A ground-truth symbol
// s is found when some candidate c satisfies, case-sensitively,
//
//	c == s, or c == last(s), or last(c) == s
//
// where last(x) is x after its last '.' ("OrderService.Create" → "Create").
// So a search for "Create" finds the symbol "OrderService.Create", and a
// navigation to "auth.ValidateToken" finds "ValidateToken"; "a.Close" does
// not find "b.Close". Case matters because identifiers are case-sensitive
// in most languages, and a regex pattern such as "Validate.*Token" does not
// name the symbol.
type SymbolLevel struct {
	// Total is the number of ground-truth symbols.
	Total  int             `json:"total"`
	Found  []events.Symbol `json:"found"`
	Missed []events.Symbol `json:"missed"`
	// Recall is len(Found) / Total; null when the ground truth has no
	// symbols.
	Recall *float64 `json:"symbol_recall"`
	// AccAt holds symbol_acc@k by name ("symbol_acc@5"): 1 when every
	// ground-truth symbol is found by one of the first k lookups, else 0
	// (see Lookups); absent when the ground truth has no symbols.
	AccAt map[string]float64 `json:"symbol_acc,omitempty"`
	// Lookups is the number of distinct lookups by symbol: each distinct
	// entry of the events' Symbols and each distinct query, ranked by the
	// first event that made it.
	Lookups int `json:"lookups"`
	// AllFoundAtLookup is the rank of the lookup that found the last of
	// the ground-truth symbols; null while one is missed.
	AllFoundAtLookup *int   `json:"all_found_at_lookup"`
	Reason           string `json:"reason,omitempty"`
}

func computeSymbols(doc *events.Document, evs eventList, ks []int) *SymbolLevel {
	sl := &SymbolLevel{Total: len(doc.GroundTruth.Symbols), Found: []events.Symbol{}, Missed: []events.Symbol{}}
	if sl.Total == 0 {
		sl.Reason = "the ground truth has no symbols"
		return sl
	}
	exact := map[string]bool{} // candidates
	lasts := map[string]bool{} // last(c) of every candidate
	for _, ev := range evs.each() {
		for _, text := range append([]string{ev.Query}, ev.Symbols...) {
			for _, c := range identifierTokens(text) {
				exact[c] = true
				lasts[lastComponent(c)] = true
			}
		}
	}
	for _, s := range doc.GroundTruth.Symbols {
		if exact[s.Symbol] || exact[lastComponent(s.Symbol)] || lasts[s.Symbol] {
			sl.Found = append(sl.Found, s)
		} else {
			sl.Missed = append(sl.Missed, s)
		}
	}
	r := float64(len(sl.Found)) / float64(sl.Total)
	sl.Recall = &r
	symbolAccuracy(sl, doc, evs, ks)
	return sl
}

// identifierTokens splits text into maximal runs of identifier characters
// and dots, trimming dots at either end.
func identifierTokens(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$' || r == '.')
	}) {
		if f = strings.Trim(f, "."); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// lastComponent returns s after its last '.', or s.
func lastComponent(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}
