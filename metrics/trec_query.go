package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// missingDoc is the one document of the ranking trec_eval 10.0 evaluates
// for a query of the qrels that the run lacks, under -c.
const missingDoc = "ceci_nest_pas_un_docno"

// missingQueryScores computes the figures of a query the run lacks, as
// trec_eval 10.0 does under -c: over a ranking of one unjudged document,
// then with num_ret, utility (at its default coefficients), unj,
// rbp_resid and relstring reset to nothing retrieved.
func missingQueryScores(measures []compiledMeasure, qj queryJudgments, opts TRECOptions) ([]TRECScore, error) {
	ranked := []string{missingDoc}
	if opts.JudgedOnly && qj.groups == nil && qj.prefs == nil {
		ranked = judgedOnly(ranked, qj.rel)
	}
	scores, err := queryScores(measures, ranked, qj, opts)
	if err != nil {
		return nil, err
	}
	for i, s := range scores {
		switch {
		case s.Measure == "num_ret", s.Measure == "utility", s.Measure == "rbp_resid", strings.HasPrefix(s.Measure, "unj"):
			scores[i].Value = 0
		case strings.HasPrefix(s.Measure, "relstring"):
			scores[i].Text = ""
		}
	}
	return scores, nil
}

// queryJudgments are the judgments of one query, in the form of the
// qrels format read: relevance grades, grades by judgment group, or
// preferences.
type queryJudgments struct {
	rel    Judgments
	groups []Judgments
	prefs  []PrefJudgment
}

