package metrics

// The preference measures of trec_eval (its "prefs" and "all_prefs"
// sets), over the counts of formPrefCounts. "ful" is preferences
// fulfilled, "poss" preferences possible; _ret counts only pairs with both
// documents retrieved, _imp also pairs with one retrieved (an implied
// preference: a retrieved document beats one not retrieved), and the plain
// measures also pairs with neither retrieved, which count as failures.

// prefTotals sums the counts of every group.
func (pc *prefCounts) prefTotals() (fulRet, fulImp, possRet, possImp, possNot int) {
	for _, g := range pc.groups {
		fulRet += g.fulRet
		fulImp += g.fulImp
		possRet += g.possRet
		possImp += g.possImp
		possNot += g.possNotOccur
	}
	return
}

// prefRatio is ful / poss, 0 when nothing is possible.
func prefRatio(ful, poss int) float64 {
	if poss == 0 {
		return 0
	}
	return float64(ful) / float64(poss)
}

// prefPairs averages, over document pairs that some group orders, the
// share of the groups' preferences that the ranking fulfils: pairs of
// retrieved documents, with imp also pairs of one retrieved document and
// one not, and with all also pairs of two documents not retrieved (which
// fulfil nothing).
func (pc *prefCounts) prefPairs(imp, all bool) float64 {
	c, nr, n := pc.counts, pc.judgedRet, pc.judged
	sum, pairs := 0.0, 0
	add := func(i, j int, score bool) {
		if c[i][j] != 0 || c[j][i] != 0 {
			pairs++
			if score {
				sum += float64(c[i][j]) / float64(c[i][j]+c[j][i])
			}
		}
	}
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			add(i, j, true)
		}
	}
	if imp {
		for i := range nr {
			for j := nr; j < n; j++ {
				add(i, j, true)
			}
		}
	}
	if all {
		for i := nr; i < n; i++ {
			for j := i + 1; j < n; j++ {
				add(i, j, false)
			}
		}
	}
	if pairs == 0 {
		return 0
	}
	return sum / float64(pairs)
}

// prefAvgJG averages ful/poss over the groups, a group with nothing
// possible adding 0; trec_eval leaves the figure 0 unless the sum is
// positive.
func (pc *prefCounts) prefAvgJG(ratio func(g *prefGroup) (ful, poss int)) float64 {
	sum := 0.0
	for i := range pc.groups {
		if ful, poss := ratio(&pc.groups[i]); poss != 0 {
			sum += float64(ful) / float64(poss)
		}
	}
	if sum > 0 {
		return sum / float64(len(pc.groups))
	}
	return 0
}

// prefAvgJGRnonrel is prefs_avgjg_Rnonrel (retOnly false) or
// prefs_avgjg_Rnonrel_ret (true): prefs_avgjg as if each group had judged
// as many non-relevant documents as relevant ones, R. With fewer than R
// non-relevant documents, each relevant one retrieved is counted as
// beating the missing ones; with more, only the first R non-relevant
// documents (by docid rank) count, and the preferences are counted again.
// The arithmetic, including the cases where trec_eval divides 0 by 0
// (which leave the figure 0), is trec_eval's.
func (pc *prefCounts) prefAvgJGRnonrel(retOnly bool) float64 {
	sum := 0.0
	for i := range pc.groups {
		g := &pc.groups[i]
		r, n := g.numRel, g.numNonrel
		if retOnly {
			r, n = g.numRelRet, g.numNonrelRet
		}
		var ful, poss int
		switch {
		case r >= n && retOnly:
			ful = g.fulRet + g.numRelRet*(r-n)
			poss = g.possRet + g.numRel*(r-n)
		case r >= n:
			ful = g.fulRet + g.fulImp + g.numRelRet*(r-n)
			poss = g.possRet + g.possImp + g.possNotOccur + g.numRel*(r-n)
		default:
			ful, poss = pc.recountRnonrel(g, retOnly)
		}
		sum += float64(ful) / float64(poss)
	}
	if sum > 0 {
		return sum / float64(len(pc.groups))
	}
	return 0
}

// recountRnonrel counts a group's preferences again keeping only its first
// R non-relevant documents, for prefAvgJGRnonrel.
func (pc *prefCounts) recountRnonrel(g *prefGroup, retOnly bool) (ful, poss int) {
	nr := pc.judgedRet
	if g.ecs != nil {
		// The last class holds the non-relevant documents; keep its first
		// R (R retrieved with retOnly), in docid-rank order.
		keep := g.numRel
		if retOnly {
			keep = g.numRelRet
		}
		last := g.ecs[len(g.ecs)-1].ranks
		nonrel := last[:min(keep, len(last))]
		// With retOnly, trec_eval stops a class at its first document not
		// retrieved; the ranks of a class are in increasing order.
		retrieved := func(ranks []int) []int {
			if !retOnly {
				return ranks
			}
			k := 0
			for k < len(ranks) && ranks[k] < nr {
				k++
			}
			return ranks[:k]
		}
		count := func(a, b []int) {
			for _, r1 := range retrieved(a) {
				for _, r2 := range retrieved(b) {
					if r1 < r2 && (retOnly || r1 < nr) {
						ful++
					} else {
						poss++
					}
				}
			}
		}
		// Pairs of classes but the last, then every class (the last one
		// too, as trec_eval does) against the kept non-relevant documents.
		for c1 := range g.ecs {
			for c2 := c1 + 1; c2 < len(g.ecs)-1; c2++ {
				count(g.ecs[c1].ranks, g.ecs[c2].ranks)
			}
		}
		for c1 := range g.ecs {
			count(g.ecs[c1].ranks, nonrel)
		}
		return ful, poss + ful
	}

	// A preference array: drop the non-relevant documents after the first
	// R (R = all relevant documents, also with retOnly, as trec_eval has
	// it), searched among the retrieved ones with retOnly.
	n := pc.judged
	limit := n
	if retOnly {
		limit = nr
	}
	first, seen := 0, 0
	for first = 0; first < limit; first++ {
		if g.rel[first] == 0 {
			seen++
			if seen == g.numRel+1 {
				break
			}
		}
	}
	dropped := func(i int) bool { return i >= first && g.rel[i] == 0 }
	for i := range n {
		if dropped(i) || retOnly && i >= nr {
			continue
		}
		for j := range n {
			if dropped(j) || !g.pa[i][j] || retOnly && j >= nr {
				continue
			}
			switch {
			case i < nr && j < nr && j < i, i >= nr && j < nr, i >= nr:
				poss++
			default:
				ful++
			}
		}
	}
	return ful, poss + ful
}
