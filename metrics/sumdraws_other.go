//go:build !amd64 || purego

package metrics

// sumDraws is sumDrawsGo where no vector version is written.
func sumDraws(sums, rows []float64, draws []int, lo int) {
	sumDrawsGo(sums, rows, draws, lo)
}

// sumDrawsInRange is sumDrawsGo, which checks its bounds itself.
func sumDrawsInRange(sums, rows []float64, draws []int, lo int) {
	sumDrawsGo(sums, rows, draws, lo)
}
