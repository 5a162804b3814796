package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sumDraws, vector or not, gives the sums of sumDrawsGo to the last bit:
// for every number of lists around the vectors' four (the lists left
// over summed one at a time), every number of draws around the groups of
// four, rows at an offset (lo), and values of every magnitude, whose sums
// round differently in any other order.
func TestSumDrawsIsTheSumInTheOrderOfTheDraws(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for m := 1; m <= 13; m++ {
		const tasks = 9
		rows := make([]float64, tasks*m)
		for i := range rows {
			rows[i] = (rng.Float64() - 0.3) * math.Pow(2, float64(rng.IntN(80)-40))
		}
		for lo := 0; lo < m; lo++ {
			for w := 0; lo+w <= m; w++ {
				for n := 0; n <= 11; n++ {
					draws := make([]int, n)
					for i := range draws {
						draws[i] = rng.IntN(tasks) * m
					}
					want, got := make([]float64, w), make([]float64, w)
					for i := range want {
						want[i] = rng.Float64()
						got[i] = want[i]
					}
					sumDrawsGo(want, rows, draws, lo)
					sumDraws(got, rows, draws, lo)
					for i := range want {
						// The order matters: the sums in the order of
						// the draws are not those of another order.
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%d lists from %d, %d of them, %d draws: list %d sums to %v, want %v", m, lo, w, n, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// The sums add each draw's value once, in order: a hand-computed case.
func TestSumDrawsAddsEachDrawnRowInOrder(t *testing.T) {
	t.Parallel()
	// Three tasks of five lists; the lists 1 to 4 (lo 1, w 4) make one
	// vector.
	rows := []float64{
		0, 1, 2, 3, 4,
		0, 10, 20, 30, 40,
		0, 100, 200, 300, 400,
	}
	sums := []float64{0.5, 0.5, 0.5, 0.5}
	sumDraws(sums, rows, []int{10, 5, 10, 0, 5}, 1) // tasks 2, 1, 2, 0, 1
	want := []float64{0.5 + 100 + 10 + 100 + 1 + 10, 0.5 + 200 + 20 + 200 + 2 + 20, 0.5 + 300 + 30 + 300 + 3 + 30, 0.5 + 400 + 40 + 400 + 4 + 40}
	for i := range want {
		if sums[i] != want[i] {
			t.Errorf("list %d: %v, want %v", i+1, sums[i], want[i])
		}
	}
}

// A draw whose row would end past the rows is refused, as a slice
// expression refuses it, rather than read out of bounds.
func TestSumDrawsRefusesADrawOutsideTheRows(t *testing.T) {
	t.Parallel()
	rows := make([]float64, 3*8)
	for _, tc := range []struct {
		name  string
		draws []int
		lo    int
	}{
		{"a row that ends past the last", []int{17}, 0},
		{"a row that starts past the last", []int{24}, 0},
		{"lists from an offset past the row's end", []int{16}, 1},
		{"a negative offset", []int{-8}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			sumDraws(make([]float64, 8), rows, tc.draws, tc.lo)
		})
	}
}

// The bootstrap checks a block's draws once with inRange, then sums them
// unchecked: a draw whose row would end past the rows, or a negative
// one, is refused; the last row and the first are not.
func TestInRangeRefusesADrawWhoseRowEndsPastTheRows(t *testing.T) {
	t.Parallel()
	rows := make([]float64, 3*8)
	inRange([]int{0, 16, 8, 16}, rows, 8)
	inRange(nil, rows, 8)
	for _, tc := range []struct {
		name  string
		draws []int
	}{
		{"a row that ends past the last", []int{0, 17}},
		{"a row that starts past the last", []int{24}},
		{"a negative offset", []int{16, -8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			inRange(tc.draws, rows, 8)
		})
	}
}
