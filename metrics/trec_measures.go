package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Relevance codes of a retrieved document that has no grade, as trec_eval
// keeps them: not in the qrels at all, or in the qrels with a negative
// grade (pooled but not judged).
const (
	relNotPooled = -1
	relUnjudged  = -2
)

// minGeoMean is the floor trec_eval puts under a value before taking its
// logarithm for a geometric mean (gm_map, gm_bpref).
const minGeoMean = 0.00001

// infAPEpsilon smooths infAP's estimate of precision above a relevant
// document, as in trec_eval.
const infAPEpsilon = 0.00001

// judgedRanking is one query's ranking reduced to what trec_eval's
// measures look at: the grade at each rank and counts over the qrels.
type judgedRanking struct {
	grades     []int // per rank: the grade, relNotPooled or relUnjudged
	levels     []int // levels[g]: judged documents of grade g ≥ 0
	numRel     int   // judged documents with grade ≥ level
	numRelRet  int   // retrieved documents with grade ≥ level
	numNotPool int   // retrieved documents absent from the qrels
	numUnjRet  int   // retrieved documents with a negative grade
	level      int
}

func newJudgedRanking(ranked []string, rel Judgments, level int) judgedRanking {
	level = max(level, 0)
	jr := judgedRanking{grades: make([]int, len(ranked)), level: level}
	maxGrade := -1
	for _, g := range rel {
		maxGrade = max(maxGrade, g)
	}
	jr.levels = make([]int, maxGrade+1)
	for _, g := range rel {
		if g >= 0 {
			jr.levels[g]++
			if g >= level {
				jr.numRel++
			}
		}
	}
	for i, doc := range ranked {
		g, ok := rel[doc]
		switch {
		case !ok:
			g = relNotPooled
			jr.numNotPool++
		case g < 0:
			g = relUnjudged
			jr.numUnjRet++
		case g >= level:
			jr.numRelRet++
		}
		jr.grades[i] = g
	}
	return jr
}

func (jr judgedRanking) numRet() int { return len(jr.grades) }

func (jr judgedRanking) relevant(i int) bool { return jr.grades[i] >= jr.level }

// averagePrecision is map for one query, as a function of the grades.
func (jr judgedRanking) averagePrecision() float64 {
	sum, found := 0.0, 0
	for i := range jr.grades {
		if jr.relevant(i) {
			found++
			sum += float64(found) / float64(i+1)
		}
	}
	if found == 0 {
		return 0
	}
	return sum / float64(jr.numRel)
}

// bpref is trec_eval's bpref: for each judged relevant document retrieved,
// 1 less the share of the first R judged non-relevant documents ranked
// above it, averaged over R. Documents without a judgment are skipped.
func (jr judgedRanking) bpref() float64 {
	numNonrel := 0
	for g := 0; g < jr.level && g < len(jr.levels); g++ {
		numNonrel += jr.levels[g]
	}
	sum := 0.0
	nonrel := 0
	for _, g := range jr.grades {
		switch {
		case g < 0:
		case g < jr.level:
			nonrel++
		case nonrel > 0:
			sum += 1 - float64(min(nonrel, jr.numRel))/float64(min(numNonrel, jr.numRel))
		default:
			sum++
		}
	}
	if jr.numRel > 0 {
		sum /= float64(jr.numRel)
	}
	return sum
}

// infAP is Yilmaz and Aslam's inferred AP as trec_eval computes it.
func (jr judgedRanking) infAP() float64 {
	sum := 0.0
	rel, nonrel, unjudged := 0, 0, 0
	for j, g := range jr.grades {
		switch {
		case g == relNotPooled:
		case g == relUnjudged:
			unjudged++
		case g < jr.level:
			nonrel++
		default:
			rel++
			if j == 0 {
				sum++
				continue
			}
			fj := float64(j)
			above := float64(rel - 1 + nonrel + unjudged)
			sum += 1/(fj+1) + fj/(fj+1)*(above/fj)*
				((float64(rel-1)+infAPEpsilon)/(float64(rel-1+nonrel)+2*infAPEpsilon))
		}
	}
	if jr.numRel > 0 {
		sum /= float64(jr.numRel)
	}
	return sum
}

