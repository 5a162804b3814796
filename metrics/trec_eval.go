package metrics

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// TRECMeasure names one trec_eval measure and, for the measures that take
// them, its parameters.
type TRECMeasure struct {
	// Name is the measure's root name as trec_eval spells it ("P",
	// "ndcg_cut", "map", "bpref", "iprec_at_recall"); TRECMeasureNames
	// lists them.
	Name string
	// Cutoffs are the ranks k of the measures with rank cutoffs (P,
	// recall, success, ndcg_cut, map_cut, relative_P, unj); each gives one
	// figure named Name_k. They must be positive and distinct; they are
	// printed in increasing order. Nil means trec_eval's defaults.
	Cutoffs []int
	// Params is the parameter text of the other measures that take
	// parameters, as written after the dot of trec_eval's -m NAME.PARAMS:
	// comma-separated numbers for iprec_at_recall and Rprec_mult (recall
	// shares and multiples of R, sorted), utility (four coefficients),
	// 11pt_avg (recall shares), set_F (beta) and relstring (length), and
	// "grade=gain" pairs for G, dcg, ideal_dcg, ndcg, ndcg_rel, Rndcg, rbp
	// and rbp_resid (rbp's persistence is the pair "p=0.8"). Empty means
	// trec_eval's defaults. Measures with Params print as Name_Params,
	// except iprec_at_recall and Rprec_mult, which print one figure per
	// number.
	Params string
}

// paramKind is how a measure takes parameters.
type paramKind int

const (
	noParams     paramKind = iota
	rankCutoffs            // Cutoffs: one figure per rank
	shareCutoffs           // numbers, sorted: one figure per number
	numberParams           // numbers, in order: one figure
	gainParams             // grade=gain pairs: one figure
)

// summaryKind is how a measure's figures over queries become the "all"
// figure.
type summaryKind int

const (
	meanSummary      summaryKind = iota
	sumSummary                   // counts: summed, printed as integers
	geometricSummary             // per-query figure not printed
	noSummary                    // relstring: per query only
)

type trecMeasureDef struct {
	name    string
	params  paramKind
	cutoffs []int     // default rank cutoffs
	numbers []float64 // default numbers
	summary summaryKind
	// groups marks the measures that average over judgment groups
	// (trec_eval -R qrels_jg), prefs the preference measures (-R prefs
	// and qrels_prefs).
	groups, prefs bool
}

var (
	defaultCutoffs = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	elevenPoints   = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
)

