package metrics

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A PrefJudgment is one line of a preferences file (trec_eval -R prefs):
// a judgment group (a user) gives a document a level within a judgment
// subgroup. Within one subgroup, a document with a higher level is
// preferred to every document with a lower one; the levels mean nothing
// else, except that a level above 0 also marks the document relevant.
// Subgroups of one group join into one consistent preference relation
// (with the preferences they imply); groups are independent.
type PrefJudgment struct {
	Group, Subgroup, Doc string
	Level                float64
}

// Prefs holds the preference judgments of each query, in file order.
type Prefs map[string][]PrefJudgment

// ParsePrefs reads a preferences file as trec_eval -R prefs does: five
// fields a line separated by white space,
//
//	query  group  subgroup  document  level
//
// with the level a decimal number (read as a score is, see ParseTRECRun).
// Blank lines and lines starting with '#' are skipped.
func ParsePrefs(r io.Reader, name string) (Prefs, error) {
	return parsePrefs(r, name, 5)
}

// ParseQrelsPrefs reads a qrels file as preferences, as trec_eval -R
// qrels_prefs does: the iteration field is the judgment group, every line
// is in one subgroup, and the relevance is the level, so that each
// relevant document is preferred to every document judged less relevant.
func ParseQrelsPrefs(r io.Reader, name string) (Prefs, error) {
	return parsePrefs(r, name, 4)
}

