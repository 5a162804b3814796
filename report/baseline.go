package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

// BaselineVersion is the version of the baseline file format this package
// writes and reads. Any change to the format bumps it.
const BaselineVersion = 1

// ErrBaselineVersion is returned, wrapped, by ReadBaseline for a file of
// another (or no) format version.
var ErrBaselineVersion = errors.New("unsupported baseline version")

// A Baseline holds the figures of a reference run, to compare later runs
// against: for each scenario or task (the key), metric name to value. A
// figure that was null or not computable is absent, never 0.
//
// In JSON:
//
//	{
//	  "version": 1,
//	  "kind": "scenario",
//	  "entries": {
//	    "fix-bug": {"recall@5": 0.5, "semantic_ratio": 0.45, "steps_to_target": 6}
//	  }
//	}
type Baseline struct {
	Version int `json:"version"`
	// Kind says what the keys name: "scenario", "task" or "config/task".
	Kind    string                        `json:"kind,omitempty"`
	Entries map[string]map[string]float64 `json:"entries"`
}

// NewBaseline returns an empty baseline of the current version.
func NewBaseline(kind string) *Baseline {
	return &Baseline{Version: BaselineVersion, Kind: kind, Entries: map[string]map[string]float64{}}
}

// Set records a figure.
func (b *Baseline) Set(key, metric string, v float64) {
	if b.Entries == nil {
		b.Entries = map[string]map[string]float64{}
	}
	m := b.Entries[key]
	if m == nil {
		m = map[string]float64{}
		b.Entries[key] = m
	}
	m[metric] = v
}

// Get returns a figure and whether the baseline has it. It is safe on a nil
// Baseline.
func (b *Baseline) Get(key, metric string) (float64, bool) {
	if b == nil {
		return 0, false
	}
	v, ok := b.Entries[key][metric]
	return v, ok
}

// BaselineFromRows records every value of the rows, keyed by row name.
func BaselineFromRows(kind string, rows []RetrievalRow) *Baseline {
	b := NewBaseline(kind)
	for _, r := range rows {
		for m, v := range r.Values {
			b.Set(r.Name, m, v)
		}
	}
	return b
}

// WriteBaseline writes b to path atomically (see internal/atomicfile), as
// indented JSON with sorted keys. Non-finite values are an error: JSON
// cannot hold them and a baseline must not silently lose a figure.
func WriteBaseline(path string, b *Baseline) error {
	out := *b
	out.Version = BaselineVersion
	if out.Entries == nil {
		out.Entries = map[string]map[string]float64{}
	}
	for _, k := range slices.Sorted(maps.Keys(out.Entries)) {
		for _, m := range slices.Sorted(maps.Keys(out.Entries[k])) {
			if v := out.Entries[k][m]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("baseline %s: %s %s is %v, which JSON cannot hold", path, k, m, v)
			}
		}
	}
	return atomicfile.Write(path, func(w io.Writer) error { return writeJSON(w, &out) })
}

// maxInput is the caller's override of the input size limit.
var maxInput input.Max

// SetMaxInputSize sets, in bytes, the largest baseline file ReadBaseline
// reads; a larger one is an error. Zero restores the default, 64 MiB. It is
// safe to call concurrently with reading.
func SetMaxInputSize(n int64) { maxInput.Set(n) }