// interpolatedPrecision returns, for each recall share in recalls (sorted
// increasingly), the highest precision at any rank at or after the rank
// where round(share × R) relevant documents have been retrieved; shares
// beyond the recall reached get the precision interpolated at the end.
func (jr judgedRanking) interpolatedPrecision(recalls []float64) []float64 {
	out := make([]float64, len(recalls))
	cut := make([]int, len(recalls))
	for i, r := range recalls {
		cut[i] = int(math.Round(r * float64(jr.numRel)))
	}
	c := len(recalls) - 1
	for c >= 0 && cut[c] > jr.numRelRet {
		c--
	}
	// An empty ranking (possible only under -J) gives trec_eval 0/0, NaN,
	// for the shares that round to 0 relevant documents; it prints -nan.
	intPrec := math.NaN()
	if jr.numRet() > 0 {
		intPrec = float64(jr.numRelRet) / float64(jr.numRet())
	}
	found := jr.numRelRet
	for i := jr.numRet(); i > 0 && found > 0; i-- {
		intPrec = max(intPrec, float64(found)/float64(i))
		if jr.relevant(i - 1) {
			for c >= 0 && found == cut[c] {
				out[c] = intPrec
				c--
			}
			found--
		}
	}
	for ; c >= 0; c-- {
		out[c] = intPrec
	}
	return out
}

// precisionAtRMultiples is trec_eval's Rprec_mult: precision at rank
// int(m × R + 0.9) for each multiple m (sorted increasingly).
func (jr judgedRanking) precisionAtRMultiples(mults []float64) []float64 {
	out := make([]float64, len(mults))
	cut := make([]int, len(mults))
	for i, m := range mults {
		cut[i] = int(m*float64(jr.numRel) + 0.9)
	}
	c := len(mults) - 1
	for c >= 0 && cut[c] > jr.numRet() {
		out[c] = float64(jr.numRelRet) / float64(cut[c])
		c--
	}
	found := jr.numRelRet
	for i := jr.numRet(); i > 0 && found > 0; i-- {
		for c >= 0 && i == cut[c] {
			out[c] = float64(found) / float64(i)
			c--
		}
		if jr.relevant(i - 1) {
			found--
		}
	}
	return out
}

// atCutoffs calls at(k, i) for each cutoff k, with i the number of ranks
// seen so far (k, or the whole ranking when it is shorter), after step has
// been called on each of those ranks. cutoffs are sorted increasingly.
func (jr judgedRanking) atCutoffs(cutoffs []int, step func(i int), at func(k, seen int) float64) []float64 {
	out := make([]float64, len(cutoffs))
	c := 0
	for i := 0; i < jr.numRet() && c < len(cutoffs); i++ {
		for c < len(cutoffs) && i == cutoffs[c] {
			out[c] = at(cutoffs[c], i)
			c++
		}
		if c == len(cutoffs) {
			break
		}
		step(i)
	}
	for ; c < len(cutoffs); c++ {
		out[c] = at(cutoffs[c], jr.numRet())
	}
	return out
}

// mapAtCutoffs is trec_eval's map_cut: AP over the first k ranks,
// normalised by R.
func (jr judgedRanking) mapAtCutoffs(cutoffs []int) []float64 {
	if jr.numRel == 0 {
		return make([]float64, len(cutoffs))
	}
	sum, found := 0.0, 0
	return jr.atCutoffs(cutoffs, func(i int) {
		if jr.relevant(i) {
			found++
			sum += float64(found) / float64(i+1)
		}
	}, func(int, int) float64 { return sum / float64(jr.numRel) })
}

// relativePrecision is trec_eval's relative_P: relevant documents in the
// first k over min(k, R).
func (jr judgedRanking) relativePrecision(cutoffs []int) []float64 {
	if jr.numRel == 0 {
		return make([]float64, len(cutoffs))
	}
	found := 0
	return jr.atCutoffs(cutoffs, func(i int) {
		if jr.relevant(i) {
			found++
		}
	}, func(k, _ int) float64 { return float64(found) / float64(min(k, jr.numRel)) })
}