func parsePrefs(r io.Reader, name string, fields int) (Prefs, error) {
	prefs := Prefs{}
	err := eachLine(r, name, func(n int, f []string) error {
		if len(f) != fields {
			if fields == 5 {
				return fmt.Errorf("%w: want 5 fields (query group subgroup document level), got %d", ErrMalformedLine, len(f))
			}
			return fmt.Errorf("%w: want 4 fields (query group document level), got %d", ErrMalformedLine, len(f))
		}
		p := PrefJudgment{Group: f[1], Subgroup: "0", Doc: f[2]}
		level := f[3]
		if fields == 5 {
			p.Subgroup, p.Doc, level = f[2], f[3], f[4]
		}
		x, err := parseTRECFloat("level", level)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformedLine, err)
		}
		p.Level = x
		prefs[f[0]] = append(prefs[f[0]], p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return prefs, nil
}

// ErrInconsistentPrefs is wrapped by the error of EvaluateTREC for a
// judgment group whose preferences contradict each other (trec_eval
// aborts there).
var ErrInconsistentPrefs = errors.New("inconsistent preferences")

// prefGroup is the preferences of one judgment group against one ranking,
// counted as trec_eval counts them. Documents are numbered by docid rank:
// the judged documents retrieved first, in ranking order (0 … judgedRet-1),
// then the judged documents not retrieved.
type prefGroup struct {
	// ecs are the equivalence classes of a group with one subgroup, by
	// decreasing level, each with its docid ranks in increasing order;
	// nil when the group has several subgroups and uses pa.
	ecs []prefEC
	// pa[i][j] is true when docid rank i is preferred to j, implied
	// preferences included; rel[i] is the level of i, -1 when the group
	// does not judge it.
	pa  [][]bool
	rel []float64

	fulRet, possRet, fulImp, possImp, possNotOccur int
	numRel, numRelRet, numNonrel, numNonrelRet     int
}

type prefEC struct {
	level float64
	ranks []int
}

// prefCounts is the preferences of one query against one ranking.
type prefCounts struct {
	groups            []prefGroup
	judged, judgedRet int
	counts            [][]int // counts[i][j]: groups that prefer i to j
}

// formPrefCounts numbers the judged documents and counts every group's
// preferences fulfilled and possible, retrieved, implied (one document
// retrieved) and not occurring (neither retrieved).
func formPrefCounts(ranked []string, prefs []PrefJudgment) (*prefCounts, error) {
	judged := map[string]bool{}
	for _, p := range prefs {
		judged[p.Doc] = true
	}
	rank := map[string]int{}
	for _, d := range ranked {
		if judged[d] {
			if _, dup := rank[d]; !dup {
				rank[d] = len(rank)
			}
		}
	}
	pc := &prefCounts{judgedRet: len(rank)}
	// Judged documents not retrieved follow, in document-id order.
	var rest []string
	for d := range judged {
		if _, ok := rank[d]; !ok {
			rest = append(rest, d)
		}
	}
	slices.Sort(rest)
	for _, d := range rest {
		rank[d] = len(rank)
	}
	pc.judged = len(rank)
	pc.counts = make([][]int, pc.judged)
	for i := range pc.counts {
		pc.counts[i] = make([]int, pc.judged)
	}

	type withRank struct {
		PrefJudgment
		rank int
	}
	rs := make([]withRank, len(prefs))
	for i, p := range prefs {
		rs[i] = withRank{p, rank[p.Doc]}
	}
	slices.SortFunc(rs, func(a, b withRank) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Subgroup, b.Subgroup),
			cmp.Compare(b.Level, a.Level), cmp.Compare(a.rank, b.rank))
	})
	for start := 0; start < len(rs); {
		end := start
		subgroups := 0
		for end < len(rs) && rs[end].Group == rs[start].Group {
			if end == start || rs[end].Subgroup != rs[end-1].Subgroup {
				subgroups++
			}
			end++
		}
		var g prefGroup
		if subgroups > 1 {
			g.pa = make([][]bool, pc.judged)
			for i := range g.pa {
				g.pa[i] = make([]bool, pc.judged)
			}
			g.rel = make([]float64, pc.judged)
			for i := range g.rel {
				g.rel[i] = -1
			}
			group := rs[start:end]
			for i, p := range group {
				if r := g.rel[p.rank]; r > 0 && p.Level == 0 || r == 0 && p.Level > 0 {
					return nil, fmt.Errorf("%w: judgment group %q gives document %q both level 0 and a level above 0", ErrInconsistentPrefs, p.Group, p.Doc)
				}
				g.rel[p.rank] = p.Level
				j := i + 1
				for j < len(group) && group[j].Subgroup == p.Subgroup && group[j].Level == p.Level {
					j++
				}
				for ; j < len(group) && group[j].Subgroup == p.Subgroup; j++ {
					g.pa[p.rank][group[j].rank] = true
				}
			}
			if err := closePrefs(g.pa, rs[start].Group); err != nil {
				return nil, err
			}
			pc.countArray(&g)
		} else {
			for _, p := range rs[start:end] {
				if n := len(g.ecs); n == 0 || g.ecs[n-1].level != p.Level {
					g.ecs = append(g.ecs, prefEC{level: p.Level})
				}
				ec := &g.ecs[len(g.ecs)-1]
				ec.ranks = append(ec.ranks, p.rank)
			}
			if err := pc.countClasses(&g, rs[start].Group); err != nil {
				return nil, err
			}
		}
		pc.groups = append(pc.groups, g)
		start = end
	}
	return pc, nil
}

// closePrefs adds to pa every preference its preferences imply (the
// transitive closure) and checks that no two documents are preferred to
// each other.
func closePrefs(pa [][]bool, group string) error {
	n := len(pa)
	for k := range n {
		for i := range n {
			if !pa[i][k] && i != k {
				continue
			}
			for j := range n {
				if pa[k][j] {
					pa[i][j] = true
				}
			}
		}
	}
	for i := range n {
		pa[i][i] = false
	}
	for i := range n {
		for j := range n {
			if i != j && pa[i][j] && pa[j][i] {
				return fmt.Errorf("%w: judgment group %q prefers two documents to each other", ErrInconsistentPrefs, group)
			}
		}
	}
	return nil
}

