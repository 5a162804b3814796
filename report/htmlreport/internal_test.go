package htmlreport

import (
	"slices"
	"testing"
)

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
	for _, n := range []int{1, 5, 35, 36, 1000} {
		calls := make([]callView, n)
		for i := range calls {
			calls[i] = callView{Step: i + 1, Class: "c-file", Subagent: i%7 == 3}
		}
		tl := newTimeline("t", calls, nil, false)
		if len(tl.Marks) != n {
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
