//go:build !purego

package metrics

import "golang.org/x/sys/cpu"

// sumDraws is sumDrawsGo, four lists an instruction where the processor
// has AVX2: the same additions in the same order, each lane a list of its
// own, so the same bits.
func sumDraws(sums, rows []float64, draws []int, lo int) {
	if !useAVX2 {
		sumDrawsGo(sums, rows, draws, lo)
		return
	}
	// The assembly reads rows unchecked: the bounds are checked here.
	for _, d := range draws {
		if k := d + lo; k < 0 || k+len(sums) > len(rows) {
			panic("metrics: a draw outside the rows")
		}
	}
	sumDrawsAVX2(sums, rows, draws, lo)
}

var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func sumDrawsAVX2(sums, rows []float64, draws []int, lo int)
