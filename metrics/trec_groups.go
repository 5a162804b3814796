package metrics

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// QrelsJG holds judgments by query and then by judgment group: the qrels
// of trec_eval's -R qrels_jg, where the second field of each line names
// the group (a judge, a user) instead of an ignored iteration. Each group
// judges a query on its own; the *_avgjg measures score a ranking against
// every group and average.
type QrelsJG map[string]map[string]Judgments

// ParseQrelsJG reads a qrels file whose second field is the judgment
// group: query, group, document, relevance, as ParseQrels reads them. A
// document judged twice by one group for one query is an error.
func ParseQrelsJG(r io.Reader, name string) (QrelsJG, error) {
	qrels := QrelsJG{}
	firstLine := map[[3]string]int{}
	err := eachLine(r, name, func(n int, fields []string) error {
		if len(fields) != 4 {
			return fmt.Errorf("%w: want 4 fields (query group document relevance), got %d", ErrMalformedLine, len(fields))
		}
		query, group, doc := fields[0], fields[1], fields[2]
		grade, err := parseGrade(fields[3])
		if err != nil {
			return err
		}
		key := [3]string{query, group, doc}
		if first, dup := firstLine[key]; dup {
			return fmt.Errorf("%w %q for query %q in judgment group %q (first judged on line %d)", ErrDuplicateDocument, doc, query, group, first)
		}
		firstLine[key] = n
		if qrels[query] == nil {
			qrels[query] = map[string]Judgments{}
		}
		if qrels[query][group] == nil {
			qrels[query][group] = Judgments{}
		}
		qrels[query][group][doc] = grade
		return nil
	})
	if err != nil {
		return nil, err
	}
	return qrels, nil
}

// groups returns the judgments of each group of query, in trec_eval's
// order (group ids sorted byte-wise); nil for nil qrels.
func (q QrelsJG) groups(query string) []Judgments {
	if q == nil {
		return nil
	}
	var out []Judgments
	for _, g := range sortedKeys(q[query]) {
		out = append(out, q[query][g])
	}
	return out
}

// checkFormatMeasures refuses a measure that cannot be computed with the
// judgments given (format is "qrels", "qrels_jg" or "prefs"): a group or
// preference measure without those judgments, or another measure with
// them (trec_eval stops with "Can't calculate measure" there).
func checkFormatMeasures(measures []compiledMeasure, format string) error {
	var other []string
	for _, m := range measures {
		switch {
		case m.def.name == "runid" || m.def.name == "num_q":
		case m.def.groups && format != "qrels_jg":
			return fmt.Errorf("measure %q averages over judgment groups: it needs qrels with groups (trec_eval -R qrels_jg)", m.def.name)
		case m.def.prefs && format != "prefs":
			return fmt.Errorf("measure %q needs preference judgments (trec_eval -R prefs or -R qrels_prefs)", m.def.name)
		case format != "qrels" && !m.def.groups && !m.def.prefs:
			other = append(other, m.def.name)
		}
	}
	switch {
	case len(other) == 0:
	case format == "qrels_jg":
		return fmt.Errorf("with judgment groups (-R qrels_jg) only runid, num_q, map_avgjg, P_avgjg and Rprec_mult_avgjg are computed (the set qrels_jg), not %s", strings.Join(other, ", "))
	default:
		return fmt.Errorf("with preferences (-R prefs, qrels_prefs) only runid, num_q and the prefs measures are computed (the sets prefs and all_prefs), not %s", strings.Join(other, ", "))
	}
	return nil
}

// overGroups computes n figures of ranked against each group's judgments
// and averages them, in trec_eval's order of operations: summed over the
// groups in order, then divided by their number when there are several.
// Under opts.JudgedOnly each group sees the ranking cut to its own judged
// documents.
func overGroups(ranked []string, groups []Judgments, opts TRECOptions, n int, f func(judgedRanking) []float64) []float64 {
	sum := make([]float64, n)
	for _, g := range groups {
		r := ranked
		if opts.JudgedOnly {
			r = judgedOnly(ranked, g)
		}
		for i, v := range f(newJudgedRanking(r, g, opts.Level)) {
			sum[i] += v
		}
	}
	if len(groups) > 1 {
		for i := range sum {
			sum[i] /= float64(len(groups))
		}
	}
	return sum
}

// precisionAt is relevant documents among the first k / k, a short
// ranking padded with non-relevant documents.
func (jr judgedRanking) precisionAt(k int) float64 {
	found := 0
	for i := 0; i < k && i < jr.numRet(); i++ {
		if jr.relevant(i) {
			found++
		}
	}
	return float64(found) / float64(k)
}

// yaap is Robertson's "yet another average precision" (ECIR 2012), as
// trec_eval computes it: log((1 + S) / (1 + R − S)), S the sum of the
// precision at each relevant rank (average precision before dividing by
// R). It is finite where AP is 0 or 1, so it averages more evenly.
func (jr judgedRanking) yaap() float64 {
	sum, found := 0.0, 0
	for i := range jr.numRet() {
		if jr.relevant(i) {
			found++
			sum += float64(found) / float64(i+1)
		}
	}
	return math.Log((1 + sum) / (1 + float64(jr.numRel) - sum))
}
