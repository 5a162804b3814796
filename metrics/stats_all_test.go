package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// aggregateOneByOne is Aggregate as first written: a generator of its own
// for every list. AggregateAll must give the same bits.
func aggregateOneByOne(values []float64) Stats {
	n := len(values)
	if n == 0 {
		return Stats{}
	}
	xs := slices.Clone(values)
	slices.Sort(xs)
	s := describe(xs)
	rng := rand.New(rand.NewPCG(BootstrapSeed1, BootstrapSeed2))
	means := make([]float64, BootstrapResamples)
	for b := range means {
		sum := 0.0
		for range n {
			sum += xs[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	s.CILow, s.CIHigh = quantile(means, 0.025), quantile(means, 0.975)
	return s
}

func TestAggregateAllGivesTheBitsOfOneGeneratorPerList(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	lists := map[string][]float64{"empty": {}, "one": {0.3}, "constant": {0.1, 0.1, 0.1}, "negative constant": {-2.5, -2.5}}
	for i := range 40 {
		n := 1 + i%7 // several lists of each length share draws
		xs := make([]float64, n)
		for j := range xs {
			xs[j] = math.Round(rng.Float64()*100) / 7
		}
		lists[fmt.Sprintf("list %d", i)] = xs
	}
	got := AggregateAll(lists)
	assert.Len(t, got, len(lists))
	for name, xs := range lists {
		assert.Equal(t, aggregateOneByOne(xs), got[name], name)
		assert.Equal(t, aggregateOneByOne(xs), Aggregate(xs), name)
	}
}
