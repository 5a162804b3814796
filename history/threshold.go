package history

import (
	"context"
	"math"
	"strconv"
	"strings"
)

// A Threshold is what the expectations of one run required of a figure:
// the lowest and highest of their lower bounds (≥), and of their upper
// bounds (≤). Scenarios that require the same bound give a line (both
// ends equal); scenarios that differ give a band. NaN where no
// expectation set a bound of that side.
type Threshold struct {
	AtLeast [2]float64
	AtMost  [2]float64
}

// NoThreshold is a run whose expectations set no bound on the figure.
var NoThreshold = Threshold{AtLeast: [2]float64{math.NaN(), math.NaN()}, AtMost: [2]float64{math.NaN(), math.NaN()}}

// Has reports whether t holds a bound.
func (t Threshold) Has() bool { return !math.IsNaN(t.AtLeast[0]) || !math.IsNaN(t.AtMost[0]) }

// add widens t to hold one more bound.
func (t *Threshold) add(lower bool, v float64) {
	side := &t.AtMost
	if lower {
		side = &t.AtLeast
	}
	side[0], side[1] = minNaN(side[0], v), maxNaN(side[1], v)
}

// thresholds fills the series' Thresholds from the expectations of the
// runs (cond and args select the runs' scenarios, as scenarioSeries
// does). The database returns only the expectations whose measured text
// names a figure shown; the bounds are read from the texts the check
// report wrote ("recall@5 = 0.40" measured against "≥ 0.50"), so that
// runs recorded before this reading existed draw theirs too.
func (s *Store) thresholds(ctx context.Context, series []Series, in, cond string, runArgs []any, at map[int64]int) error {
	if len(series) == 0 {
		return nil
	}
	find := "instr(e.measured, ?) > 0"
	if s.dialect == postgresDialect {
		find = "strpos(e.measured, ?) > 0"
	}
	var finds []string
	args := append([]any(nil), runArgs...)
	for _, sr := range series {
		finds = append(finds, find)
		args = append(args, sr.Figure+" = ")
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT s.run_id, e.measured, e.threshold FROM expectations e JOIN scenarios s ON e.scenario_id = s.id
		WHERE s.run_id IN (`+in+`)`+cond+` AND (`+strings.Join(finds, " OR ")+`)`), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var measured, threshold string
		if err := rows.Scan(&id, &measured, &threshold); err != nil {
			return err
		}
		for _, b := range parseBounds(measured, threshold) {
			for k := range series {
				sr := &series[k]
				if sr.Figure != b.figure {
					continue
				}
				if sr.Thresholds == nil {
					sr.Thresholds = make([]Threshold, len(sr.Values))
					for i := range sr.Thresholds {
						sr.Thresholds[i] = NoThreshold
					}
				}
				i := at[id]
				if !math.IsNaN(b.lower) {
					sr.Thresholds[i].add(true, b.lower)
				}
				if !math.IsNaN(b.upper) {
					sr.Thresholds[i].add(false, b.upper)
				}
			}
		}
	}
	return rows.Err()
}

// A bound is one figure's bounds in one expectation; NaN for a side it
// does not bound.
type bound struct {
	figure       string
	lower, upper float64
}

// parseBounds reads an expectation's bounds from the check report's texts:
// measured names each figure ("recall@5 = 0.40; mrr = 0.30"), and the
// threshold is the one figure's bound ("≥ 0.50") or, with several figures,
// each figure's by name ("recall@5 ≥ 0.50; mrr in [0.2, 0.9]"). A text it
// cannot read gives no bound: a chart without a line, never a wrong one.
func parseBounds(measured, threshold string) []bound {
	names := strings.Split(measured, "; ")
	for i, m := range names {
		name, _, ok := strings.Cut(m, " = ")
		if !ok {
			return nil
		}
		names[i] = name
	}
	var texts []string
	if len(names) == 1 {
		texts = []string{threshold}
	} else {
		texts = strings.Split(threshold, "; ")
		if len(texts) != len(names) {
			return nil
		}
		for i, t := range texts {
			rest, ok := strings.CutPrefix(t, names[i]+" ")
			if !ok {
				return nil
			}
			texts[i] = rest
		}
	}
	var out []bound
	for i, text := range texts {
		if lo, hi, ok := parseBound(text); ok {
			out = append(out, bound{names[i], lo, hi})
		}
	}
	return out
}

// parseBound reads "≥ X", "≤ X" or "in [X, Y]", as the expectations'
// boundText writes them.
func parseBound(text string) (lo, hi float64, ok bool) {
	lo, hi = math.NaN(), math.NaN()
	number := func(s string) (float64, bool) {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return v, err == nil && !math.IsInf(v, 0) && !math.IsNaN(v)
	}
	switch {
	case strings.HasPrefix(text, "≥ "):
		lo, ok = number(strings.TrimPrefix(text, "≥ "))
	case strings.HasPrefix(text, "≤ "):
		hi, ok = number(strings.TrimPrefix(text, "≤ "))
	case strings.HasPrefix(text, "in [") && strings.HasSuffix(text, "]"):
		a, b, found := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(text, "in ["), "]"), ", ")
		if !found {
			return lo, hi, false
		}
		var okA, okB bool
		lo, okA = number(a)
		hi, okB = number(b)
		ok = okA && okB
	}
	if !ok {
		return math.NaN(), math.NaN(), false
	}
	return lo, hi, true
}
