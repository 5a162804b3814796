package htmlreport

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
)

func TestCoverageOf(t *testing.T) {
	t.Parallel()
	ev := func(target, read, written []string) events.Event {
		return events.Event{TargetFiles: target, FilesRead: read, FilesWritten: written}
	}
	tests := []struct {
		name   string
		truth  []string
		events []events.Event
		want   []float64
	}{
		{"a file counts from the first call that names it", []string{"a.go", "b.go"},
			[]events.Event{ev([]string{"x.go"}, nil, nil), ev([]string{"a.go"}, nil, nil), ev(nil, []string{"a.go"}, nil), ev([]string{"b.go"}, nil, nil)},
			[]float64{0, 0, 0.5, 0.5, 1}},
		{"a file only written does not count", []string{"a.go"},
			[]events.Event{ev([]string{"a.go"}, nil, []string{"a.go"}), ev(nil, []string{"a.go"}, nil)},
			[]float64{0, 0, 1}},
		{"a file read and written counts", []string{"a.go"},
			[]events.Event{ev([]string{"a.go"}, []string{"a.go"}, []string{"a.go"})},
			[]float64{0, 1}},
		{"no ground truth, no curve", nil, []events.Event{ev([]string{"a.go"}, nil, nil)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := &events.Document{GroundTruth: events.GroundTruth{Files: tt.truth}, Events: tt.events}
			if got := coverageOf(doc); !slices.Equal(got, tt.want) {
				t.Errorf("coverageOf = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMeanCurveKeepsAnEndedRunAtItsLastValue(t *testing.T) {
	t.Parallel()
	got := meanCurve([][]float64{{0, 1}, {0, 0, 0, 0.5}})
	want := []float64{0, 0.5, 0.5, 0.75}
	if !slices.Equal(got, want) {
		t.Errorf("meanCurve = %v, want %v", got, want)
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, metric string
		lo, hi       float64
		want         string
	}{
		{"a CI across zero is no reading", "recall@5", -0.1, 0.2, "unclear"},
		{"a CI touching zero is no reading", "recall@5", 0, 0.2, "unclear"},
		{"higher recall is better", "recall@5", 0.05, 0.2, "better"},
		{"lower recall is worse", "recall@5", -0.3, -0.1, "worse"},
		{"fewer steps are better", "steps_to_target", -3, -1, "better"},
		{"more steps are worse", "steps_to_target", 1, 3, "worse"},
		{"a neutral figure is neither", "semantic_calls", 1, 3, "neutral"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, got := judge(tt.metric, tt.lo, tt.hi); got != tt.want {
				t.Errorf("judge(%s, %v, %v) = %s, want %s", tt.metric, tt.lo, tt.hi, got, tt.want)
			}
		})
	}
}

func TestTickSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want []int
	}{
		{0, nil},
		{1, []int{1}},
		{7, []int{1, 2, 3, 4, 5, 6, 7}},
		{18, []int{1, 2, 4, 6, 8, 10, 12, 14, 16, 18}},
		{240, []int{1, 50, 100, 150, 200}},
	}
	for _, tt := range tests {
		if got := tickSteps(tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("tickSteps(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

func TestTimelineHasOneMarkPerCallAtItsStep(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 5, 35, 36, plotWidth} {
		calls := make([]callView, n)
		for i := range calls {
			calls[i] = callView{Step: i + 1, Class: "c-file", Subagent: i%7 == 3}
		}
		tl := newTimeline("t", calls, nil, false)
		if tl.Dense || len(tl.Marks) != n {
			t.Errorf("%d calls: %d marks", n, len(tl.Marks))
			continue
		}
		for i, m := range tl.Marks {
			if m.Step != i+1 {
				t.Errorf("%d calls: mark %d is step %d", n, i, m.Step)
				break
			}
		}
		if tl.Width > labelWidth+plotWidth+13 {
			t.Errorf("%d calls: %d units wide, more than the plot allows", n, tl.Width)
		}
	}
}

func TestADenseTimelineHasColumnsThatCoverEveryCallOnce(t *testing.T) {
	t.Parallel()
	for _, n := range []int{plotWidth + 1, 2000, 21710} {
		calls := make([]callView, n)
		for i := range calls {
			calls[i] = callView{Step: i + 1, Class: []string{"c-semantic", "c-file", "c-edit", "c-other"}[i%4], Subagent: i%5 == 0, GroundHit: i%500 == 499}
		}
		tl := newTimeline("t", calls, nil, true)
		if !tl.Dense || len(tl.Marks) != 0 {
			t.Fatalf("%d calls: dense %v with %d marks, want columns instead of marks", n, tl.Dense, len(tl.Marks))
		}
		// The columns of both lanes together follow each other without a
		// gap or overlap (a lane has no column where it has no call).
		to := map[int]int{}
		for _, b := range tl.Buckets {
			if end, ok := to[b.From]; ok && end != b.To {
				t.Fatalf("%d calls: two columns start at step %d and end at %d and %d", n, b.From, end, b.To)
			}
			to[b.From] = b.To
			if len(b.Segs) == 0 {
				t.Errorf("%d calls: column %d–%d has no segment", n, b.From, b.To)
			}
		}
		next := 1
		for len(to) > 0 {
			end, ok := to[next]
			if !ok {
				t.Fatalf("%d calls: no column starts at step %d", n, next)
			}
			delete(to, next)
			next = end + 1
		}
		if next != n+1 {
			t.Errorf("%d calls: the columns end at step %d, want %d", n, next-1, n)
		}
		if len(tl.Buckets) > 2*plotWidth/denseColumn {
			t.Errorf("%d calls: %d columns, more than the plot has room for", n, len(tl.Buckets))
		}
		if len(tl.Dots) == 0 || tl.Dots[0].Class != "gt first" || len(tl.Labels) == 0 || tl.Labels[len(tl.Labels)-1].Text != "first hit: step 500" {
			t.Errorf("%d calls: the first ground-truth hit is not marked and labelled: %+v %+v", n, tl.Dots[:min(1, len(tl.Dots))], tl.Labels)
		}
	}
}

// contrast is the WCAG contrast ratio of two colours written #rrggbb.
func contrast(a, b string) float64 {
	lum := func(hex string) float64 {
		var rgb [3]float64
		for i := range rgb {
			v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
			c := float64(v) / 255
			if c <= 0.03928 {
				rgb[i] = c / 12.92
			} else {
				rgb[i] = math.Pow((c+0.055)/1.055, 2.4)
			}
		}
		return 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
	}
	la, lb := lum(a), lum(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// The marks of the timeline are graphics: each class's colour stands out
// from the white page by at least 3:1, and its letter from the mark by
// 4.5:1.
func TestClassColoursHaveContrast(t *testing.T) {
	t.Parallel()
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`--([a-z]+): (#[0-9a-f]{6})`).FindAllStringSubmatch(pageCSS, -1) {
		vars[m[1]] = m[2]
	}
	letter := map[string]string{"semantic": "#ffffff", "file": "#1b1f24", "edit": "#1b1f24", "other": "#1b1f24"}
	for _, class := range []string{"semantic", "file", "edit", "other"} {
		c, ok := vars[class]
		if !ok {
			t.Fatalf("no --%s colour in the style sheet", class)
		}
		if r := contrast(c, "#ffffff"); r < 3 {
			t.Errorf("--%s %s against white: %.2f:1, want at least 3:1", class, c, r)
		}
		if r := contrast(c, letter[class]); r < 4.5 {
			t.Errorf("the letter on a %s mark (%s on %s): %.2f:1, want at least 4.5:1", class, letter[class], c, r)
		}
	}
}
