package runs

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
)

func TestCoverageCurve(t *testing.T) {
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
			if got := CoverageCurve(doc); !slices.Equal(got, tt.want) {
				t.Errorf("CoverageCurve = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMeanCurveKeepsAnEndedRunAtItsLastValue(t *testing.T) {
	t.Parallel()
	got := MeanCurve([][]float64{{0, 1}, {0, 0, 0, 0.5}})
	want := []float64{0, 0.5, 0.5, 0.75}
	if !slices.Equal(got, want) {
		t.Errorf("MeanCurve = %v, want %v", got, want)
	}
}

// The running mean gives, to the last bit, what summing each point over
// the curves in order gives, whatever the curves' lengths.
func TestCurveMeanIsTheMeanOfEachPointInOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		curves := make([][]float64, 1+r.IntN(7))
		for i := range curves {
			curves[i] = make([]float64, 1+r.IntN(12))
			for j := range curves[i] {
				curves[i][j] = r.Float64() / 3
			}
		}
		n := 0
		for _, c := range curves {
			n = max(n, len(c))
		}
		want := make([]float64, n)
		for i := range want {
			for _, c := range curves {
				want[i] += c[min(i, len(c)-1)]
			}
			want[i] /= float64(len(curves))
		}
		if got := MeanCurve(curves); !slices.Equal(got, want) {
			t.Fatalf("MeanCurve(%v) = %v, want %v", curves, got, want)
		}
	}
}
