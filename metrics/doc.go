// Package metrics holds the pure functions that turn what an agent retrieved
// into figures: ranked information-retrieval measures that agree exactly
// with trec_eval, and the evaluation of TREC qrels and run files.
//
// A user starts from one of four places:
//
//   - Compute measures one retrieval-events document (package events) with
//     every figure of Definitions; Result.Metric looks one up by name.
//   - AnalyzeIndex measures how the agent used the semantic index: semantic
//     ratio, steps to target and the fishing, guessing and direct patterns.
//   - The ranked measures (RecallAt, NDCGAt, AveragePrecision, …) score any
//     ranked list against Judgments.
//   - ParseQrels, ParseTRECRun and EvaluateTREC evaluate TREC files as
//     trec_eval does.
//
// Every function here is pure: it reads its arguments, returns a value and
// keeps no state, so a caller with its own trace parser can use the measures
// on any ranked list.
//
// # Ranked measures
//
// A measure takes a ranked list of document ids (rank 1 first), the
// Judgments of one query (document id to integer grade) and, for the binary
// measures, a relevance level. A document is relevant at level L when it is
// judged with a grade of at least L; unjudged documents are never relevant.
// R is the number of relevant judged documents, retrieved or not
// (NumRelevant). The definitions are trec_eval 10.0's, so that every figure
// can be checked with trec_eval:
//
//	P@k            relevant among the first k / k               PrecisionAt           P_k
//	Recall@k       relevant among the first k / R               RecallAt              recall_k
//	Success@k      1 if any of the first k is relevant, else 0  SuccessAt             success_k
//	RR             1 / rank of the first relevant, else 0       ReciprocalRank        recip_rank
//	RR@k           RR if that rank is at most k, else 0         ReciprocalRankAt      (none)
//	AP             Σ over relevant ranks r of P@r / R           AveragePrecision      map
//	R-precision    relevant among the first R / R               RPrecision            Rprec
//	set P          relevant retrieved / retrieved               SetPrecision          set_P
//	set recall     relevant retrieved / R                       SetRecall             set_recall
//	nDCG@k         DCG@k / IDCG@k                               NDCGAt                ndcg_cut_k
//	nDCG           DCG / IDCG over the whole list               NDCG                  ndcg
//	R              relevant judged documents                    NumRelevant           num_rel
//	relevant ret.  relevant documents in the list               NumRelevantRetrieved  num_rel_ret
//
// Details that decide figures:
//
//   - A list shorter than k is padded with non-relevant documents, not
//     shortened: P@10 of a 3-document list with 2 relevant is 2/10.
//   - RR has no cutoff; RR@k, which trec_eval lacks, truncates.
//   - AP counts relevant documents that were not retrieved through R: they
//     add 0 to the sum but 1 to the divisor.
//   - nDCG uses linear gains, gain = grade for grades above 0 and 0
//     otherwise, and the discount log2(rank + 1). The ideal ranking holds all
//     judged documents with a grade above 0, retrieved or not, by decreasing
//     grade. nDCG has no relevance level: the level (trec_eval's -l) changes
//     P, recall, success, RR, AP, R-precision, the set measures and the
//     counts, never nDCG.
//   - When R is 0 (or IDCG is 0 for nDCG) a measure that divides by it
//     returns 0, as trec_eval prints. Such a query has no ground truth; a
//     caller that reports agent runs should call it non-computable, not 0,
//     and check NumRelevant first.
//   - A repeated id in a ranked list is kept at its first rank only; later
//     documents move up. (trec_eval rejects such lists; ParseTRECRun does too.)
//   - A level below 0 is treated as 0.
//
// Each measure is computed with the same sequence of floating-point
// operations as trec_eval, so figures printed with four decimals are equal,
// not merely close.
//
// # TREC files
//
// ParseQrels reads a qrels file (query, iteration, document, grade: four
// white-space-separated fields a line) and ParseTRECRun a run file (query,
// iteration, document, rank, score, run id: six or more fields). Both skip
// blank lines and lines starting with '#', reject a document given twice for
// one query, and report any problem as a *ParseError that names the file and
// line. ParseTRECZScores reads the z-score file of trec_eval's -Z.
//
// Numbers are read as trec_eval reads them, with C's atol (grades) and atof
// (scores), or refused where Go's reading would differ: those C functions
// stop at the first character they cannot use and return what they have,
// so "1e1" is the grade 1 to trec_eval (not 10), "1_000" is 1 as a grade
// or a score (Go's strconv reads 1000), "1,5" is 1 and "3abc" 3. Such text
// is an error wrapping ErrTRECNumber that says what trec_eval would read; a
// grade written as a decimal ("2.7") keeps its integer part, as atol does,
// and a leading '+' is read. ParseTRECInt reads the integers of trec_eval's
// options the same way.
//
// WriteTRECRun and WriteQrels write them: a ranked list as run lines whose
// score N - rank + 1 keeps the list's order, and judgments as qrels lines,
// so that any figure of Compute can be checked with trec_eval itself.
// TRECExport collects the results of many tasks as one run and one qrels,
// one query each.
//
// A run is ranked per query by score, highest first; equal scores are
// ordered by document id in decreasing byte order. The rank column is
// ignored. This is trec_eval's rule, and it matters: three documents d1, d2,
// d3 with equal scores rank d3, d2, d1 whatever their listed ranks
// (RankByScore).
//
// # Evaluating a run
//
// EvaluateTREC evaluates a run against qrels the way trec_eval 10.0 does,
// and TRECResult.Format prints the result in trec_eval's format, so that
// "retrievaltest trec" output can be compared with trec_eval's line for line:
//
//   - Queries evaluated: every query of the qrels. A query the run lacks
//     is an error (*QueryNotInRunError), as in trec_eval 10.0, unless
//     TRECOptions.Complete (trec_eval -c) counts it as an empty ranking (0
//     for every measure, num_ret 0, num_rel its R). Run queries absent from
//     the qrels are ignored. Queries whose judgments hold no relevant
//     document are evaluated and count.
//   - TRECOptions.MaxDocs (-M) keeps the first documents of each ranking,
//     then JudgedOnly (-J) drops those the qrels do not judge; ZScores (-Z)
//     turns every per-query figure into a z-score before the summary;
//     Groups (-R qrels_jg, ParseQrelsJG) scores map_avgjg, P_avgjg and
//     Rprec_mult_avgjg against each judgment group and averages; Prefs
//     (-R prefs and qrels_prefs, ParsePrefs and ParseQrelsPrefs) gives the
//     preference measures, prefs_simp, prefs_pair, prefs_avgjg and the
//     rest of trec_eval's "all_prefs" set.
//   - Output order: per query (trec_eval -q), queries sorted by id, and
//     within a query the measures in trec_eval's fixed order (num_ret,
//     num_rel, num_rel_ret, map, Rprec, recip_rank, P, recall, ndcg,
//     ndcg_cut, success, set_P, set_recall), cutoffs increasing; then the
//     summary lines for "all", which start with runid and num_q when those
//     are requested.
//   - Line format: printf "%-22s\t%s\t%6.4f", or "%-22s\t%s\t%d" for the
//     counts num_q, num_ret, num_rel, num_rel_ret and num_nonrel_judged_ret,
//     or the quoted grade string of relstring.
//   - Summary: counts are summed, gm_map and gm_bpref are geometric means
//     (with values floored at 0.00001, no per-query line), relstring has
//     none, and every other figure is the arithmetic mean over the evaluated
//     queries. Under -c, num_rel for "all" is trec_eval's recount of every
//     judgment with a grade above 0 in the qrels, which ignores -l, and a
//     query the run lacks is scored, as by trec_eval 10.0, over a ranking of
//     one unjudged placeholder document.
//   - Measures with parameters take trec_eval's defaults when none are
//     given: 5, 10, 15, 20, 30, 100, 200, 500, 1000 for P, recall,
//     ndcg_cut, map_cut and relative_P; 1, 5, 10 for success; 5, 10, 20 for
//     unj; see TRECMeasure for the others. With no measure given, the
//     default set is trec_eval's "official" set; every measure of its
//     "all_trec" set is computed, and dcg and ideal_dcg.
//
// # Agent runs
//
// Compute measures one retrieval-events document (one task run): it ranks
// the files the agent surfaced and the files it read, scores both lists
// with the measures above (names without a prefix for the surfaced view,
// "read." for the read view), and adds line-range and chunk coverage,
// symbol recall, time to relevance, the utilization probes, the error
// taxonomy and the calibration slices, and the localization and context
// measures: Acc@k (AccuracyAt: every relevant file in the top k, and
// symbol_acc@k for symbols), coverage over time (CoverageOverTime: the
// curve and its area over all calls, over the retrieval calls only and per
// token), evidence_drop,
// line_context_efficiency and line_recall@N (a budget of N lines read). Definitions lists every metric name
// with its exact definition; Result.Metric looks one up. A task with no
// ground truth, or no usable trace, is non-computable: it carries a reason
// and no figure, never a 0 or a 1. Aggregate and AggregateResults summarize
// figures over tasks with a seeded percentile-bootstrap confidence interval,
// and AggregateResults adds a Wilson score interval to the figures that are
// proportions by definition (Definition.Proportion: success@k, acc@k,
// symbol_acc@k), never to one that merely happens to be 0 or 1.
// ComputeEvents gives Compute's result for a document whose events are read
// one at a time from an events.EventSource (events.Pending.Events), as the
// metrics command does: a long session's events are then never held as a
// []Event.
//
// # Index effectiveness
//
// AnalyzeIndex works on the tool classes of the taxonomy (semantic,
// file_level, edit, other). The semantic ratio is semantic / (semantic +
// file-level) calls, also reported over all calls; steps to target is the
// 1-based number of the first call that touches a ground-truth file (the
// first edit when there is no ground truth, with the rule reported);
// fishing is a run of at least IndexOptions.FishingMinRun file-level
// calls with no semantic call between them, guessing a search of file
// contents for an identifier the index knows (IndexOptions.Symbols, from
// LoadSymbols; a file-name search such as a Glob is never a guess), direct
// a semantic call followed by an edit of a file it returned. Each Pattern
// carries its step indices as evidence (its Detail numbers steps from 1,
// see StepsText); fishing and guessing by an agent whose tool list has no
// semantic tool are marked Information. IndexEffectiveness.Grade grades
// the semantic ratio poor, fair, good or excellent
// (DefaultGradeThresholds). Compute runs the analysis too, into
// Result.IndexEffectiveness.
//
// # Comparing configurations
//
// WilcoxonSignedRank and SignTest test paired differences between two
// configurations, task by task, and Spearman correlates a figure with a
// reward, with a p-value that is exact below SpearmanExactBelow tasks (all
// pairings enumerated) and from Student's t from there on; runs.Compare
// puts them together and report.WriteComparison prints them.
package metrics
