package metrics

import (
	"math"
	"slices"
)

// Judgments holds the relevance judgments of one query: document id to
// relevance grade, as in the fourth column of a qrels file.
//
// A document that is absent from the map is unjudged. Every measure treats
// an unjudged document as not relevant, exactly as trec_eval does. Grades are
// integers; trec_eval's convention is 0 for judged not relevant, positive
// grades for relevant documents (higher is better) and negative grades for
// documents that were pooled but not judged. Negative grades are never
// relevant and never add gain.
type Judgments map[string]int

// DefaultLevel is the relevance level trec_eval uses when -l is not given: a
// document is relevant when its grade is at least 1.
const DefaultLevel = 1

// Relevant reports whether doc is judged with a grade of at least level.
// A level below 0 is treated as 0 (trec_eval would start counting unjudged
// documents as relevant there, which no measure here means to do).
func (j Judgments) Relevant(doc string, level int) bool {
	g, ok := j[doc]
	return ok && g >= max(level, 0)
}

// NumRelevant returns R, the number of judged documents whose grade is at
// least level (trec_eval's num_rel for one query). Unlike the other measures
// it needs no ranking: R counts relevant documents whether or not they were
// retrieved.
func NumRelevant(rel Judgments, level int) int {
	n := 0
	for doc := range rel {
		if rel.Relevant(doc, level) {
			n++
		}
	}
	return n
}

// NumRelevantRetrieved returns the number of relevant documents (grade at
// least level) anywhere in ranked (trec_eval's num_rel_ret).
//
// Like every function over a ranked list in this file, it first drops
// repeated ids from ranked, keeping each id at its first position, so that
// a document found twice is counted once and the later documents move up one
// rank. trec_eval rejects such lists outright; ParseTRECRun does too.
func NumRelevantRetrieved(ranked []string, rel Judgments, level int) int {
	return relevantInTop(relevance(ranked, rel, level), len(ranked))
}

// PrecisionAt returns P@k, trec_eval's P_k: the number of relevant documents
// among the first k of ranked, divided by k.
//
// A list shorter than k is padded with non-relevant documents, not shortened:
// 4 relevant documents in a list of 15 give P@20 = 4/20 = 0.2. It returns 0
// when k < 1.
func PrecisionAt(ranked []string, rel Judgments, k, level int) float64 {
	return precisionAt(relevance(ranked, rel, level), k)
}

// The lower-case measures take flags, the relevance of each document of a
// ranking without repeats (relevance), so that Compute judges a ranking
// once for all its measures and cutoffs.

func precisionAt(flags []bool, k int) float64 {
	if k < 1 {
		return 0
	}
	return float64(relevantInTop(flags, k)) / float64(k)
}

// RecallAt returns Recall@k, trec_eval's recall_k: the number of relevant
// documents among the first k of ranked, divided by R = NumRelevant(rel,
// level). It returns 0 when R is 0 or k < 1.
func RecallAt(ranked []string, rel Judgments, k, level int) float64 {
	return recallAt(relevance(ranked, rel, level), k, NumRelevant(rel, level))
}

// recallAt is RecallAt with R given. Measures that divide by R take it from
// their caller in Compute, which counts it once per ranked list instead of
// once per measure and cutoff: with a large ground truth, counting it is the
// bulk of the work.
func recallAt(flags []bool, k, r int) float64 {
	if r == 0 || k < 1 {
		return 0
	}
	return float64(relevantInTop(flags, k)) / float64(r)
}

// SuccessAt returns Success@k, trec_eval's success_k: 1 if at least one of
// the first k documents of ranked is relevant, else 0. (Some tools call this
// "recall@k"; it is not recall.) It returns 0 when k < 1.
func SuccessAt(ranked []string, rel Judgments, k, level int) float64 {
	return successAt(relevance(ranked, rel, level), k)
}

func successAt(flags []bool, k int) float64 {
	if k < 1 || relevantInTop(flags, k) == 0 {
		return 0
	}
	return 1
}

// ReciprocalRank returns trec_eval's recip_rank: 1 divided by the 1-based
// rank of the first relevant document of ranked, with no cutoff, or 0 when no
// relevant document was retrieved.
func ReciprocalRank(ranked []string, rel Judgments, level int) float64 {
	return reciprocalRankAt(relevance(ranked, rel, level), math.MaxInt)
}

// ReciprocalRankAt returns RR@k: ReciprocalRank when the first relevant
// document is among the first k of ranked, else 0. trec_eval has no such
// measure (its recip_rank never truncates); it is here for reports that
// cap the ranks they look at. It returns 0 when k < 1.
func ReciprocalRankAt(ranked []string, rel Judgments, k, level int) float64 {
	return reciprocalRankAt(relevance(ranked, rel, level), k)
}