// queryScores computes the per-query figures of one query: with the
// judgments qj.rel, for the judgment-group measures with each of
// qj.groups, and for the preference measures with qj.prefs. Under
// opts.JudgedOnly, ranked is already cut to rel's judged documents, and is
// cut to each group's for the group measures.
func queryScores(measures []compiledMeasure, ranked []string, qj queryJudgments, opts TRECOptions) ([]TRECScore, error) {
	level, rel, groups := opts.Level, qj.rel, qj.groups
	jr := newJudgedRanking(ranked, rel, level)
	// The ranking is judged once for the measures that read whether each
	// document is relevant (and R and the ideal gains counted once).
	docs := dedup(ranked)
	flags := judge(docs, rel, level)
	numRel, ideal := NumRelevant(rel, level), idealGains(rel)
	var pc *prefCounts
	for _, m := range measures {
		if m.def.prefs {
			var err error
			if pc, err = formPrefCounts(ranked, qj.prefs); err != nil {
				return nil, err
			}
			break
		}
	}
	var out []TRECScore
	add := func(name string, v float64) {
		out = append(out, TRECScore{Measure: name, Value: v})
	}
	addEach := func(m compiledMeasure, vs []float64) {
		for i, v := range vs {
			var name string
			if m.def.params == shareCutoffs {
				name = fmt.Sprintf("%s_%3.2f", m.def.name, m.numbers[i])
			} else {
				name = m.def.name + "_" + strconv.Itoa(m.cutoffs[i])
			}
			add(name, v)
		}
	}
	eachCutoff := func(m compiledMeasure, f func(k int) float64) {
		vs := make([]float64, len(m.cutoffs))
		for i, k := range m.cutoffs {
			vs[i] = f(k)
		}
		addEach(m, vs)
	}
	for _, m := range measures {
		name := m.label
		switch m.def.name {
		case "num_ret":
			add(name, float64(len(ranked)))
		case "num_rel":
			add(name, float64(numRel))
		case "num_rel_ret":
			add(name, float64(relevantInTop(flags, len(flags))))
		case "map":
			add(name, averagePrecision(flags, numRel))
		case "gm_map":
			out = append(out, TRECScore{Measure: name, Value: math.Log(max(jr.averagePrecision(), minGeoMean)), hidden: true})
		case "Rprec":
			add(name, rPrecision(flags, numRel))
		case "bpref":
			add(name, jr.bpref())
		case "recip_rank":
			add(name, reciprocalRankAt(flags, math.MaxInt))
		case "iprec_at_recall":
			addEach(m, jr.interpolatedPrecision(m.numbers))
		case "P":
			eachCutoff(m, func(k int) float64 { return precisionAt(flags, k) })
		case "relstring":
			out = append(out, TRECScore{Measure: name, Text: jr.relString(int(m.numbers[0]))})
		case "recall":
			eachCutoff(m, func(k int) float64 { return recallAt(flags, k, numRel) })
		case "infAP":
			add(name, jr.infAP())
		case "gm_bpref":
			out = append(out, TRECScore{Measure: name, Value: math.Log(max(jr.bpref(), minGeoMean)), hidden: true})
		case "Rprec_mult":
			addEach(m, jr.precisionAtRMultiples(m.numbers))
		case "utility":
			add(name, jr.utility(m.numbers, opts.NumDocs))
		case "11pt_avg":
			sum := 0.0
			for _, p := range jr.interpolatedPrecision(m.numbers) {
				sum += p
			}
			add(name, sum/float64(len(m.numbers)))
		case "binG":
			add(name, jr.binG())
		case "G":
			add(name, jr.g(newGainTable(jr, m.gains)))
		case "dcg":
			d, _ := jr.dcg(newGainTable(jr, m.gains))
			add(name, d)
		case "ideal_dcg":
			_, ideal := jr.dcg(newGainTable(jr, m.gains))
			add(name, ideal)
		case "ndcg":
			add(name, jr.ndcg(newGainTable(jr, m.gains)))
		case "ndcg_rel":
			add(name, jr.ndcgRel(newGainTable(jr, m.gains)))
		case "Rndcg":
			add(name, jr.rndcg(newGainTable(jr, m.gains)))
		case "ndcg_cut":
			eachCutoff(m, func(k int) float64 {
				if k < 1 {
					return 0
				}
				return ndcg(docs, rel, k, ideal)
			})
		case "map_cut":
			addEach(m, jr.mapAtCutoffs(m.cutoffs))
		case "relative_P":
			addEach(m, jr.relativePrecision(m.cutoffs))
		case "success":
			eachCutoff(m, func(k int) float64 { return successAt(flags, k) })
		case "set_P":
			add(name, setPrecision(flags))
		case "set_relative_P":
			add(name, jr.setRelativeP())
		case "set_recall":
			add(name, setRecall(flags, numRel))
		case "set_map":
			add(name, jr.setMAP())
		case "set_F":
			add(name, jr.setF(m.numbers[0]))
		case "num_nonrel_judged_ret":
			add(name, jr.numNonrelJudgedRet())
		case "rbp":
			add(name, jr.rbp(newGainTable(jr, m.gains), persistence(m.gains)))
		case "rbp_resid":
			add(name, jr.rbpResidual(persistence(m.gains)))
		case "unj":
			addEach(m, jr.unjudgedAt(m.cutoffs))
		case "yaap":
			add(name, jr.yaap())
		case "prefs_num_prefs_poss":
			_, _, possRet, possImp, possNot := pc.prefTotals()
			add(name, float64(possRet+possImp+possNot))
		case "prefs_num_prefs_ful":
			fulRet, fulImp, _, _, _ := pc.prefTotals()
			add(name, float64(fulRet+fulImp))
		case "prefs_num_prefs_ful_ret":
			fulRet, _, _, _, _ := pc.prefTotals()
			add(name, float64(fulRet))
		case "prefs_simp":
			fulRet, fulImp, possRet, possImp, possNot := pc.prefTotals()
			add(name, prefRatio(fulRet+fulImp, possRet+possImp+possNot))
		case "prefs_simp_ret":
			fulRet, _, possRet, _, _ := pc.prefTotals()
			add(name, prefRatio(fulRet, possRet))
		case "prefs_simp_imp":
			fulRet, fulImp, possRet, possImp, _ := pc.prefTotals()
			add(name, prefRatio(fulRet+fulImp, possRet+possImp))
		case "prefs_pair":
			add(name, pc.prefPairs(true, true))
		case "prefs_pair_ret":
			add(name, pc.prefPairs(false, false))
		case "prefs_pair_imp":
			add(name, pc.prefPairs(true, false))
		case "prefs_avgjg":
			add(name, pc.prefAvgJG(func(g *prefGroup) (int, int) {
				return g.fulRet + g.fulImp, g.possRet + g.possImp + g.possNotOccur
			}))
		case "prefs_avgjg_ret":
			add(name, pc.prefAvgJG(func(g *prefGroup) (int, int) { return g.fulRet, g.possRet }))
		case "prefs_avgjg_imp":
			add(name, pc.prefAvgJG(func(g *prefGroup) (int, int) {
				return g.fulRet + g.fulImp, g.possRet + g.possImp
			}))
		case "prefs_avgjg_Rnonrel":
			add(name, pc.prefAvgJGRnonrel(false))
		case "prefs_avgjg_Rnonrel_ret":
			add(name, pc.prefAvgJGRnonrel(true))
		case "map_avgjg":
			add(name, overGroups(ranked, groups, opts, 1, func(jr judgedRanking) []float64 {
				return []float64{jr.averagePrecision()}
			})[0])
		case "P_avgjg":
			addEach(m, overGroups(ranked, groups, opts, len(m.cutoffs), func(jr judgedRanking) []float64 {
				vs := make([]float64, len(m.cutoffs))
				for i, k := range m.cutoffs {
					vs[i] = jr.precisionAt(k)
				}
				return vs
			}))
		case "Rprec_mult_avgjg":
			addEach(m, overGroups(ranked, groups, opts, len(m.numbers), func(jr judgedRanking) []float64 {
				return jr.precisionAtRMultiples(m.numbers)
			}))
		}
	}
	return out, nil
}