// countClasses counts the preferences of a group of equivalence classes:
// every document of a class is preferred to every document of each later
// (lower) class.
func (pc *prefCounts) countClasses(g *prefGroup, group string) error {
	nr := pc.judgedRet
	for c1, ec := range g.ecs {
		ret := 0
		for _, r := range ec.ranks {
			if r >= nr {
				break
			}
			ret++
		}
		if ec.level > 0 {
			g.numRelRet += ret
			g.numRel += len(ec.ranks)
		} else {
			g.numNonrelRet += ret
			g.numNonrel += len(ec.ranks)
		}
		for _, ec2 := range g.ecs[c1+1:] {
			for _, r1 := range ec.ranks {
				for _, r2 := range ec2.ranks {
					pc.counts[r1][r2]++
					switch {
					case r1 == r2:
						return fmt.Errorf("%w: judgment group %q gives one document two levels in one subgroup", ErrInconsistentPrefs, group)
					case r1 < r2 && r2 < nr:
						g.fulRet++
					case r1 < r2 && r1 < nr:
						g.fulImp++
					case r1 < r2:
						g.possNotOccur++
					case r1 < nr:
						g.possRet++
					case r2 < nr:
						g.possImp++
					default:
						g.possNotOccur++
					}
				}
			}
		}
	}
	g.possRet += g.fulRet
	g.possImp += g.fulImp
	return nil
}

// countArray counts the preferences of a group's preference array by the
// areas of the array: both retrieved, one retrieved, neither.
func (pc *prefCounts) countArray(g *prefGroup) {
	nr, n := pc.judgedRet, pc.judged
	for i := range n {
		switch {
		case g.rel[i] > 0:
			g.numRel++
			if i < nr {
				g.numRelRet++
			}
		case g.rel[i] == 0:
			g.numNonrel++
			if i < nr {
				g.numNonrelRet++
			}
		}
	}
	for i := range n {
		for j := range n {
			if !g.pa[i][j] {
				continue
			}
			pc.counts[i][j]++
			switch {
			case i < nr && j < nr && j < i:
				g.possRet++
			case i < nr && j < nr:
				g.fulRet++
			case i < nr:
				g.fulImp++
			case j < nr:
				g.possImp++
			default:
				g.possNotOccur++
			}
		}
	}
	g.possRet += g.fulRet
	g.possImp += g.fulImp
}

// rankForPrefs ranks a query's documents as trec_eval's preference code
// does: by score, highest first, and equal scores by document id in
// increasing byte order, the reverse of RankByScore's tie order (trec_eval
// sorts the two ways in two places; its preference figures depend on it).
func rankForPrefs(docs []ScoredDoc) []string {
	sorted := slices.Clone(docs)
	slices.SortFunc(sorted, func(a, b ScoredDoc) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Doc, b.Doc))
	})
	ids := make([]string, len(sorted))
	for i, d := range sorted {
		ids[i] = d.Doc
	}
	return ids
}

// TRECRelevance is a relevance file read in one of the formats of
// trec_eval's -R: Qrels for "qrels", Groups for "qrels_jg", Prefs for
// "prefs" and "qrels_prefs".
type TRECRelevance struct {
	Qrels  Qrels
	Groups QrelsJG
	Prefs  Prefs
}

// TRECRelevanceFormats are the formats ParseTRECRelevance reads.
var TRECRelevanceFormats = []string{"qrels", "qrels_jg", "prefs", "qrels_prefs"}

// ParseTRECRelevance reads a relevance file in the named format (one of
// TRECRelevanceFormats).
func ParseTRECRelevance(r io.Reader, name, format string) (TRECRelevance, error) {
	var rel TRECRelevance
	var err error
	switch format {
	case "qrels":
		rel.Qrels, err = ParseQrels(r, name)
	case "qrels_jg":
		rel.Groups, err = ParseQrelsJG(r, name)
	case "prefs":
		rel.Prefs, err = ParsePrefs(r, name)
	case "qrels_prefs":
		rel.Prefs, err = ParseQrelsPrefs(r, name)
	default:
		err = fmt.Errorf("unknown relevance format %q; want %s", format, strings.Join(TRECRelevanceFormats, ", "))
	}
	return rel, err
}