// unjudgedAt is trec_eval's unj: the share of the first k ranks that hold
// a document without a judgment.
func (jr judgedRanking) unjudgedAt(cutoffs []int) []float64 {
	unj := 0
	return jr.atCutoffs(cutoffs, func(i int) {
		if jr.grades[i] < 0 {
			unj++
		}
	}, func(k, _ int) float64 { return float64(unj) / float64(k) })
}

// binG is trec_eval's binary G: the mean over relevant documents of
// 1/log2(2 + non-relevant documents ranked above it).
func (jr judgedRanking) binG() float64 {
	sum, found := 0.0, 0
	for i := range jr.grades {
		if jr.relevant(i) {
			found++
			sum += 1 / math.Log2(float64(3+i-found))
		}
	}
	if found == 0 {
		return 0
	}
	return sum / float64(jr.numRel)
}

// utility is trec_eval's linear set utility with coefficients for
// relevant retrieved, non-relevant retrieved, relevant missed and
// non-relevant missed (the last over a collection of size 0, trec_eval's
// default).
// utility is trec_eval's utility with coefficients c over the contingency
// table; the non-relevant documents not retrieved are counted from the
// collection size numDocs (trec_eval -N, 0 by default), as trec_eval does.
func (jr judgedRanking) utility(c []float64, numDocs int) float64 {
	ret, rr, r := float64(jr.numRet()), float64(jr.numRelRet), float64(jr.numRel)
	return c[0]*rr + c[1]*(ret-rr) + c[2]*(r-rr) + c[3]*float64(numDocs+jr.numRelRet-jr.numRet()-jr.numRel)
}

func (jr judgedRanking) setRelativeP() float64 {
	if jr.numRet() == 0 || jr.numRel == 0 {
		return 0
	}
	return float64(jr.numRelRet) / float64(min(jr.numRet(), jr.numRel))
}

func (jr judgedRanking) setMAP() float64 {
	if jr.numRet() == 0 || jr.numRel == 0 {
		return 0
	}
	rr := float64(jr.numRelRet)
	return rr * rr / (float64(jr.numRet()) * float64(jr.numRel))
}

// setF is the weighted harmonic mean of set precision and set recall,
// recall weighted beta.
func (jr judgedRanking) setF(beta float64) float64 {
	if jr.numRelRet == 0 {
		return 0
	}
	p := float64(jr.numRelRet) / float64(jr.numRet())
	r := float64(jr.numRelRet) / float64(jr.numRel)
	return (beta + 1) * p * r / (beta*p + r)
}

func (jr judgedRanking) numNonrelJudgedRet() float64 {
	return float64(jr.numRet() - jr.numNotPool - jr.numUnjRet - jr.numRelRet)
}

// rbpResidual is the most rank-biased precision could grow if every
// unjudged document retrieved were relevant and the ranking went on with
// relevant documents forever.
func (jr judgedRanking) rbpResidual(p float64) float64 {
	sum, cur, unj := 0.0, 1.0, 0
	for _, g := range jr.grades {
		if g < 0 {
			unj++
			sum += cur
		}
		cur *= p
	}
	if unj == 0 {
		return 0
	}
	return cur + (1-p)*sum
}

// relString is trec_eval's relstring: one character per rank for the
// first n ranks: the grade 0-9, '>' above 9, '-' not in the qrels, '.'
// pooled but unjudged.
func (jr judgedRanking) relString(n int) string {
	var b strings.Builder
	for i := 0; i < min(n, jr.numRet()); i++ {
		switch g := jr.grades[i]; {
		case g > 9:
			b.WriteByte('>')
		case g >= 0:
			b.WriteByte(byte('0' + g))
		case g == relNotPooled:
			b.WriteByte('-')
		default:
			b.WriteByte('.')
		}
	}
	return b.String()
}

// gainLevel is the gain of one grade and how many judged documents have it.
type gainLevel struct {
	grade int
	gain  float64
	count int
}

// gainTable holds the gain of each grade for the graded measures: the
// grade itself unless a parameter "grade=gain" says otherwise, sorted by
// increasing gain.
type gainTable []gainLevel

