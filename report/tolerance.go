package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// A FigureKind groups figures whose changes are measured in the same unit,
// so that one tolerance fits them all.
type FigureKind string

// The figure kinds. A figure's kind follows from its name (KindOf).
const (
	// KindRatio is a figure in [0, 1]: recall, precision, nDCG, the
	// semantic ratio, the verifier reward.
	KindRatio FigureKind = "ratio"
	// KindSteps counts tool calls up to an event: steps to target, TTFR
	// and TTAR in steps.
	KindSteps FigureKind = "steps"
	// KindSeconds is a time: TTFR and TTAR in seconds.
	KindSeconds FigureKind = "seconds"
	// KindTokens is a token count: TTFR and TTAR in tokens.
	KindTokens FigureKind = "tokens"
	// KindCount is every other count: calls, files, events.
	KindCount FigureKind = "count"
)

// FigureKinds are the kinds, in the order the help text lists them.
var FigureKinds = []FigureKind{KindRatio, KindSteps, KindSeconds, KindTokens, KindCount}

// DefaultTolerances are the changes for the worse a baseline comparison
// allows when none is given: 0.05 of a ratio (5 percentage points), 2
// steps, 30 seconds, 2000 tokens and 2 of any other count. They absorb the
// run-to-run noise of an agent without hiding a real regression.
var DefaultTolerances = map[FigureKind]float64{
	KindRatio: 0.05, KindSteps: 2, KindSeconds: 30, KindTokens: 2000, KindCount: 2,
}

// KindOf returns the kind of the figure named name ("recall@5",
// "steps_to_target", "ttfr_seconds").
func KindOf(name string) FigureKind {
	if d, ok := metrics.Define(name); (ok && d.Bounded) || name == RewardName {
		return KindRatio
	}
	switch {
	case strings.HasSuffix(name, "_seconds"):
		return KindSeconds
	case strings.HasSuffix(name, "_tokens"):
		return KindTokens
	case strings.HasSuffix(name, "_steps") || name == "steps_to_target":
		return KindSteps
	}
	return KindCount
}

// Tolerances are the changes for the worse a baseline comparison allows:
// by figure name first, then by the figure's kind. Each is in the
// figure's own units (0.05 of a ratio, 2 steps).
type Tolerances struct {
	Kinds map[FigureKind]float64
	Names map[string]float64
}

// NewTolerances returns DefaultTolerances with nothing set by name.
func NewTolerances() *Tolerances {
	return &Tolerances{Kinds: maps.Clone(DefaultTolerances), Names: map[string]float64{}}
}

// UniformTolerance allows the same change of every figure, in each one's
// own units: the meaning of a single -max-regression number.
func UniformTolerance(delta float64) *Tolerances {
	t := &Tolerances{Kinds: map[FigureKind]float64{}, Names: map[string]float64{}}
	for _, k := range FigureKinds {
		t.Kinds[k] = delta
	}
	return t
}

// For returns the tolerance of the figure named name. A nil Tolerances
// allows no change.
func (t *Tolerances) For(name string) float64 {
	if t == nil {
		return 0
	}
	if v, ok := t.Names[name]; ok {
		return v
	}
	return t.Kinds[KindOf(name)]
}

// String lists the tolerances as ParseTolerances reads them, kinds first.
func (t *Tolerances) String() string {
	if t == nil {
		return "none"
	}
	if v, ok := t.uniform(); ok {
		return formatNumber(v) + " of every figure"
	}
	var parts []string
	for _, k := range FigureKinds {
		parts = append(parts, fmt.Sprintf("%s=%s", k, formatNumber(t.Kinds[k])))
	}
	for _, n := range slices.Sorted(maps.Keys(t.Names)) {
		parts = append(parts, fmt.Sprintf("%s=%s", n, formatNumber(t.Names[n])))
	}
	return strings.Join(parts, ",")
}

// uniform reports whether every figure has the same tolerance, and which.
func (t *Tolerances) uniform() (float64, bool) {
	v := t.Kinds[KindRatio]
	for _, k := range FigureKinds {
		if t.Kinds[k] != v {
			return 0, false
		}
	}
	return v, len(t.Names) == 0
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// ParseTolerances reads the -max-regression flag: a comma-separated list
// of KIND=DELTA (ratio, steps, seconds, tokens, count) and NAME=DELTA (a
// metric name such as recall@5, which wins over its kind), starting from
// DefaultTolerances, so "ratio=0.02,recall@5=0.1" keeps the defaults of
// steps, seconds, tokens and counts.
//
// A single number is the old form: the same change allowed of every
// figure, in each one's own units. Since a ratio cannot change by more
// than 1, a single number of 1 or more would switch every ratio check off,
// and is an error that says how to write it by kind.
func ParseTolerances(s string) (*Tolerances, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return NewTolerances(), nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		switch {
		case v < 0:
			return nil, fmt.Errorf("%s: expected 0 or more", s)
		case v >= 1:
			return nil, fmt.Errorf("%s: one number is the change allowed of every figure, and %s of a ratio allows any change: give it by kind, such as steps=%s,ratio=0.05", s, s, s)
		}
		return UniformTolerance(v), nil
	}
	t := NewTolerances()
	for _, part := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("%q: expected KIND=DELTA or METRIC=DELTA, such as ratio=0.05 or recall@5=0.1", part)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s: %q is not a number of 0 or more", key, val)
		}
		key = strings.TrimSpace(key)
		switch {
		case slices.Contains(FigureKinds, FigureKind(key)):
			t.Kinds[FigureKind(key)] = v
		case DirectionOf(key) != Neutral:
			t.Names[key] = v
		default:
			if _, known := metrics.Define(key); known {
				return nil, fmt.Errorf("%s: the figure has no better direction, so it never regresses", key)
			}
			return nil, fmt.Errorf("%s: not a figure kind (%s); %s", key, kindList(), metrics.UnknownMetricError(key))
		}
	}
	return t, nil
}

func kindList() string {
	names := make([]string, len(FigureKinds))
	for i, k := range FigureKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