// trecMeasures lists the supported measures in the order trec_eval computes
// and prints them (its measure table), whatever the order of the -m flags,
// with trec_eval's defaults.
var trecMeasures = []trecMeasureDef{
	{name: "runid"},
	{name: "num_q"},
	{name: "num_ret", summary: sumSummary},
	{name: "num_rel", summary: sumSummary},
	{name: "num_rel_ret", summary: sumSummary},
	{name: "map"},
	{name: "gm_map", summary: geometricSummary},
	{name: "Rprec"},
	{name: "bpref"},
	{name: "recip_rank"},
	{name: "iprec_at_recall", params: shareCutoffs, numbers: elevenPoints},
	{name: "P", params: rankCutoffs, cutoffs: defaultCutoffs},
	{name: "relstring", params: numberParams, numbers: []float64{10}, summary: noSummary},
	{name: "recall", params: rankCutoffs, cutoffs: defaultCutoffs},
	{name: "infAP"},
	{name: "gm_bpref", summary: geometricSummary},
	{name: "Rprec_mult", params: shareCutoffs, numbers: []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2}},
	{name: "utility", params: numberParams, numbers: []float64{1, -1, 0, 0}},
	{name: "11pt_avg", params: numberParams, numbers: elevenPoints},
	{name: "binG"},
	{name: "G", params: gainParams},
	{name: "dcg", params: gainParams},
	{name: "ideal_dcg", params: gainParams},
	{name: "ndcg", params: gainParams},
	{name: "ndcg_rel", params: gainParams},
	{name: "Rndcg", params: gainParams},
	{name: "ndcg_cut", params: rankCutoffs, cutoffs: defaultCutoffs},
	{name: "map_cut", params: rankCutoffs, cutoffs: defaultCutoffs},
	{name: "relative_P", params: rankCutoffs, cutoffs: defaultCutoffs},
	{name: "success", params: rankCutoffs, cutoffs: []int{1, 5, 10}},
	{name: "set_P"},
	{name: "set_relative_P"},
	{name: "set_recall"},
	{name: "set_map"},
	{name: "set_F", params: numberParams, numbers: []float64{1}},
	{name: "num_nonrel_judged_ret", summary: sumSummary},
	{name: "prefs_num_prefs_poss", summary: sumSummary, prefs: true},
	{name: "prefs_num_prefs_ful", summary: sumSummary, prefs: true},
	{name: "prefs_num_prefs_ful_ret", summary: sumSummary, prefs: true},
	{name: "prefs_simp", prefs: true},
	{name: "prefs_pair", prefs: true},
	{name: "prefs_avgjg", prefs: true},
	{name: "prefs_avgjg_Rnonrel", prefs: true},
	{name: "prefs_simp_ret", prefs: true},
	{name: "prefs_pair_ret", prefs: true},
	{name: "prefs_avgjg_ret", prefs: true},
	{name: "prefs_avgjg_Rnonrel_ret", prefs: true},
	{name: "prefs_simp_imp", prefs: true},
	{name: "prefs_pair_imp", prefs: true},
	{name: "prefs_avgjg_imp", prefs: true},
	{name: "map_avgjg", groups: true},
	{name: "P_avgjg", params: rankCutoffs, cutoffs: defaultCutoffs, groups: true},
	{name: "Rprec_mult_avgjg", params: shareCutoffs, numbers: []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2}, groups: true},
	{name: "yaap"},
	{name: "rbp", params: gainParams},
	{name: "rbp_resid", params: gainParams},
	{name: "unj", params: rankCutoffs, cutoffs: []int{5, 10, 20}},
}

// trecNicknames are trec_eval's measure sets.
var trecNicknames = map[string][]string{
	"official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
		"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"},
	"all_trec": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
		"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
		"recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
		"utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
		"map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
		"set_P", "set_recall", "set_relative_P", "set_map", "set_F",
		"num_nonrel_judged_ret"},
	"set": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
		"set_recall", "set_relative_P", "set_map", "set_F"},
	"qrels_jg": {"runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"},
	"all_prefs": {"runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
		"prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
		"prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
		"prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"},
	"prefs": {"runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
		"prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"},
}

func measureIndex(name string) int {
	return slices.IndexFunc(trecMeasures, func(m trecMeasureDef) bool { return m.name == name })
}

// TRECMeasureNames returns the names of the measures EvaluateTREC computes,
// in trec_eval's print order.
func TRECMeasureNames() []string {
	names := make([]string, len(trecMeasures))
	for i, m := range trecMeasures {
		names[i] = m.name
	}
	return names
}

// DefaultTRECMeasures returns the measures trec_eval prints when no -m is
// given (its "official" set): runid, num_q, num_ret, num_rel, num_rel_ret,
// map, gm_map, Rprec, bpref, recip_rank, iprec_at_recall at 0, 0.1, ...,
// 1, and P at 5, 10, 15, 20, 30, 100, 200, 500 and 1000.
func DefaultTRECMeasures() []TRECMeasure {
	ms, _ := ParseTRECMeasures(nil)
	return ms
}