func newGainTable(jr judgedRanking, params []gainParam) gainTable {
	var gt gainTable
	for _, p := range params {
		if grade, ok := p.grade(); ok {
			gt = append(gt, gainLevel{grade: grade, gain: p.gain})
		}
	}
	for g, n := range jr.levels {
		if i := slices.IndexFunc(gt, func(l gainLevel) bool { return l.grade == g }); i >= 0 {
			gt[i].count = n
		} else {
			gt = append(gt, gainLevel{grade: g, gain: float64(g), count: n})
		}
	}
	// trec_eval compares gains by the integer part of their difference.
	slices.SortStableFunc(gt, func(a, b gainLevel) int { return int(a.gain - b.gain) })
	return gt
}

func (gt gainTable) gain(grade int) float64 {
	for _, l := range gt {
		if l.grade == grade {
			return l.gain
		}
	}
	return 0
}

// trecIdealGains yields the gains of the ideal ranking, best first, while
// they are positive.
type trecIdealGains struct {
	gt    gainTable
	level int
	n     int
	gain  float64
}

func newIdealGains(gt gainTable) *trecIdealGains {
	ig := &trecIdealGains{gt: gt, level: len(gt) - 1}
	if ig.level >= 0 {
		ig.gain = gt[ig.level].gain
	}
	return ig
}

// next moves to the next rank of the ideal ranking and returns its gain.
func (ig *trecIdealGains) next() float64 {
	ig.n++
	for ig.level >= 0 && ig.n > ig.gt[ig.level].count {
		ig.n = 1
		ig.level--
		ig.gain = 0
		if ig.level >= 0 {
			ig.gain = ig.gt[ig.level].gain
		}
	}
	return ig.gain
}

// dcg returns the DCG of the ranking and of the ideal ranking, with
// trec_eval's log2(rank+1) discount.
func (jr judgedRanking) dcg(gt gainTable) (dcg, ideal float64) {
	ig := newIdealGains(gt)
	i := 0
	for ; i < jr.numRet() && ig.gain > 0; i++ {
		if g := gt.gain(jr.grades[i]); g != 0 {
			dcg += g / math.Log2(float64(i+2))
		}
		if g := ig.next(); g > 0 {
			ideal += g / math.Log2(float64(i+2))
		}
	}
	for ; i < jr.numRet(); i++ {
		if g := gt.gain(jr.grades[i]); g != 0 {
			dcg += g / math.Log2(float64(i+2))
		}
	}
	for ; ig.gain > 0; i++ {
		if g := ig.next(); g > 0 {
			ideal += g / math.Log2(float64(i+2))
		}
	}
	return dcg, ideal
}

func (jr judgedRanking) ndcg(gt gainTable) float64 {
	d, ideal := jr.dcg(gt)
	if ideal > 0 {
		return d / ideal
	}
	return 0
}

// ndcgRel is trec_eval's ndcg_rel: nDCG averaged over the ranks of the
// relevant documents (gain > 0), a missed one counting nDCG at the end of
// the ranking.
func (jr judgedRanking) ndcgRel(gt gainTable) float64 {
	ig := newIdealGains(gt)
	var dcg, ideal, sum float64
	numRel, numRelRet := 0, 0
	i := 0
	for ; i < jr.numRet() && ig.gain > 0; i++ {
		g := gt.gain(jr.grades[i])
		if g != 0 {
			dcg += g / math.Log2(float64(i+2))
		}
		if ideal0 := ig.next(); ideal0 > 0 {
			numRel++
			ideal += ideal0 / math.Log2(float64(i+2))
		}
		if g > 0 {
			sum += dcg / ideal
			numRelRet++
		}
	}
	for ; i < jr.numRet(); i++ {
		g := gt.gain(jr.grades[i])
		if g != 0 {
			dcg += g / math.Log2(float64(i+2))
		}
		if g > 0 {
			sum += dcg / ideal
			numRelRet++
		}
	}
	for ; ig.gain > 0; i++ {
		if g := ig.next(); g > 0 {
			numRel++
			ideal += g / math.Log2(float64(i+2))
		}
	}
	sum += float64(numRel-numRelRet) * dcg / ideal
	if sum > 0 {
		return sum / float64(numRel)
	}
	return 0
}

