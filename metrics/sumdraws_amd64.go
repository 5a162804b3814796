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

// sumDrawsInRange is sumDraws of draws that inRange has checked against
// rows, with lo+len(sums) at most their width: the bootstrap checks a
// block's draws once, for all its summers, rather than each summer every
// draw of it again.
func sumDrawsInRange(sums, rows []float64, draws []int, lo int) {
	if !useAVX2 {
		sumDrawsGo(sums, rows, draws, lo)
		return
	}
	sumDrawsAVX2(sums, rows, draws, lo)
}

var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func sumDrawsAVX2(sums, rows []float64, draws []int, lo int)
