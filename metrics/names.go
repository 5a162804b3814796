package metrics

import (
	"maps"
	"strconv"
	"strings"
)

// A Definition names and defines one figure of a Result.
type Definition struct {
	// Name is the metric name, with "k" for the cutoff of @k measures:
	// "recall@k" stands for "recall@1", "recall@5", ….
	Name string
	// Label is a short heading for reports, naming the definition's origin
	// where it matters: "Recall@k (TREC)".
	Label string
	// Definition states exactly how the figure is computed.
	Definition string
	// Views is true when the figure exists for both ranked lists: the name
	// as given for the surfaced view and with the prefix "read." for the
	// read view.
	Views bool
	// Bounded is true for figures that lie in [0, 1]; the others are
	// counts, steps, seconds or tokens.
	Bounded bool
	// Proportion is true for figures that are, by their definition, 1 for
	// a success and 0 for a failure on each task: success@k, acc@k and
	// symbol_acc@k. Their mean over tasks is a share of successes, c of n,
	// and AggregateAll gives it a Wilson score interval. A figure that
	// only happens to be 0 or 1 on the tasks at hand (steps_to_target,
	// edit_calls) or that is a share within one task (recall,
	// coverage_auc) is not one: its mean is not a count of successes.
	Proportion bool
}

// definitions is the single table of metric names. Every key of
// Result.Values resolves to one entry (a test checks it).
var definitions = []Definition{
	// File level, trec_eval's definitions (see the package documentation).
	{"precision@k", "P@k (TREC)", "relevant files among the first k / k; a list shorter than k is padded with non-relevant files (trec_eval P_k)", true, true, false},
	{"recall@k", "Recall@k (TREC)", "relevant files among the first k / R, R = files relevant at the level (trec_eval recall_k)", true, true, false},
	{"f1@k", "F1@k", "harmonic mean of P@k and Recall@k, 2PR/(P+R); 0 when both are 0", true, true, false},
	{"success@k", "Success@k (TREC)", "1 if any of the first k files is relevant, else 0 (trec_eval success_k; not recall)", true, true, true},
	{"rr@k", "RR@k", "1 / rank of the first relevant file when that rank is at most k, else 0", true, true, false},
	{"acc@k", "Acc@k (localization)", "1 when every relevant file is among the first k files, else 0 (LocAgent and SWE-bench localization accuracy; success@k asks for one)", true, true, true},
	{"ndcg@k", "nDCG@k (TREC)", "DCG@k / ideal DCG@k, gain = grade, discount log2(rank+1), ideal list from all judged files by decreasing grade; ignores the level (trec_eval ndcg_cut_k)", true, true, false},
	{"mrr", "MRR (TREC RR)", "reciprocal rank: 1 / rank of the first relevant file, no cutoff, 0 when none; the mean over tasks is MRR (trec_eval recip_rank)", true, true, false},
	{"map", "MAP (TREC AP)", "average precision: sum of P@r over the ranks r of relevant files / R; the mean over tasks is MAP (trec_eval map)", true, true, false},
	{"r_precision", "R-precision (TREC)", "relevant files among the first R / R (trec_eval Rprec)", true, true, false},
	{"ndcg", "nDCG (TREC)", "nDCG over the whole list (trec_eval ndcg)", true, true, false},
	{"file_recall", "File recall", "relevant files anywhere in the list / R (trec_eval set_recall)", true, true, false},
	{"context_efficiency", "Context efficiency", "relevant files in the list / files in the list; 0 for an empty list (trec_eval set_P)", true, true, false},
	{"num_ret", "Files retrieved", "files in the ranked list (trec_eval num_ret)", true, false, false},
	{"num_rel", "Relevant files", "R: judged files with a grade of at least the level (trec_eval num_rel)", true, false, false},
	{"num_rel_ret", "Relevant retrieved", "relevant files in the ranked list (trec_eval num_rel_ret)", true, false, false},

	// Line level and chunks.
	{"line_coverage", "Line coverage", "ground-truth chunk lines that were read / ground-truth chunk lines, unions per file", false, true, false},
	{"line_precision", "Line precision", "lines read that are ground-truth chunk lines / lines read; null when no line was read", false, true, false},
	{"line_f1", "Line F1", "harmonic mean of line precision and line coverage; 0 when both are 0 or no line was read", false, true, false},
	{"line_iou", "Line IoU", "lines both read and in the ground truth / lines read or in the ground truth", false, true, false},
	{"line_context_efficiency", "Line context efficiency", "ground-truth chunk lines among the lines read / lines read, counting a line each time a call showed it (re-reads cost context); null when no line was read", false, true, false},
	{"line_recall@k", "Line recall@N", "ground-truth chunk lines among the first k lines read (in call order, re-reads counted, a range cut at the budget) / ground-truth chunk lines; budgets from Options.LineBudgets (default 100, 200, 500, 1000)", false, true, false},
	{"chunk_recall", "Chunk recall (file match)", "ground-truth chunks whose file is in the list / ground-truth chunks", true, true, false},

	// Symbols.
	{"symbol_recall", "Symbol recall", "ground-truth symbols named by an event's symbols or query (exact, case-sensitive, or by last dotted component) / ground-truth symbols", false, true, false},
	{"symbol_acc@k", "Acc@k (symbols)", "1 when every ground-truth symbol is found (as for symbol_recall) by one of the first k distinct lookups (an event's symbols, then its query, by first appearance), else 0; function-level localization accuracy", false, true, true},

	// Index effectiveness (AnalyzeIndex); present without ground truth.
	{"semantic_ratio", "Semantic ratio", "semantic calls / (semantic + file-level calls), by the taxonomy's classes; null when there are neither", false, true, false},
	{"semantic_ratio_all_calls", "Semantic ratio (all calls)", "semantic calls / all tool calls", false, true, false},
	{"steps_to_target", "Steps to target", "1-based index of the first call touching a ground-truth file (by argument or result); without ground truth, of the first edit", false, false, false},
	{"total_calls", "Tool calls", "tool calls in the trace, subagent calls included", false, false, false},
	{"semantic_calls", "Semantic calls", "calls of class semantic (the index: search, navigation, inspection)", false, false, false},
	{"file_level_calls", "File-level calls", "calls of class file_level (reads, listings, text searches, shell reads)", false, false, false},
	{"edit_calls", "Edit calls", "calls of class edit", false, false, false},
	{"other_calls", "Other calls", "calls of class other", false, false, false},
	{"backtracking_events", "Backtracking", "files read and then abandoned: never written and not in the ground truth", false, false, false},
	{"redundancy", "Redundancy", "lines re-read / lines read, over every line range read; null when no line range was read", false, true, false},
	{"failed_calls", "Failed calls", "calls whose result the trace marks as an error", false, false, false},
	{"fishing_runs", "Fishing runs", "runs of at least N (default 5) file-level calls with no semantic call between them", false, false, false},
	{"guessing_searches", "Guessing searches", "searches of file contents for a symbol the index knows (or, with no symbol list, made before any semantic call); file-name searches are not counted", false, false, false},
	{"direct_edits", "Direct edits", "semantic calls immediately followed by an edit of a file they returned", false, false, false},

	// Time to relevance.
	{"ttfr_steps", "TTFR steps", "1-based position of the event that put the first relevant file in the list", true, false, false},
	{"ttfr_seconds", "TTFR seconds", "seconds from the start of the run to that event; null without timestamps", true, false, false},
	{"ttfr_tokens", "TTFR tokens", "cumulative tokens up to that event; null without token counts", true, false, false},
	{"ttar_steps", "TTAR steps", "1-based position of the event that put the last of the relevant files in the list; null until all are", true, false, false},
	{"ttar_seconds", "TTAR seconds", "seconds from the start of the run to that event; null without timestamps", true, false, false},
	{"ttar_tokens", "TTAR tokens", "cumulative tokens up to that event; null without token counts", true, false, false},

	// Coverage over time.
	{"coverage_auc", "Coverage AUC (calls)", "mean over all calls of the session (every class: edits and other calls count as much as searches and reads) of the share of relevant files in the list after the call: 1 when all are found at the first call, 1/N at the last of N calls, 0 never", true, true, false},
	{"coverage_auc_retrieval", "Coverage AUC (retrieval calls)", "mean over the retrieval calls only (class semantic or file_level: searches, navigation, reads, listings; not edits or other calls) of the share of relevant files in the list after the call, the list built from every call up to it; null when no call is a retrieval call", true, true, false},
	{"coverage_auc_tokens", "Coverage AUC (tokens)", "sum over calls of the coverage after the call times the tokens it cost (its cumulative tokens minus the previous call's; calls of one turn share it), / the last call's cumulative tokens; null without token counts", true, true, false},

	// Utilization probes (retrieval-eval framework names).
	{"util_read_overlap_with_relevant_files", "Read overlap", "relevant files read / R", false, true, false},
	{"util_write_overlap_with_relevant_files_proxy", "Write overlap (proxy)", "relevant files written / R; null when nothing was written", false, true, false},
	{"util_write_overlap_with_expected_edit_files", "Expected-edit overlap", "expected edit files written / expected edit files; null when unknown", false, true, false},
	{"util_read_before_write_ratio", "Read before write", "written files that an earlier event read / written files; null when nothing was written", false, true, false},
	{"evidence_drop", "Evidence drop", "relevant files read but never written: evidence seen and left out of the edit (read ∩ relevant − written); null when nothing was written", false, false, false},

	// Error taxonomy (counts of files).
	{"irrelevant_retrieval", "Irrelevant retrieval", "surfaced files that are not relevant", false, false, false},
	{"missed_key_evidence", "Missed key evidence", "relevant files never surfaced", false, false, false},
	{"wrong_evidence_used", "Wrong evidence used", "written files that are not relevant", false, false, false},
	{"unused_correct_retrieval", "Unused correct retrieval", "relevant files surfaced but never written", false, false, false},
	{"ambiguity_near_miss", "Ambiguity near miss", "surfaced files that are not relevant, in the directory of a relevant file", false, false, false},
}