// rndcg is trec_eval's Rndcg: nDCG averaged at the ranks where the ideal
// ranking's gain changes, and at the end of the ranking.
func (jr judgedRanking) rndcg(gt gainTable) float64 {
	if jr.numRel == 0 {
		return 0
	}
	ig := newIdealGains(gt)
	old := ig.gain
	var dcg, ideal, sum float64
	changes := 0
	mark := func() {
		if ig.gain != old {
			if ideal > 0 {
				sum += dcg / ideal
				changes++
			}
			old = ig.gain
		}
	}
	i := 0
	for ; i < jr.numRet() && ig.gain > 0; i++ {
		g := gt.gain(jr.grades[i])
		ig.next()
		mark()
		if g != 0 {
			dcg += g / math.Log2(float64(i+2))
		}
		if ig.gain > 0 {
			ideal += ig.gain / math.Log2(float64(i+2))
		}
	}
	if i < jr.numRet() {
		for ; i < jr.numRet(); i++ {
			if g := gt.gain(jr.grades[i]); g != 0 {
				dcg += g / math.Log2(float64(i+2))
			}
		}
		if ideal > 0 {
			sum += dcg / ideal
			changes++
		}
	}
	for ; ig.gain > 0; i++ {
		ig.next()
		mark()
		if ig.gain > 0 {
			ideal += ig.gain / math.Log2(float64(i+2))
		}
	}
	return sum / float64(changes)
}

// g is trec_eval's normalized gain G.
func (jr judgedRanking) g(gt gainTable) float64 {
	ig := newIdealGains(gt)
	const minCost = 1.0
	var sumResults, sumIdeal, sumCost, result float64
	i := 0
	for ; i < jr.numRet() && ig.gain > 0; i++ {
		gain := gt.gain(jr.grades[i])
		sumResults += gain
		ideal := ig.next()
		if ideal > 0 {
			sumIdeal += ideal
		}
		sumCost += max(ideal, minCost)
		if gain != 0 {
			result += gain / math.Log2(2+sumCost-sumResults)
		}
	}
	for ; i < jr.numRet(); i++ {
		gain := gt.gain(jr.grades[i])
		sumResults += gain
		sumCost += minCost
		if gain != 0 {
			result += gain / math.Log2(2+sumCost-sumResults)
		}
	}
	for ig.gain > 0 {
		if g := ig.next(); g > 0 {
			sumIdeal += g
		}
	}
	if sumIdeal > 0 {
		return result / sumIdeal
	}
	return 0
}

// rbp is Moffat and Zobel's rank-biased precision with persistence p,
// gains rescaled to [0, 1] when they leave it.
func (jr judgedRanking) rbp(gt gainTable, p float64) float64 {
	gt = slices.Clone(gt)
	if len(gt) > 0 {
		lo, hi := gt[0].gain, gt[0].gain
		for _, l := range gt {
			lo, hi = min(lo, l.gain), max(hi, l.gain)
		}
		if lo < 0 || hi > 1 {
			for i := range gt {
				gt[i].gain = (gt[i].gain - lo) / (hi - lo)
			}
		}
	}
	sum, cur := 0.0, 1.0
	for _, grade := range jr.grades {
		if g := gt.gain(grade); g != 0 {
			sum += g * cur
		}
		cur *= p
	}
	return (1 - p) * sum
}

// gainParam is one "name=value" parameter of a graded measure: a grade
// and its gain, or for rbp and rbp_resid the persistence "p".
type gainParam struct {
	name string
	gain float64
}

// grade returns the grade a parameter names, if its name is an integer
// (optionally signed); other names (such as rbp's "p") set no gain.
func (p gainParam) grade() (int, bool) {
	digits := strings.TrimLeft(p.name, "+-")
	if len(p.name)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	g, err := strconv.Atoi(p.name)
	return g, err == nil
}

// persistence returns the "p" parameter, or trec_eval's default 0.9.
func persistence(params []gainParam) float64 {
	p := 0.9
	for _, x := range params {
		if x.name == "p" {
			p = x.gain
		}
	}
	return p
}
