package metrics

// sumDrawsGo adds to sums, for each draw in order, the row of values the
// draw picks: rows[d+lo : d+lo+len(sums)] for each d in draws. Each sum
// adds its values in the order of the draws, one addition each, so that
// it is the sum a list's own loop gives, to the last bit.
func sumDrawsGo(sums, rows []float64, draws []int, lo int) {
	w := len(sums)
	n := len(draws)
	// Four draws at a time: each sum is loaded and stored once for four
	// additions, made in the order of the draws.
	d := 0
	for ; d+4 <= n; d += 4 {
		k0, k1, k2, k3 := draws[d]+lo, draws[d+1]+lo, draws[d+2]+lo, draws[d+3]+lo
		r0, r1, r2, r3 := rows[k0:k0+w], rows[k1:k1+w], rows[k2:k2+w], rows[k3:k3+w]
		r1, r2, r3, sums := r1[:len(r0)], r2[:len(r0)], r3[:len(r0)], sums[:len(r0)]
		for i, x := range r0 {
			sums[i] = sums[i] + x + r1[i] + r2[i] + r3[i]
		}
	}
	for ; d < n; d++ {
		k := draws[d] + lo
		row := rows[k : k+w]
		for i, x := range row {
			sums[i] += x
		}
	}
}

// inRange panics unless every draw is the offset of a row of width values
// that ends in rows: from 0 to len(rows) − width. The
// bootstrap's draws are by their making (a reduction to [0, n), times the
// width); this holds the assembly that reads the rows unchecked to it.
func inRange(draws []int, rows []float64, width int) {
	last := uint(len(rows) - width)
	for _, d := range draws {
		if uint(d) > last {
			panic("metrics: a draw outside the rows")
		}
	}
}