// ReadBaseline reads a baseline file, rejecting a file of another version
// with an error that wraps ErrBaselineVersion and names the file.
//
// The file must be a regular file of at most 64 MiB; see SetMaxInputSize.
func ReadBaseline(path string) (*Baseline, error) {
	data, err := input.ReadFile(path, maxInput.Or(input.ConfigLimit))
	if err != nil {
		return nil, err
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	switch {
	case b.Version == 0:
		return nil, fmt.Errorf("baseline %s: no \"version\": %w (is it a baseline file?)", path, ErrBaselineVersion)
	case b.Version != BaselineVersion:
		return nil, fmt.Errorf("baseline %s: version %d: %w (this build reads version %d)", path, b.Version, ErrBaselineVersion, BaselineVersion)
	}
	if b.Entries == nil {
		b.Entries = map[string]map[string]float64{}
	}
	return &b, nil
}

// A Regression is a figure that got worse than its baseline by more than
// the allowed amount, or that lost its value.
type Regression struct {
	Key    string
	Metric string
	Base   float64
	// Current is the new value; meaningless when Missing.
	Current float64
	// Worse is how much worse Current is than Base, in the figure's units
	// (positive).
	Worse float64
	// Allowed is the change the comparison allowed of the figure.
	Allowed   float64
	Direction Direction
	// Missing is true when the key is in both baselines but the figure has
	// no value any more: a task whose trace broke or whose ground truth went
	// missing would otherwise hide a regression.
	Missing bool
}

func (r Regression) String() string {
	if r.Missing {
		return fmt.Sprintf("%s %s: was %s, now has no value", r.Key, r.Metric, FormatValue(r.Metric, r.Base))
	}
	return fmt.Sprintf("%s %s: %s → %s (%s, allowed %s; %s)", r.Key, r.Metric,
		FigureText(r.Metric, r.Base), FigureText(r.Metric, r.Current),
		DeltaText(r.Metric, r.Base, r.Current), AllowedText(r.Metric, r.Allowed), r.Direction)
}

// percentFigures are the figures reports show as percentages; their
// changes are in percentage points.
var percentFigures = map[string]bool{"semantic_ratio": true, "semantic_ratio_all_calls": true}

// FigureText formats a figure as every table of the report shows it: a
// percentage for the semantic ratios, FormatValue for the others.
func FigureText(name string, v float64) string {
	if percentFigures[name] {
		return percent(v)
	}
	return FormatValue(name, v)
}

// DeltaText formats a change of a figure in the unit FigureText shows it
// in: percentage points for a percentage ("-50.0 pp"), else FormatDelta
// ("-0.50", "+2"). Tables and the list of regressions use it alike.
func DeltaText(name string, base, cur float64) string {
	if percentFigures[name] {
		return signed(fixed(100*(cur-base), 1)) + " pp"
	}
	return FormatDelta(name, base, cur)
}

// AllowedText formats a tolerance in the unit of DeltaText.
func AllowedText(name string, tol float64) string {
	if percentFigures[name] {
		return fixed(100*tol, 1) + " pp"
	}
	return strconv.FormatFloat(tol, 'f', -1, 64)
}

// regressionSlack absorbs floating-point noise, so that a change of exactly
// maxDelta (0.3 - 0.25 computed as 0.04999…) is not a regression.
const regressionSlack = 1e-9

// Regressions returns the figures of cur that regressed against base: for
// every key present in both and every figure base has, cur's value is worse
// by more than maxDelta in the figure's direction (DirectionOf), or absent.
// maxDelta is absolute, in the figure's units (0.05 for a ratio, 1 for
// steps); 0 flags any worsening. Neutral figures never regress; keys only
// in one baseline (scenarios added or removed) are not regressions. The
// result is sorted by key, then metric.
func Regressions(base, cur Baseline, maxDelta float64) []Regression {
	return RegressionsWithin(base, cur, UniformTolerance(maxDelta))
}

// RegressionsWithin is Regressions with a tolerance for each figure (see
// Tolerances.For): a figure regresses when it is worse than its baseline
// by more than its tolerance, or has lost its value.
func RegressionsWithin(base, cur Baseline, tol *Tolerances) []Regression {
	var out []Regression
	for _, key := range slices.Sorted(maps.Keys(base.Entries)) {
		now, ok := cur.Entries[key]
		if !ok {
			continue
		}
		for _, m := range slices.Sorted(maps.Keys(base.Entries[key])) {
			dir := DirectionOf(m)
			if dir == Neutral {
				continue
			}
			b := base.Entries[key][m]
			c, ok := now[m]
			if !ok {
				out = append(out, Regression{Key: key, Metric: m, Base: b, Allowed: tol.For(m), Direction: dir, Missing: true})
				continue
			}
			if w, allowed := worse(m, b, c), tol.For(m); w > allowed+regressionSlack {
				out = append(out, Regression{Key: key, Metric: m, Base: b, Current: c, Worse: w, Allowed: allowed, Direction: dir})
			}
		}
	}
	return out
}

// WriteRegressions writes regressions as a markdown list, each with its
// change and the change allowed, or a line saying there are none and what
// was allowed.
func WriteRegressions(w io.Writer, regs []Regression, tol *Tolerances) error {
	if len(regs) == 0 {
		_, err := fmt.Fprintf(w, "No figure regressed past the allowed change (%s).\n", Escape(tol.String()))
		return err
	}
	if _, err := fmt.Fprintf(w, "**%d figure(s) regressed** past the allowed change:\n\n", len(regs)); err != nil {
		return err
	}
	for _, r := range regs {
		if _, err := fmt.Fprintf(w, "- %s\n", Escape(r.String())); err != nil {
			return err
		}
	}
	return nil
}

// writeJSON writes v as indented JSON without HTML escaping, followed by a
// newline. encoding/json sorts map keys, so the output is deterministic.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// regressionVerdict is the sentence that opens a report compared with a
// baseline: how many figures regressed past the allowed change, and the
// first few of them.
func regressionVerdict(regs []Regression) string {
	if len(regs) == 0 {
		return "No figure regressed past the allowed change against the baseline."
	}
	return "**FAIL:** " + regressionSummary(regs) + "."
}

// regressionSummary is "3 figure(s) regressed past the allowed change:
// fix-bug recall@5, …".
func regressionSummary(regs []Regression) string {
	const shown = 3
	var names []string
	for i, r := range regs {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(regs)-shown))
			break
		}
		names = append(names, Escape(r.Key+" "+r.Metric))
	}
	return fmt.Sprintf("%d figure(s) regressed past the allowed change: %s (see Regressions)", len(regs), strings.Join(names, ", "))
}
