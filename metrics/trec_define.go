package metrics

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// trecDefinitions defines every measure of trecMeasures, in our words; R
// is the number of relevant judged documents, "relevant" means a grade of
// at least the level (-l), and a ranking is the run's documents after -M
// and -J.
var trecDefinitions = map[string]string{
	"runid":       "The run id of the run file (the sixth field of its last line). Summary only.",
	"num_q":       "Queries evaluated: those of the qrels (all of them, with -c). Summary only.",
	"num_ret":     "Documents in the ranking. The summary is the sum over queries.",
	"num_rel":     "R, the documents judged relevant, retrieved or not. The summary is the sum; under -c it counts every grade above 0 in the qrels, whatever the level.",
	"num_rel_ret": "Relevant documents in the ranking. The summary is the sum.",
	"map":         "Average precision: the sum of the precision at the rank of each relevant document retrieved, divided by R (a relevant document not retrieved adds 0).",
	"gm_map":      "Average precision combined over queries by a geometric mean, each value floored at 0.00001; rewards consistency. Summary only.",
	"Rprec":       "Precision among the first R documents.",
	"bpref":       "Binary preference: for each relevant document retrieved, 1 minus the share of judged non-relevant documents ranked above it (at most R of them counted, divided by the smaller of R and the number of judged non-relevant documents); summed and divided by R. Unjudged documents are ignored.",
	"recip_rank":  "1 / the rank of the first relevant document; 0 when none is retrieved.",
	"iprec_at_recall": "Interpolated precision at recall levels (parameters, default 0, .1, ..., 1): the highest precision at any rank " +
		"where recall is at least the level. One figure per level.",
	"P":                       "Precision at rank cutoffs k (default 5, 10, 15, 20, 30, 100, 200, 500, 1000): relevant among the first k / k; a shorter ranking is padded with non-relevant documents.",
	"relstring":               "The grades of the first N documents (parameter, default 10), one character each: the digit for 0 to 9, '>' above 9, '-' not judged, '.' judged with a negative grade (in the pool but unjudged), '<' other. Per query only.",
	"recall":                  "Recall at rank cutoffs k (default as P): relevant among the first k / R.",
	"infAP":                   "Inferred average precision (Yilmaz and Aslam): average precision estimated when only a random sample of the pool is judged; documents judged -1 are pooled but unjudged. Equal to map when judgments are complete.",
	"gm_bpref":                "bpref combined over queries by a geometric mean, each value floored at 0.00001. Summary only.",
	"Rprec_mult":              "Precision among the first m*R documents, for multiples m (parameters, default 0.2, 0.4, ..., 2.0). One figure per multiple.",
	"utility":                 "Set utility p1*a + p2*b + p3*c + p4*d for coefficients p1..p4 (parameters, default 1,-1,0,0): a relevant retrieved, b non-relevant retrieved, c relevant not retrieved, d non-relevant not retrieved.",
	"11pt_avg":                "The mean of the interpolated precision at the recall levels given (parameters, default the 11 levels 0, .1, ..., 1).",
	"binG":                    "Binary G: for each relevant document retrieved, 1 / log2(2 + non-relevant documents ranked above it); summed and divided by R.",
	"G":                       "Normalized gain: each document's gain divided by log2(2 + the ideal cumulated gain at its rank minus the cumulated gain before it), summed and divided by the total ideal gain. Gains default to the grades; parameters level=gain override them.",
	"dcg":                     "Discounted cumulative gain: the sum of gain / log2(rank + 1) over the ranking. Gains default to the grades; parameters level=gain override them.",
	"ideal_dcg":               "The DCG of the ideal ranking: every judged document with a positive gain, by decreasing gain.",
	"ndcg":                    "dcg / ideal_dcg over the whole ranking (Jarvelin and Kekalainen). Ignores the level. Gains default to the grades; parameters level=gain override them.",
	"ndcg_rel":                "nDCG averaged over the relevant documents (positive gain): at the rank of each one retrieved, and at the end of the ranking for each one not retrieved.",
	"Rndcg":                   "nDCG averaged at the R levels: the counts of judged documents at each gain level and above, by decreasing gain, and the end of the ranking.",
	"ndcg_cut":                "nDCG at rank cutoffs k (default as P): DCG of the first k / ideal DCG of k documents. Gains are the grades; ignores the level.",
	"map_cut":                 "Average precision at rank cutoffs k (default as P): the sum of the precision at the relevant ranks up to k, divided by R.",
	"relative_P":              "Precision at rank cutoffs k relative to the best possible: relevant among the first k / min(k, R).",
	"success":                 "1 when a relevant document is among the first k, else 0, at cutoffs k (default 1, 5, 10).",
	"set_P":                   "Relevant retrieved / retrieved: precision of the whole ranking, unpadded.",
	"set_relative_P":          "Set precision relative to the best possible for a set of that size: relevant retrieved / min(retrieved, R).",
	"set_recall":              "Relevant retrieved / R.",
	"set_map":                 "Set precision times set recall: relevant retrieved squared / (retrieved * R).",
	"set_F":                   "Weighted harmonic mean of set precision P and set recall Rc: (b+1)*P*Rc / (Rc + b*P), b the parameter (default 1).",
	"num_nonrel_judged_ret":   "Documents retrieved that are judged and not relevant. The summary is the sum.",
	"prefs_num_prefs_poss":    "Preferences the judgments state (-R prefs or qrels_prefs): pairs a judgment group orders, implied ones included, whether or not the documents were retrieved. The summary is the sum.",
	"prefs_num_prefs_ful":     "Preferences the ranking fulfils: both documents retrieved in the preferred order, or only the preferred one retrieved. The summary is the sum.",
	"prefs_num_prefs_ful_ret": "Preferences fulfilled with both documents retrieved. The summary is the sum.",
	"prefs_simp":              "Preferences fulfilled / preferences stated; a pair neither of whose documents was retrieved counts as a failure.",
	"prefs_pair":              "The mean over document pairs that some judgment group orders of the share of those groups' preferences the ranking fulfils.",
	"prefs_avgjg":             "Preferences fulfilled / stated within each judgment group, averaged over the groups, so that a group with many preferences does not outweigh the others.",
	"prefs_avgjg_Rnonrel":     "prefs_avgjg as if each group had judged as many non-relevant documents as relevant ones (R): with fewer, each relevant document retrieved also beats the missing ones; with more, only the first R non-relevant documents count.",
	"prefs_simp_ret":          "prefs_simp over the pairs with both documents retrieved.",
	"prefs_pair_ret":          "prefs_pair over the pairs with both documents retrieved.",
	"prefs_avgjg_ret":         "prefs_avgjg over the pairs with both documents retrieved.",
	"prefs_avgjg_Rnonrel_ret": "prefs_avgjg_Rnonrel over the retrieved documents: R and the non-relevant documents counted are those retrieved.",
	"prefs_simp_imp":          "prefs_simp over the pairs with at least one document retrieved.",
	"prefs_pair_imp":          "prefs_pair over the pairs with at least one document retrieved.",
	"prefs_avgjg_imp":         "prefs_avgjg over the pairs with at least one document retrieved.",
	"map_avgjg":               "Average precision against each judgment group's judgments (-R qrels_jg), averaged over the groups of the query.",
	"P_avgjg":                 "Precision at rank cutoffs k (default as P) against each judgment group's judgments (-R qrels_jg), averaged over the groups.",
	"Rprec_mult_avgjg":        "Rprec_mult against each judgment group's judgments (-R qrels_jg), averaged over the groups; multiples default to 0.2, 0.4, ..., 2.0.",
	"yaap":                    "Robertson's yet another average precision: log((1 + S) / (1 + R - S)), S the sum of the precision at the rank of each relevant document retrieved; finite where map is 0 or 1, so it averages more evenly. Not in all_trec.",
	"rbp":                     "Rank-biased precision (Moffat and Zobel): (1 - p) times the sum of gain * p^(rank-1) over the ranking, persistence p=0.9 by default (parameter p=VALUE); gains are the grades or level=gain parameters, rescaled to [0, 1] when one lies outside it.",
	"rbp_resid":               "The residual of rbp: how much rbp could grow if every unjudged document retrieved were relevant and the ranking went on with relevant documents forever; 0 when every document retrieved is judged.",
	"unj":                     "Share of unjudged documents among the first k, at cutoffs k (default 5, 10, 20); a shorter ranking is padded with judged documents.",
}

// TRECMeasureDefinition returns the definition of a trec_eval measure,
// by root name ("P", "ndcg_cut"), and whether the name is known.
func TRECMeasureDefinition(name string) (string, bool) {
	d, ok := trecDefinitions[name]
	return d, ok
}

// WriteTRECDefinitions writes the name and definition of each measure
// named, in trec_eval's print order, each definition wrapped to width
// columns under its name, for "trec -h". With no names it writes every
// measure.
func WriteTRECDefinitions(w io.Writer, names []string, width int) error {
	bw := bufio.NewWriter(w)
	for _, m := range trecMeasures {
		if names != nil && !containsString(names, m.name) {
			continue
		}
		fmt.Fprintln(bw, m.name)
		for _, l := range wrapText(trecDefinitions[m.name], width-4) {
			fmt.Fprintln(bw, "    "+l)
		}
	}
	return bw.Flush()
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// wrapText breaks text at spaces into lines of at most width characters;
// a longer word stays whole.
func wrapText(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
