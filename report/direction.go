package report

import "strings"

// Direction says which way a figure improves.
type Direction int

const (
	// Neutral figures have no better direction (files retrieved, calls of
	// one class): a change is shown but never a regression.
	Neutral Direction = iota
	// HigherIsBetter figures: recall, precision, MRR, the semantic ratio.
	HigherIsBetter
	// LowerIsBetter figures: steps, seconds and tokens to the target, the
	// error-taxonomy counts, fishing and guessing.
	LowerIsBetter
)

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return "neutral"
}

// RewardName is the name reports and summaries give the verifier reward.
const RewardName = "reward"

// directions gives the direction of every metric name of
// metrics.Definitions, by its pattern ("recall@k"), and of the reward. It
// lives here rather than in metrics.Definitions because "better" is a
// reporting judgement, not part of a figure's definition; a test checks
// that every defined metric has an entry, so a new metric cannot be
// silently neutral.
var directions = map[string]Direction{
	// File level.
	"precision@k": HigherIsBetter, "recall@k": HigherIsBetter, "f1@k": HigherIsBetter,
	"success@k": HigherIsBetter, "rr@k": HigherIsBetter, "ndcg@k": HigherIsBetter,
	"mrr": HigherIsBetter, "map": HigherIsBetter, "r_precision": HigherIsBetter,
	"ndcg": HigherIsBetter, "file_recall": HigherIsBetter, "context_efficiency": HigherIsBetter,
	"num_rel_ret": HigherIsBetter,
	"num_ret":     Neutral, "num_rel": Neutral,

	// Lines, chunks and symbols.
	"line_coverage": HigherIsBetter, "line_precision": HigherIsBetter, "line_f1": HigherIsBetter,
	"line_iou": HigherIsBetter, "chunk_recall": HigherIsBetter, "symbol_recall": HigherIsBetter,

	// Localization and context.
	"acc@k": HigherIsBetter, "symbol_acc@k": HigherIsBetter,
	"coverage_auc": HigherIsBetter, "coverage_auc_retrieval": HigherIsBetter, "coverage_auc_tokens": HigherIsBetter,
	"line_context_efficiency": HigherIsBetter, "line_recall@k": HigherIsBetter,
	"evidence_drop": LowerIsBetter,

	// Index effectiveness. Semantic and edit calls are neutral: more of
	// them is not better by itself; the ratio says how the index was used.
	"semantic_ratio": HigherIsBetter, "semantic_ratio_all_calls": HigherIsBetter,
	"direct_edits":    HigherIsBetter,
	"steps_to_target": LowerIsBetter, "total_calls": LowerIsBetter, "file_level_calls": LowerIsBetter,
	"backtracking_events": LowerIsBetter, "redundancy": LowerIsBetter, "failed_calls": LowerIsBetter,
	"fishing_runs": LowerIsBetter, "guessing_searches": LowerIsBetter,
	"semantic_calls": Neutral, "edit_calls": Neutral, "other_calls": Neutral,

	// Time to relevance: steps, seconds and tokens.
	"ttfr_steps": LowerIsBetter, "ttfr_seconds": LowerIsBetter, "ttfr_tokens": LowerIsBetter,
	"ttar_steps": LowerIsBetter, "ttar_seconds": LowerIsBetter, "ttar_tokens": LowerIsBetter,

	// Utilization probes.
	"util_read_overlap_with_relevant_files":        HigherIsBetter,
	"util_write_overlap_with_relevant_files_proxy": HigherIsBetter,
	"util_write_overlap_with_expected_edit_files":  HigherIsBetter,
	"util_read_before_write_ratio":                 HigherIsBetter,

	// Error taxonomy. Unused correct retrieval is neutral: in a read-only
	// task every relevant file is "unused", which is no fault.
	"irrelevant_retrieval": LowerIsBetter, "missed_key_evidence": LowerIsBetter,
	"wrong_evidence_used": LowerIsBetter, "ambiguity_near_miss": LowerIsBetter,
	"unused_correct_retrieval": Neutral,

	RewardName: HigherIsBetter,
}

// DirectionOf returns the direction of a concrete metric name such as
// "read.recall@5" or "ttfr_tokens"; Neutral for a name it does not know.
func DirectionOf(name string) Direction {
	return directions[pattern(name)]
}

// pattern turns a concrete metric name into its entry in the table:
// "read.recall@5" → "recall@k".
func pattern(name string) string {
	name = strings.TrimPrefix(name, "read.")
	if i := strings.LastIndexByte(name, '@'); i >= 0 {
		name = name[:i] + "@k"
	}
	return name
}

// worse returns how much worse cur is than base for the figure (positive
// when worse, negative when better, 0 for a neutral figure).
func worse(name string, base, cur float64) float64 {
	switch DirectionOf(name) {
	case HigherIsBetter:
		return base - cur
	case LowerIsBetter:
		return cur - base
	}
	return 0
}