// Definitions returns the table of metric names, in report order.
func Definitions() []Definition {
	return append([]Definition(nil), definitions...)
}

// Define returns the definition of a concrete metric name such as
// "read.recall@5", with the cutoff put into Name and Label ("Recall@5
// (TREC)") and the read view noted in the label ("Recall@5 (TREC), read").
// It reports false for an unknown name.
func Define(name string) (Definition, bool) {
	base, read := strings.CutPrefix(name, "read.")
	pattern, k := base, ""
	if i := strings.LastIndexByte(base, '@'); i >= 0 {
		n, err := strconv.Atoi(base[i+1:])
		if err != nil || n < 1 || strconv.Itoa(n) != base[i+1:] {
			return Definition{}, false
		}
		pattern, k = base[:i]+"@k", base[i+1:]
	}
	for _, d := range definitions {
		if d.Name != pattern || (read && !d.Views) {
			continue
		}
		d.Name = name
		if k != "" {
			d.Label = strings.Replace(d.Label, "@k", "@"+k, 1)
			d.Definition = replaceWord(d.Definition, "k", k)
		}
		if read {
			d.Label += ", read"
		}
		return d, true
	}
	return Definition{}, false
}

// Values returns every figure of the result that has a value, by metric
// name (see Definitions). Null figures, and every figure of a result that
// is not computable, are absent; index-effectiveness figures, which need no
// ground truth, are present whenever the document had a trace.
func (r *Result) Values() map[string]float64 {
	if r == nil {
		return map[string]float64{}
	}
	// Sized for the file-level figures and about as many others (lines,
	// symbols, coverage, times, utilization, taxonomy), for a map that
	// does not grow as it is filled.
	out := make(map[string]float64, 2*len(r.FileLevel)+8)
	// Index effectiveness needs no ground truth: its figures are there
	// whenever the document had a trace.
	if ie := r.IndexEffectiveness; ie != nil {
		ie.addValues(out)
	}
	if !r.Computable {
		return out
	}
	maps.Copy(out, r.FileLevel)
	put := func(name string, v *float64) {
		if v != nil {
			out[name] = *v
		}
	}
	if l := r.Lines; l != nil {
		put("chunk_recall", l.ChunkRecall)
		put("read.chunk_recall", l.ReadChunkRecall)
		put("line_coverage", l.Coverage)
		put("line_precision", l.Precision)
		put("line_f1", l.F1)
		put("line_iou", l.IoU)
		put("line_context_efficiency", l.ContextEfficiency)
		maps.Copy(out, l.RecallAt)
	}
	if r.Symbols != nil {
		put("symbol_recall", r.Symbols.Recall)
		maps.Copy(out, r.Symbols.AccAt)
	}
	if c := r.CoverageOverTime; c != nil {
		put("coverage_auc", c.AUC)
		put("read.coverage_auc", c.ReadAUC)
		put("coverage_auc_retrieval", c.RetrievalAUC)
		put("read.coverage_auc_retrieval", c.ReadRetrievalAUC)
		put("coverage_auc_tokens", c.TokensAUC)
		put("read.coverage_auc_tokens", c.ReadTokensAUC)
	}
	if r.Time != nil {
		for _, v := range Views {
			t := r.Time.View(v)
			for name, m := range map[string]Milestone{"ttfr": t.First, "ttar": t.All} {
				p := v.Prefix() + name
				if m.Steps != nil {
					out[p+"_steps"] = float64(*m.Steps)
				}
				put(p+"_seconds", m.Seconds)
				if m.Tokens != nil {
					out[p+"_tokens"] = float64(*m.Tokens)
				}
			}
		}
	}
	if u := r.Utilization; u != nil {
		put("util_read_overlap_with_relevant_files", u.ReadOverlap)
		put("util_write_overlap_with_relevant_files_proxy", u.WriteOverlapProxy)
		put("util_write_overlap_with_expected_edit_files", u.WriteOverlapExpectedEdit)
		put("util_read_before_write_ratio", u.ReadBeforeWriteRatio)
		put("evidence_drop", u.EvidenceDrop)
	}
	if t := r.Taxonomy; t != nil {
		out["irrelevant_retrieval"] = float64(t.IrrelevantRetrieval.Count)
		out["missed_key_evidence"] = float64(t.MissedKeyEvidence.Count)
		out["wrong_evidence_used"] = float64(t.WrongEvidenceUsed.Count)
		out["unused_correct_retrieval"] = float64(t.UnusedCorrectRetrieval.Count)
		out["ambiguity_near_miss"] = float64(t.AmbiguityNearMiss.Count)
	}
	return out
}

// Metric returns the figure named name ("recall@5", "read.mrr",
// "line_coverage", "util_read_before_write_ratio", …) and whether it has a
// value. It reports false for an unknown name, for a null figure (a time
// the trace does not record, a probe without writes) and for every figure
// of a result that is not computable, so that a threshold is never checked
// against a made-up 0.
func (r *Result) Metric(name string) (float64, bool) {
	v, ok := r.Values()[name]
	return v, ok
}

// replaceWord replaces every occurrence of word in s that is not part of a
// longer word ("k" in "first k", "P@k" and "recall_k", not in "rank"). An
// underscore separates words, so trec_eval measure names get the cutoff.
func replaceWord(s, word, by string) string {
	isWord := func(b byte) bool {
		return '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], word) &&
			(i == 0 || !isWord(s[i-1])) &&
			(i+len(word) == len(s) || !isWord(s[i+len(word)])) {
			sb.WriteString(by)
			i += len(word)
			continue
		}
		sb.WriteByte(s[i])
		i++
	}
	return sb.String()
}
