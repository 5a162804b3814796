package metrics

import (
	"fmt"
	"io"
)

// TRECZScore is the mean and standard deviation of one measure on one
// query, over some reference set of runs.
type TRECZScore struct {
	Mean, StdDev float64
}

// TRECZScores holds the reference figures of trec_eval's -Z file, by query
// id and then by the measure's printed name ("map", "P_10").
type TRECZScores map[string]map[string]TRECZScore

// MissingZScore is the figure trec_eval prints for a query and measure
// that the z-score file lacks, and for a figure that differs from a mean
// whose standard deviation is 0.
const MissingZScore = -1000000

// ParseTRECZScores reads a z-score file as trec_eval -Z takes it: four
// fields a line separated by white space,
//
//	query-id  measure  mean  standard-deviation
//
// where measure is a printed name (P_10, not P). Blank lines and lines
// starting with '#' are skipped. The numbers are read as scores are (see
// ParseTRECRun). A query and measure given twice is an error: trec_eval
// would use either one.
func ParseTRECZScores(r io.Reader, name string) (TRECZScores, error) {
	zs := TRECZScores{}
	firstLine := map[[2]string]int{}
	err := eachLine(r, name, func(n int, fields []string) error {
		if len(fields) != 4 {
			return fmt.Errorf("%w: want 4 fields (query measure mean standard-deviation), got %d", ErrMalformedLine, len(fields))
		}
		mean, err := parseTRECFloat("mean", fields[2])
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformedLine, err)
		}
		sd, err := parseTRECFloat("standard deviation", fields[3])
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformedLine, err)
		}
		key := [2]string{fields[0], fields[1]}
		if first, dup := firstLine[key]; dup {
			return fmt.Errorf("%w: measure %q of query %q is given twice (first on line %d)", ErrMalformedLine, fields[1], fields[0], first)
		}
		firstLine[key] = n
		if zs[fields[0]] == nil {
			zs[fields[0]] = map[string]TRECZScore{}
		}
		zs[fields[0]][fields[1]] = TRECZScore{Mean: mean, StdDev: sd}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return zs, nil
}

// convert replaces every figure of one query by its z-score, (value -
// mean) / standard deviation, as trec_eval does before it sums the
// figures for the summary. With a standard deviation of 0, a figure equal
// to the mean is 0 and any other is MissingZScore, as is a figure the file
// has no line for.
func (zs TRECZScores) convert(query string, scores []TRECScore) {
	ref := zs[query]
	for i, s := range scores {
		z, ok := ref[s.Measure]
		switch {
		case !ok:
			scores[i].Value = MissingZScore
		case z.StdDev != 0:
			scores[i].Value = (s.Value - z.Mean) / z.StdDev
		case s.Value == z.Mean:
			scores[i].Value = 0
		default:
			scores[i].Value = MissingZScore
		}
	}
}

// judgedOnly returns the documents of ranked that rel judges with a grade
// of 0 or more, in order: trec_eval -J's ranking. Documents judged with a
// negative grade are, for trec_eval, in the pool but not judged.
func judgedOnly(ranked []string, rel Judgments) []string {
	var out []string
	for _, d := range ranked {
		if g, ok := rel[d]; ok && g >= 0 {
			out = append(out, d)
		}
	}
	return out
}