// ParseTRECMeasures turns trec_eval -m arguments into measures, following
// trec_eval's rules:
//
//   - "name" selects a measure with its default parameters;
//     "name.params" gives parameters (see TRECMeasure).
//   - "official", "all_trec" and "set" select trec_eval's measure sets, and
//     "qrels_jg", "prefs" and "all_prefs" its sets for the other qrels
//     formats (TRECOptions.Groups and Prefs).
//   - Measures come back in trec_eval's print order, not argument order,
//     each once.
//   - When a measure is given parameters more than once, the first list
//     wins and later ones are ignored, as in trec_eval: "-m P.5 -m P.10"
//     gives P_5 only. Write "-m P.5,10" for both.
//   - A rank cutoff is read as C's atol reads it: "23.4" is 23.
//
// No arguments means DefaultTRECMeasures. Unknown names, parameters on a
// measure that takes none, and parameters that are not numbers are
// errors. (trec_eval ignores parameters given to a measure that takes
// none, and reads a number that is not one as 0.)
func ParseTRECMeasures(specs []string) ([]TRECMeasure, error) {
	if len(specs) == 0 {
		specs = []string{"official"}
	}
	chosen := make([]bool, len(trecMeasures))
	given := make([]*TRECMeasure, len(trecMeasures))
	for _, spec := range specs {
		name, params, hasParams := strings.Cut(spec, ".")
		if hasParams && params == "" {
			return nil, fmt.Errorf("measure %q: empty parameter list after '.'", spec)
		}
		if set, ok := trecNicknames[name]; ok {
			if hasParams {
				return nil, fmt.Errorf("measure %q: the measure set %s takes no parameters", spec, name)
			}
			for _, n := range set {
				chosen[measureIndex(n)] = true
			}
			continue
		}
		i := measureIndex(name)
		if i < 0 {
			return nil, fmt.Errorf("unknown measure %q (supported: the sets official, all_trec, set, qrels_jg, prefs and all_prefs, and %s)", name, strings.Join(TRECMeasureNames(), ", "))
		}
		chosen[i] = true
		if !hasParams || given[i] != nil { // trec_eval uses the first parameter list given
			continue
		}
		m := TRECMeasure{Name: name}
		switch trecMeasures[i].params {
		case noParams:
			return nil, fmt.Errorf("measure %q: %s takes no parameters", spec, name)
		case rankCutoffs:
			ks, err := parseCutoffs(params)
			if err != nil {
				return nil, fmt.Errorf("measure %q: %w", spec, err)
			}
			m.Cutoffs = ks
		default:
			m.Params = params
			if _, err := compileMeasure(m); err != nil {
				return nil, fmt.Errorf("measure %q: %w", spec, err)
			}
		}
		given[i] = &m
	}
	var ms []TRECMeasure
	for i, m := range trecMeasures {
		if !chosen[i] {
			continue
		}
		if given[i] != nil {
			ms = append(ms, *given[i])
			continue
		}
		ms = append(ms, TRECMeasure{Name: m.name, Cutoffs: slices.Clone(m.cutoffs)})
	}
	return ms, nil
}

// compiledMeasure is a measure with its parameters read.
type compiledMeasure struct {
	def     trecMeasureDef
	cutoffs []int
	numbers []float64
	gains   []gainParam
	label   string // printed name when the figure is one
}

// compileMeasure reads a measure's parameters.
func compileMeasure(m TRECMeasure) (compiledMeasure, error) {
	i := measureIndex(m.Name)
	if i < 0 {
		return compiledMeasure{}, fmt.Errorf("unknown measure %q", m.Name)
	}
	def := trecMeasures[i]
	cm := compiledMeasure{def: def, label: m.Name, cutoffs: def.cutoffs, numbers: def.numbers}
	if m.Cutoffs != nil {
		if def.params != rankCutoffs {
			return cm, fmt.Errorf("measure %q takes no cutoffs", m.Name)
		}
		ks, err := checkCutoffs(m.Cutoffs)
		if err != nil {
			return cm, fmt.Errorf("measure %q: %w", m.Name, err)
		}
		cm.cutoffs = ks
	}
	if m.Params == "" {
		return cm, nil
	}
	switch def.params {
	case shareCutoffs, numberParams:
		var xs []float64
		for _, f := range strings.Split(m.Params, ",") {
			x, err := parseTRECFloat("parameter", f)
			if err != nil {
				return cm, err
			}
			if math.IsInf(x, 0) {
				return cm, fmt.Errorf("parameter %q is not a finite number", f)
			}
			xs = append(xs, x)
		}
		if def.params == shareCutoffs {
			slices.Sort(xs)
		}
		if def.name == "utility" && len(xs) != 4 {
			return cm, fmt.Errorf("utility takes 4 coefficients, got %d", len(xs))
		}
		cm.numbers = xs
	case gainParams:
		for _, f := range strings.Split(m.Params, ",") {
			name, v, ok := strings.Cut(f, "=")
			x, err := parseTRECFloat("gain", v)
			if !ok || name == "" || err != nil || math.IsInf(x, 0) {
				return cm, fmt.Errorf("parameter %q is not of the form name=number", f)
			}
			cm.gains = append(cm.gains, gainParam{name, x})
		}
	default:
		return cm, fmt.Errorf("measure %q takes no parameters", m.Name)
	}
	cm.label = m.Name + "_" + m.Params
	return cm, nil
}