func reciprocalRankAt(flags []bool, k int) float64 {
	for i, ok := range flags {
		if i >= k {
			break
		}
		if ok {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// AveragePrecision returns trec_eval's map for one query (AP): the sum, over
// the ranks r that hold a relevant document, of P@r, divided by R =
// NumRelevant(rel, level). Relevant documents that were not retrieved add 0,
// so they lower AP through R. It returns 0 when R is 0.
func AveragePrecision(ranked []string, rel Judgments, level int) float64 {
	return averagePrecision(relevance(ranked, rel, level), NumRelevant(rel, level))
}

func averagePrecision(flags []bool, r int) float64 {
	if r == 0 {
		return 0
	}
	// Summed in rank order, as trec_eval does, so that the figure is the same
	// double and rounds the same way when printed.
	sum, found := 0.0, 0
	for i, ok := range flags {
		if ok {
			found++
			sum += float64(found) / float64(i+1)
		}
	}
	return sum / float64(r)
}

// RPrecision returns trec_eval's Rprec: the number of relevant documents
// among the first R of ranked, divided by R = NumRelevant(rel, level); that
// is P@R, padded like PrecisionAt when fewer than R documents were retrieved.
// It returns 0 when R is 0.
func RPrecision(ranked []string, rel Judgments, level int) float64 {
	return rPrecision(relevance(ranked, rel, level), NumRelevant(rel, level))
}

func rPrecision(flags []bool, r int) float64 {
	if r == 0 {
		return 0
	}
	return float64(relevantInTop(flags, r)) / float64(r)
}

// SetPrecision returns trec_eval's set_P: relevant retrieved divided by the
// number of documents retrieved, over the whole list with no cutoff. It
// returns 0 for an empty list.
func SetPrecision(ranked []string, rel Judgments, level int) float64 {
	return setPrecision(relevance(ranked, rel, level))
}

func setPrecision(flags []bool) float64 {
	if len(flags) == 0 {
		return 0
	}
	return float64(relevantInTop(flags, len(flags))) / float64(len(flags))
}

// SetRecall returns trec_eval's set_recall: relevant retrieved divided by R =
// NumRelevant(rel, level), over the whole list with no cutoff. It returns 0
// when R is 0.
func SetRecall(ranked []string, rel Judgments, level int) float64 {
	return setRecall(relevance(ranked, rel, level), NumRelevant(rel, level))
}

func setRecall(flags []bool, r int) float64 {
	if r == 0 {
		return 0
	}
	return float64(relevantInTop(flags, len(flags))) / float64(r)
}

// NDCG returns trec_eval's ndcg (with its default gains): DCG of the whole of
// ranked divided by the DCG of the ideal ranking. See NDCGAt; NDCG is NDCGAt
// with no cutoff.
func NDCG(ranked []string, rel Judgments) float64 {
	return ndcg(dedup(ranked), rel, math.MaxInt, idealGains(rel))
}

// NDCGAt returns nDCG@k, trec_eval's ndcg_cut_k:
//
//	DCG@k  = Σ_{rank i ≤ k} gain(doc at i) / log2(i + 1)
//	IDCG@k = the same sum over the ideal ranking
//	nDCG@k = DCG@k / IDCG@k, or 0 when IDCG@k is 0
//
// The gain of a document is its grade when the grade is positive, else 0
// (linear gains, not 2^grade - 1). The ideal ranking holds every judged
// document with a positive grade, retrieved or not, in decreasing grade
// order. There is no relevance level: nDCG uses the grades themselves, so
// trec_eval's -l does not change it. A list shorter than k simply stops
// adding gain. It returns 0 when k < 1.
func NDCGAt(ranked []string, rel Judgments, k int) float64 {
	if k < 1 {
		return 0
	}
	return ndcg(dedup(ranked), rel, k, idealGains(rel))
}

// idealGains returns the gains of the ideal ranking: every positive grade
// of rel, highest first.
func idealGains(rel Judgments) []int {
	ideal := make([]int, 0, len(rel))
	for _, g := range rel {
		if g > 0 {
			ideal = append(ideal, g)
		}
	}
	slices.Sort(ideal)
	slices.Reverse(ideal)
	return ideal
}

// ndcg is NDCGAt with the ideal gains given (see recallAt for why).
func ndcg(docs []string, rel Judgments, k int, ideal []int) float64 {
	// Both sums run from rank 1 down, like trec_eval's, for identical doubles.
	dcg := 0.0
	for i, doc := range docs {
		if i >= k {
			break
		}
		if g := rel[doc]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	idcg := 0.0
	for i, g := range ideal {
		if i >= k {
			break
		}
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// relevance returns, for each rank of the deduplicated list, whether the
// document there is relevant at level.
func relevance(ranked []string, rel Judgments, level int) []bool {
	return judge(dedup(ranked), rel, level)
}

// judge is relevance for a ranking without repeats.
func judge(docs []string, rel Judgments, level int) []bool {
	flags := make([]bool, len(docs))
	for i, doc := range docs {
		flags[i] = rel.Relevant(doc, level)
	}
	return flags
}

// relevantInTop counts the true flags among the first k.
func relevantInTop(flags []bool, k int) int {
	n := 0
	for i, ok := range flags {
		if i >= k {
			break
		}
		if ok {
			n++
		}
	}
	return n
}

// dedup returns ranked without repeated ids, keeping first occurrences. It
// returns ranked itself when there is nothing to drop.
func dedup(ranked []string) []string {
	seen := make(map[string]struct{}, len(ranked))
	for i, doc := range ranked {
		if _, dup := seen[doc]; dup {
			out := slices.Clone(ranked[:i])
			for _, d := range ranked[i+1:] {
				if _, dup := seen[d]; !dup {
					seen[d] = struct{}{}
					out = append(out, d)
				}
			}
			return out
		}
		seen[doc] = struct{}{}
	}
	return ranked
}