func parseCutoffs(params string) ([]int, error) {
	var ks []int
	for _, p := range strings.Split(params, ",") {
		k, err := atol(p)
		if err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	return checkCutoffs(ks)
}

// atol reads an integer as C's atol does, up to the first character that
// is not a digit ("23.4" is 23), but refuses text that starts with no
// digit at all, which atol would read as 0.
func atol(s string) (int, error) {
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	start := end
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == start {
		return 0, fmt.Errorf("cutoff %q is not an integer", s)
	}
	k, err := strconv.Atoi(s[:end])
	if err != nil {
		return 0, fmt.Errorf("cutoff %q is out of range", s)
	}
	return k, nil
}

// checkCutoffs returns ks sorted, or an error if a cutoff is not positive
// or appears twice (trec_eval rejects both).
func checkCutoffs(ks []int) ([]int, error) {
	ks = slices.Clone(ks)
	slices.Sort(ks)
	if len(ks) == 0 {
		return nil, errors.New("no cutoffs")
	}
	if ks[0] < 1 {
		return nil, fmt.Errorf("cutoff %d is not positive", ks[0])
	}
	for i := 1; i < len(ks); i++ {
		if ks[i] == ks[i-1] {
			return nil, fmt.Errorf("cutoff %d given twice", ks[i])
		}
	}
	return ks, nil
}

// TRECOptions are the trec_eval command-line options that change figures.
type TRECOptions struct {
	// Level is trec_eval's -l: the lowest grade that counts as relevant for
	// every measure except ndcg and ndcg_cut. trec_eval's default is
	// DefaultLevel (1); the zero value, 0, makes judged non-relevant
	// documents relevant, so start from DefaultTRECOptions.
	Level int
	// Complete is trec_eval's -c: average over every query of the qrels,
	// counting a query the run lacks as an empty ranking (0 for every
	// measure). Without it only queries present in both files are evaluated.
	Complete bool
	// Measures to compute; nil means DefaultTRECMeasures. Order does not
	// matter: results follow trec_eval's print order.
	Measures []TRECMeasure
	// MaxDocs is trec_eval's -M: only the first MaxDocs documents of each
	// ranking count. 0 means no limit.
	MaxDocs int
	// NumDocs is trec_eval's -N, the number of documents in the
	// collection; only utility's fourth coefficient (non-relevant
	// documents not retrieved) uses it. 0 by default, as in trec_eval.
	NumDocs int
	// JudgedOnly is trec_eval's -J: documents the qrels of their query do
	// not judge (or judge with a negative grade) are removed from each
	// ranking, after MaxDocs, and the rest move up.
	JudgedOnly bool
	// ZScores is trec_eval's -Z: when not nil, every per-query figure is
	// replaced by its z-score against the query's mean and standard
	// deviation for that measure (see TRECZScores), before the summary.
	ZScores TRECZScores
	// Groups holds judgments by judgment group (trec_eval -R qrels_jg,
	// read by ParseQrelsJG). When it is not nil, the queries are its
	// queries, the qrels argument of EvaluateTREC is not used, and the
	// measures are runid, num_q and those that average over the groups
	// (map_avgjg, P_avgjg, Rprec_mult_avgjg: the set "qrels_jg").
	Groups QrelsJG
	// Prefs holds preference judgments (trec_eval -R prefs or
	// qrels_prefs, read by ParsePrefs or ParseQrelsPrefs). When it is not
	// nil, the queries are its queries, the qrels argument is not used,
	// and the measures are runid, num_q and the preference measures (the
	// sets "prefs" and "all_prefs").
	Prefs Prefs
}

// DefaultTRECOptions returns trec_eval's defaults: level 1, no -c, the
// default measures.
func DefaultTRECOptions() TRECOptions {
	return TRECOptions{Level: DefaultLevel}
}

// ErrNoQueries is returned by EvaluateTREC when no query is evaluated: the
// qrels hold no query.
var ErrNoQueries = errors.New("no query has both judgments and results")

// ErrQueryNotInRun is wrapped by the error EvaluateTREC returns, without
// Complete, for a query of the qrels that the run does not list. trec_eval
// 10.0 stops there (exit status 4); 9.0.8 and earlier skipped the query.
var ErrQueryNotInRun = errors.New("the run has no results for a query of the qrels")

// A QueryNotInRunError is the error of EvaluateTREC, without Complete,
// for a query of the qrels that the run lacks. It wraps ErrQueryNotInRun.
type QueryNotInRunError struct {
	// Query is the first such query, in evaluation order.
	Query string
	// Evaluated holds the queries evaluated before it, and no summary:
	// what trec_eval -q has printed when it stops.
	Evaluated *TRECResult
}

func (e *QueryNotInRunError) Error() string {
	return fmt.Sprintf("query %q: %v; trec_eval 10.0 stops here too, and with -c (Complete) the query counts as retrieving nothing", e.Query, ErrQueryNotInRun)
}

func (e *QueryNotInRunError) Unwrap() error { return ErrQueryNotInRun }

// TRECScore is one figure as trec_eval prints it.
type TRECScore struct {
	// Measure is the printed name: "map", "P_5", "ndcg_cut_10", "num_ret".
	Measure string
	// Value is the figure. num_q, num_ret, num_rel and num_rel_ret are
	// counts and print as integers.
	Value float64
	// Text is the run id for the runid measure, the string of grades for
	// relstring, and empty otherwise.
	Text string
	// hidden marks a per-query figure that trec_eval keeps for the
	// summary but does not print (gm_map and gm_bpref, whose per-query
	// figure is the logarithm of the query's value).
	hidden bool
}

// Line formats the score for query (a query id or "all") exactly as
// trec_eval does: the measure name left-aligned in 22 columns, a tab, the
// query, a tab, and the value with printf's "%6.4f", or as an integer for
// counts, or the run id. The line ends in a newline.
func (s TRECScore) Line(query string) string {
	return s.line(query, false)
}

// line formats the score as Line does, or with z as trec_eval -Z prints
// z-scores: the name prefixed with "Z" and counts as decimals.
func (s TRECScore) line(query string, z bool) string {
	switch {
	case z && s.Measure != "runid" && !strings.HasPrefix(s.Measure, "relstring"):
		if math.IsNaN(s.Value) {
			return fmt.Sprintf("Z%-22s\t%s\t%6s\n", s.Measure, query, "-nan")
		}
		return fmt.Sprintf("Z%-22s\t%s\t%6.4f\n", s.Measure, query, s.Value)
	case s.Measure == "runid":
		return fmt.Sprintf("%-22s\t%s\t%s\n", s.Measure, query, s.Text)
	case strings.HasPrefix(s.Measure, "relstring"):
		return fmt.Sprintf("%-22s\t%s\t'%s'\n", s.Measure, query, s.Text)
	case isCount(s.Measure):
		return fmt.Sprintf("%-22s\t%s\t%d\n", s.Measure, query, int64(s.Value))
	case math.IsNaN(s.Value):
		// C's printf writes the NaN of 0.0/0.0, whose sign bit is set on
		// the machines trec_eval runs on, as "-nan"; Go would write "NaN".
		return fmt.Sprintf("%-22s\t%s\t%6s\n", s.Measure, query, "-nan")
	default:
		return fmt.Sprintf("%-22s\t%s\t%6.4f\n", s.Measure, query, s.Value)
	}
}

func isCount(measure string) bool {
	switch measure {
	case "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
		"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret":
		return true
	}
	return false
}

// TRECQueryResult holds the figures of one query.
type TRECQueryResult struct {
	Query string
	// Scores in print order. runid and num_q have no per-query figure.
	Scores []TRECScore
}

// Value returns the figure of the named measure ("P_5", "map"), if present.
func (q TRECQueryResult) Value(measure string) (float64, bool) {
	return scoreValue(q.Scores, measure)
}

// TRECResult is the evaluation of a run against qrels.
type TRECResult struct {
	// Queries holds the evaluated queries in trec_eval's order: sorted by
	// query id, byte-wise.
	Queries []TRECQueryResult
	// Summary holds the "all" figures in print order. runid is the run's ID,
	// num_q the number of evaluated queries, num_ret and num_rel_ret sums,
	// num_rel a sum (with Complete, see EvaluateTREC), and every other
	// figure the mean over the evaluated queries.
	Summary []TRECScore
	// ZScores is true when the figures are z-scores (TRECOptions.ZScores):
	// every per-query figure, and the summary figures made from them, but
	// num_q and, with Complete, num_rel, which trec_eval recounts.
	ZScores bool
}

// Value returns the summary figure of the named measure, if present.
func (r *TRECResult) Value(measure string) (float64, bool) {
	return scoreValue(r.Summary, measure)
}

func scoreValue(scores []TRECScore, measure string) (float64, bool) {
	for _, s := range scores {
		if s.Measure == measure {
			return s.Value, true
		}
	}
	return 0, false
}

// Format writes the result in trec_eval's output format: with perQuery (-q),
// the lines of every query first, then the summary lines with the query
// column "all".
func (r *TRECResult) Format(w io.Writer, perQuery bool) error {
	return r.Print(w, TRECPrint{PerQuery: perQuery})
}

// TRECPrint chooses the parts of a result that Print writes.
type TRECPrint struct {
	// PerQuery is trec_eval's -q: the lines of every query first.
	PerQuery bool
	// NoSummary is trec_eval's -n: no "all" lines.
	NoSummary bool
}

// Print writes the result in trec_eval's output format, the parts p asks
// for. When the figures are z-scores (TRECOptions.ZScores), each name but
// runid and relstring is prefixed with "Z" and every figure, counts too, is
// printed as a decimal, as trec_eval -Z prints them.
func (r *TRECResult) Print(w io.Writer, p TRECPrint) error {
	bw := bufio.NewWriter(w)
	if p.PerQuery {
		for _, q := range r.Queries {
			for _, s := range q.Scores {
				if s.hidden {
					continue
				}
				bw.WriteString(s.line(q.Query, r.ZScores))
			}
		}
	}
	if !p.NoSummary {
		for _, s := range r.Summary {
			bw.WriteString(s.line("all", r.ZScores))
		}
	}
	return bw.Flush()
}

// EvaluateTREC evaluates run against qrels as trec_eval 10.0 does.
//
// The queries evaluated are those of the qrels. As in trec_eval 10.0, a
// query of the qrels that the run lacks is an error wrapping
// ErrQueryNotInRun (a *QueryNotInRunError), unless opts.Complete counts it
// as retrieving nothing;
// run queries absent from the qrels are ignored. A query whose judgments hold no relevant document is
// still evaluated (most figures are 0 for it) and counts in num_q. Each
// query's ranking is the run's documents ranked by RankByScore, and each
// figure is the function of this package named in the package
// documentation, at opts.Level.
//
// The summary follows trec_eval, including one quirk: with opts.Complete,
// num_rel for "all" is the number of judgments with a grade above 0 in the
// whole qrels, whatever the level, and so differs from the sum of the
// per-query num_rel when the level is not 1.
//
// It returns ErrNoQueries when no query is evaluated.
func EvaluateTREC(qrels Qrels, run *TRECRun, opts TRECOptions) (*TRECResult, error) {
	measures := opts.Measures
	if measures == nil {
		measures = DefaultTRECMeasures()
	}
	compiled, err := normalizeMeasures(measures)
	if err != nil {
		return nil, err
	}
	if run == nil {
		run = &TRECRun{}
	}

	format := "qrels"
	queries := sortedKeys(qrels)
	switch {
	case opts.Groups != nil && opts.Prefs != nil:
		return nil, errors.New("judgment groups and preferences given together: give one kind of judgments")
	case opts.Groups != nil:
		format, queries = "qrels_jg", sortedKeys(opts.Groups)
	case opts.Prefs != nil:
		format, queries = "prefs", sortedKeys(opts.Prefs)
	}
	if err := checkFormatMeasures(compiled, format); err != nil {
		return nil, err
	}
	res := &TRECResult{ZScores: opts.ZScores != nil}
	for _, q := range queries {
		groups := opts.Groups.groups(q)
		docs, ok := run.Results[q]
		if !ok && !opts.Complete {
			return nil, &QueryNotInRunError{Query: q, Evaluated: res}
		}
		var scores []TRECScore
		if ok {
			ranked := RankByScore(docs)
			if format == "prefs" {
				ranked = rankForPrefs(docs)
			}
			if opts.MaxDocs > 0 && len(ranked) > opts.MaxDocs {
				ranked = ranked[:opts.MaxDocs]
			}
			if opts.JudgedOnly && format == "qrels" {
				ranked = judgedOnly(ranked, qrels[q])
			}
			scores, err = queryScores(compiled, ranked, queryJudgments{qrels[q], groups, opts.Prefs[q]}, opts)
		} else {
			scores, err = missingQueryScores(compiled, queryJudgments{qrels[q], groups, opts.Prefs[q]}, opts)
		}
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", q, err)
		}
		if opts.ZScores != nil {
			opts.ZScores.convert(q, scores)
		}
		res.Queries = append(res.Queries, TRECQueryResult{Query: q, Scores: scores})
	}
	if len(res.Queries) == 0 {
		return nil, ErrNoQueries
	}

	n := float64(len(res.Queries))
	for _, m := range compiled {
		switch m.def.name {
		case "runid":
			res.Summary = append(res.Summary, TRECScore{Measure: "runid", Text: run.ID})
		case "num_q":
			res.Summary = append(res.Summary, TRECScore{Measure: "num_q", Value: n})
		}
	}
	for j, s := range res.Queries[0].Scores {
		if strings.HasPrefix(s.Measure, "relstring") {
			continue // trec_eval prints no summary of it
		}
		// Summed in query order, then divided, as trec_eval does.
		sum := 0.0
		for _, q := range res.Queries {
			sum += q.Scores[j].Value
		}
		switch {
		case s.Measure == "num_rel" && opts.Complete:
			// trec_eval recounts num_rel from the whole qrels under -c, with
			// a fixed threshold of grade > 0 rather than the -l level.
			sum = 0
			for _, rel := range qrels {
				sum += float64(NumRelevant(rel, 1))
			}
		case isCount(s.Measure):
		case s.hidden:
			sum = math.Exp(sum / n)
		default:
			sum /= n
		}
		res.Summary = append(res.Summary, TRECScore{Measure: s.Measure, Value: sum})
	}
	return res, nil
}

// normalizeMeasures checks measures given by a caller, puts them in print
// order and reads their parameters; the first of two entries for one
// measure wins.
func normalizeMeasures(ms []TRECMeasure) ([]compiledMeasure, error) {
	byIndex := make([]*compiledMeasure, len(trecMeasures))
	for _, m := range ms {
		i := measureIndex(m.Name)
		if i < 0 {
			return nil, fmt.Errorf("unknown measure %q", m.Name)
		}
		if byIndex[i] != nil {
			continue
		}
		cm, err := compileMeasure(m)
		if err != nil {
			return nil, err
		}
		byIndex[i] = &cm
	}
	var out []compiledMeasure
	for _, m := range byIndex {
		if m != nil {
			out = append(out, *m)
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
