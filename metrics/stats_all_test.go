package metrics

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
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
	// Lists equal once sorted share their bootstrap; one that differs in
	// a single bit does not.
	reversed := slices.Clone(lists["list 3"])
	slices.Reverse(reversed)
	lists["list 3 reversed"] = reversed
	nudged := slices.Clone(lists["list 5"])
	nudged[0] = math.Nextafter(nudged[0], math.Inf(1))
	lists["list 5 nudged"] = nudged
	lists["zero and ones"], lists["negative zero and ones"] = []float64{0, 1, 1}, []float64{math.Copysign(0, -1), 1, 1}
	before := map[string][]float64{}
	for name, xs := range lists {
		before[name] = slices.Clone(xs)
	}
	got := AggregateAll(lists)
	assert.Len(t, got, len(lists))
	assert.Equal(t, before, lists, "AggregateAll leaves the lists as they were")
	assert.False(t, slices.IsSorted(lists["list 3 reversed"]), "a list out of order to sort")
	inPlace := AggregateAllInPlace(lists)
	assert.Equal(t, got, inPlace, "the same figures, sorting the lists in place")
	for name, xs := range lists {
		assert.True(t, slices.IsSorted(xs), "%s is sorted in place", name)
		assert.ElementsMatch(t, before[name], xs, name)
	}
	for name, xs := range lists {
		assert.Equal(t, aggregateOneByOne(xs), got[name], name)
		assert.Equal(t, aggregateOneByOne(xs), Aggregate(xs), name)
	}
}

func TestAggregateAllGivesTheBitsOfOneGeneratorPerListOnManyTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of bootstraps")
	}
	// The shape of a run's summary: a hundred figures over hundreds of
	// tasks, some with fewer tasks, ties and negative values among them.
	rng := rand.New(rand.NewPCG(3, 4))
	lists := map[string][]float64{}
	for i := range 24 {
		n := 300
		if i%5 == 4 {
			n = 299
		}
		xs := make([]float64, n)
		for j := range xs {
			switch i % 3 {
			case 0:
				xs[j] = float64(rng.IntN(2)) // ties everywhere
			case 1:
				xs[j] = rng.NormFloat64() * 40
			default:
				xs[j] = rng.Float64() / 3
			}
		}
		lists[fmt.Sprintf("metric %02d", i)] = xs
	}
	got := AggregateAll(lists)
	for name, xs := range lists {
		assert.Equal(t, aggregateOneByOne(xs), got[name], name)
	}
}

func TestSelectQuantileIsTheQuantileOfTheSortedValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name string
		gen  func(n int) float64
	}{
		{"distinct values", func(int) float64 { return rng.Float64() }},
		{"a few values, many ties", func(int) float64 { return float64(rng.IntN(3)) }},
		{"one value", func(int) float64 { return 0.5 }},
		{"ascending", func(n int) float64 { return float64(n) }},
		{"descending", func(n int) float64 { return -float64(n) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 10, 41, 1000} {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = tc.gen(i)
				}
				sorted := slices.Sorted(slices.Values(xs))
				for _, q := range []float64{0, 0.025, 0.1, 0.5, 0.975, 1} {
					got := selectQuantile(slices.Clone(xs), q)
					assert.Equal(t, math.Float64bits(quantile(sorted, q)), math.Float64bits(got), "n=%d q=%v", n, q)
				}
				for k := range n {
					ys := slices.Clone(xs)
					assert.Equal(t, sorted[k], selectKth(ys, k), "n=%d k=%d", n, k)
					for i := range k {
						assert.LessOrEqual(t, ys[i], ys[k])
					}
					for i := k + 1; i < n; i++ {
						assert.GreaterOrEqual(t, ys[i], ys[k])
					}
				}
			}
		})
	}
}

// BenchmarkAggregateAll is the statistics of one configuration of a run's
// summary: 115 figures over 1,000 tasks.
func BenchmarkAggregateAll(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	lists := map[string][]float64{}
	for i := range 115 {
		xs := make([]float64, 1000)
		for j := range xs {
			xs[j] = rng.Float64()
		}
		lists[fmt.Sprintf("metric_%03d", i)] = xs
	}
	b.ReportAllocs()
	for b.Loop() {
		AggregateAll(lists)
	}
}

// The lists of one length share one generator's draws, summed by as many
// goroutines as there are processors (for lists enough to share): the
// figures do not depend on how many there are.
func TestAggregateAllDoesNotDependOnTheNumberOfProcessors(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	lists := map[string][]float64{}
	for i := range 40 {
		xs := make([]float64, 5+i/20) // a length summed in parts, another not
		for j := range xs {
			xs[j] = rng.Float64()
		}
		lists[fmt.Sprintf("list %d", i)] = xs
	}
	single := map[string][]float64{"alone": {0.25, 0.5, 1}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	want, wantSingle := AggregateAll(lists), AggregateAll(single)
	for _, procs := range []int{1, 2, 3, 8, 16} {
		runtime.GOMAXPROCS(procs)
		assert.Equal(t, want, AggregateAll(lists), "%d processors", procs)
		assert.Equal(t, wantSingle, AggregateAll(single), "%d processors", procs)
	}
}

// The bootstrap's draws come from the PCG without a Rand, reduced to
// [0, n) as Rand.IntN reduces them: they must be Rand's, draw for draw,
// for a power of two (a mask), a length that hardly ever rejects a draw,
// and lengths near 2⁶³ that reject about one draw in four (3·2⁶¹: 2⁶⁴ mod
// n is 2⁶²) and about one in two (2⁶³ − 1). On a 32-bit platform Rand
// reduces lengths below 2³² another way, and the draws keep the 64-bit
// platforms' sequence instead.
func TestDrawsAreThoseOfRandIntN(t *testing.T) {
	t.Parallel()
	if bits.UintSize == 32 {
		t.Skip("Rand.IntN draws lengths below 2³² through its 32-bit path here")
	}
	for _, n64 := range []uint64{1, 2, 3, 7, 64, 751, 1 << 40, 3 << 61, math.MaxInt64} {
		n := int(n64)
		want := rand.New(rand.NewPCG(BootstrapSeed1, BootstrapSeed2))
		d := newDraws(n)
		for i := range 100000 {
			if w, g := want.IntN(n), d.next(); w != g {
				t.Fatalf("n = %d, draw %d: %d, Rand.IntN gives %d", n, i, g, w)
			}
		}
	}
}

// A block of draws is the draws one at a time, each times the row's
// width, whatever the blocks' sizes: the state carries from one block to
// the next.
func TestDrawsFillBlocksInSequence(t *testing.T) {
	t.Parallel()
	if bits.UintSize == 32 {
		t.Skip("Rand.IntN draws lengths below 2³² through its 32-bit path here")
	}
	for _, n := range []int{1, 8, 751, 3 << 61} {
		want := rand.New(rand.NewPCG(BootstrapSeed1, BootstrapSeed2))
		d := newDraws(n)
		i := 0
		for _, size := range []int{0, 1, 7, 4096, 3, 8192} {
			blk := make([]int, size)
			d.fill(blk, 3)
			for _, g := range blk {
				if w := want.IntN(n) * 3; w != g {
					t.Fatalf("n = %d, draw %d: %d, 3 × Rand.IntN gives %d", n, i, g, w)
				}
				i++
			}
		}
	}
}

// BenchmarkAggregateAllManyTasks is one configuration of a run of 100,008
// trials: 115 figures over 8,334 tasks, whose figures side by side (7 MB)
// do not fit in a core's cache. (Tiles of a few lists each, to keep them
// in cache, were tried: five times the CPU, the loop's cost per draw and
// tile outweighing the misses.)
func BenchmarkAggregateAllManyTasks(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	lists := map[string][]float64{}
	for i := range 115 {
		xs := make([]float64, 8334)
		for j := range xs {
			xs[j] = rng.Float64()
		}
		lists[fmt.Sprintf("metric_%03d", i)] = xs
	}
	for b.Loop() {
		AggregateAll(lists)
	}
}

// The tails a bootstrap keeps of each list's resample means give the
// percentiles of all of them, as selectQuantile gives them, to the last
// bit: whatever the order the values come in, with ties, for lists given
// values side by side, and for counts too small to leave any value out.
func TestTailsGiveTheQuantilesOfAllTheValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	gens := []func(i int) float64{
		func(int) float64 { return rng.Float64() },
		func(int) float64 { return float64(rng.IntN(4)) / 3 },
		func(i int) float64 { return float64(i) },
		func(i int) float64 { return -float64(i) / 7 },
		func(int) float64 { return 0.25 },
	}
	for _, count := range []int{1, 2, 3, 5, 41, 1000, BootstrapResamples} {
		for _, q := range [][2]float64{{bootstrapLow, bootstrapHigh}, {0, 1}, {0.1, 0.9}, {0.5, 0.5}} {
			tl := newTails(len(gens), count, q[0], q[1])
			all := make([][]float64, len(gens))
			for k := range count {
				for i, gen := range gens {
					x := gen(k)
					all[i] = append(all[i], x)
					tl.add(i, x)
				}
			}
			for i := range gens {
				want := [2]float64{selectQuantile(slices.Clone(all[i]), q[0]), selectQuantile(slices.Clone(all[i]), q[1])}
				assert.Equal(t, want, tl.quantiles(i), "count %d, q %v, list %d", count, q, i)
			}
			if count == BootstrapResamples && q[0] == bootstrapLow {
				assert.Equal(t, 251, tl.kLow)
				assert.Equal(t, 251, tl.kHgh)
			}
		}
	}
}

// Lengths that reduce one generator's outputs, block after block, get
// the draws a generator of their own gives, also when a length turns an
// output down and the others take it: 3·2⁶¹ and 2⁶³ − 1 turn down about
// one output in four and one in two, 751 and 8 (a mask) hardly ever or
// never. Blocks of one output, of an odd size and of several thousand,
// and lengths that stop before the others.
func TestSharedDrawsAreEachLengthsOwn(t *testing.T) {
	t.Parallel()
	if bits.UintSize == 32 {
		t.Skip("Rand.IntN draws lengths below 2³² through its 32-bit path here")
	}
	ns := []uint64{8, 751, 3 << 61, math.MaxInt64, 2}
	stops := []int{30000, 20000, 9000, 12345, 1}
	for _, size := range []int{1, 7, 4096} {
		shared := newDraws(0)
		xs := make([]uint64, size)
		lens := make([]sharedDraws, len(ns))
		wants := make([]*draws, len(ns))
		made := make([]int, len(ns))
		for j, n := range ns {
			lens[j] = sharedDraws{n: n}
			wants[j] = newDraws(int(n))
		}
		for more := true; more; {
			start := *shared
			shared.raw(xs)
			more = false
			for j := range lens {
				if made[j] >= stops[j] {
					continue
				}
				got := make([]int, min(size, stops[j]-made[j]))
				lens[j].fill(got, xs, start, 3)
				want := make([]int, len(got))
				wants[j].fill(want, 3)
				if !slices.Equal(got, want) {
					t.Fatalf("blocks of %d, n = %d, draws %d on: %v, its own generator gives %v", size, ns[j], made[j], got[:min(8, len(got))], want[:min(8, len(want))])
				}
				made[j] += len(got)
				more = more || made[j] < stops[j]
			}
		}
		assert.NotNil(t, lens[2].own, "3·2⁶¹ turned an output down")
		assert.Nil(t, lens[1].own, "751 took every output")
	}
}

// Lists without a name bootstrapped with named ones get what Aggregate
// gives them alone, to the last bit: no Wilson interval for values of 0
// and 1, the interval of a named list with the same values, nothing for
// an empty list, lengths of their own and lengths shared with the named.
func TestAggregateAllInPlaceWithGivesUnnamedListsWhatAggregateGives(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	named := map[string][]float64{"success@5": {0, 1, 1, 0, 1}, "recall@5": {0.5, 0.25, 1, 0.75}}
	for i := range 12 {
		xs := make([]float64, 3+i%4)
		for j := range xs {
			xs[j] = rng.Float64()
		}
		named[fmt.Sprintf("list %d", i)] = xs
	}
	unnamed := [][]float64{{1, 0, 1, 1, 0}, {}, {0.75, 1, 0.25, 0.5}, {0.2, 0.4, 0.1, 0.3, 0.9, 0.8, 0.7}, {2}}
	wantNamed := AggregateAll(named)
	var want []Stats
	for _, xs := range unnamed {
		want = append(want, Aggregate(xs))
	}
	gotNamed, got := AggregateAllInPlaceWith(named, unnamed...)
	assert.Equal(t, wantNamed, gotNamed)
	assert.Equal(t, want, got)
	assert.Nil(t, got[0].WilsonLow, "an unnamed list of 0 and 1 is not a proportion")
	assert.NotNil(t, gotNamed["success@5"].WilsonLow)
	assert.Equal(t, gotNamed["recall@5"].CILow, got[2].CILow)
	assert.Equal(t, Stats{}, got[1])
	for _, xs := range unnamed {
		assert.True(t, slices.IsSorted(xs), "sorted in place")
	}
	_, none := AggregateAllInPlaceWith(map[string][]float64{"a": {1, 2}})
	assert.Empty(t, none)
}

// Lengths of one to three lists are summed as their draws are made from
// the shared outputs; lengths of more are drawn, then summed: both give
// the bits of a generator per list, for powers of two (a mask, made into
// a block of draws), lengths that do not divide a block of outputs, and
// a length of one list beside lengths of many.
func TestAggregateAllOfLengthsOfFewListsGivesTheBitsOfOneGeneratorPerList(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	lists := map[string][]float64{}
	for _, lc := range []struct{ n, m int }{{2, 1}, {4, 3}, {7, 1}, {7 + 1, 2}, {9, 4}, {10, 2}, {29, 3}, {31, 9}, {16, 2}} {
		for i := range lc.m {
			xs := make([]float64, lc.n)
			for j := range xs {
				xs[j] = math.Round(rng.NormFloat64()*1000) / 13
			}
			lists[fmt.Sprintf("n%d-%d", lc.n, i)] = xs
		}
	}
	got := AggregateAll(lists)
	for name, xs := range lists {
		assert.Equal(t, aggregateOneByOne(xs), got[name], name)
	}
}

// A length of few lists that has a generator of its own (after it turned
// an output down) sums the draws of that generator, not the shared
// outputs; and an output turned down stops the sums as it goes, with
// the draws before it added and counted.
func TestSumOutputsFollowsTheLengthsOwnGenerator(t *testing.T) {
	t.Parallel()
	xss := func() [][]float64 { return [][]float64{{0.5, 1.5, 2.25, 4, 8}, {1, 2, 3, 5, 7}} }
	var wg sync.WaitGroup
	free := make(chan *outputBlock, 1)
	shared := newLengthRun(3, [][]float64{{10, 20, 40}}, 1, &wg, free)
	sums := make([]float64, 1)
	// 0 is turned down for n = 3 (2⁶⁴ mod 3 = 1, and 0·3 leaves 0).
	assert.Equal(t, 2, shared.addOutputs([]uint64{1 << 63, math.MaxUint64, 0, 5}, sums))
	assert.Equal(t, 2, shared.made)
	assert.Equal(t, []float64{20 + 40}, sums, "draws 1 and 2 added before the output turned down")
	rows := []float64{1, 10, 100, 2, 20, 200, 4, 40, 400}
	sums2, sums3 := []float64{0.5, 0.5}, []float64{0.5, 0.5, 0.5}
	assert.Equal(t, 3, add2([]uint64{math.MaxUint64, 1 << 63, 1, 0, 7}, 3, rows[:6], sums2), "two lists")
	assert.Equal(t, []float64{0.5 + 20 + 100 + 1, 0.5 + 200 + 2 + 10}, sums2, "rows 2, 1, 0 of (1, 10), (100, 2), (20, 200)")
	assert.Equal(t, 2, add3([]uint64{math.MaxUint64, 1 << 63, 0}, 3, rows, sums3), "three lists")
	assert.Equal(t, []float64{0.5 + 4 + 2, 0.5 + 40 + 20, 0.5 + 400 + 200}, sums3)
	assert.Equal(t, 2, add2([]uint64{5, 6}, 3, rows[:6], sums2), "none turned down")
	// 0xAAAAAAAAAAAAAAAB · 3 leaves 1 = 2⁶⁴ mod 3: the least product
	// taken, not turned down.
	const least = 0xAAAAAAAAAAAAAAAB
	assert.Equal(t, 1, add1([]uint64{least}, 3, rows[:3], []float64{0}))
	assert.Equal(t, 1, add2([]uint64{least}, 3, rows[:6], []float64{0, 0}))
	assert.Equal(t, 1, add3([]uint64{least}, 3, rows, []float64{0, 0, 0}))
	dst := make([]int, 2)
	assert.Equal(t, 1, reduce(dst, []uint64{least, 0}, 3, 4), "reduce takes it too, and turns 0 down")
	assert.Equal(t, []int{2 * 4, 0}, dst, "the least product draws index 2 (2⁶⁵ + 1 over 2⁶⁴)")

	// A summer given lists past the rows' width is refused before the
	// assembly reads them.
	assert.Panics(t, func() {
		blk := drawBlock{rows: []int{0}}
		blk.sum(1, 2, 1, []float64{1, 2}, make([]float64, 2), newTails(3, 1, bootstrapLow, bootstrapHigh))
	})

	// Outputs turned down inside a block: the draws before it from the
	// block, those after it from a generator placed at that output.
	mid := newLengthRun(3, [][]float64{{10, 20, 40}}, 1, &wg, free)
	block := []uint64{math.MaxUint64, 1 << 63, 0, 9, 9, 9, 9, 9}
	midSums := make([]float64, 1)
	mid.sumOutputs(block, *newDraws(0), midSums, nil)
	close(mid.outs)
	assert.Equal(t, 8, mid.made)
	assert.NotNil(t, mid.draws.own)
	rest := newDraws(3)
	rest.skip(2)
	after := make([]int, 6)
	rest.fill(after, 1)
	picked := append([]int{2, 1}, after...)
	vals := []float64{10, 20, 40}
	var wantLows []float64
	for r := range 2 {
		wantLows = append(wantLows, (vals[picked[3*r]]+vals[picked[3*r+1]]+vals[picked[3*r+2]])/3)
	}
	gotLows := slices.Clone(mid.tl.lows[:mid.tl.nLow[0]])
	slices.Sort(gotLows)
	slices.Sort(wantLows)
	assert.Equal(t, wantLows, gotLows, "two resamples ended")
	assert.Equal(t, []float64{vals[picked[6]] + vals[picked[7]]}, midSums, "the third begun")
	close(shared.outs)

	d := newDraws(0)
	xs := make([]uint64, 40)
	d.raw(xs)
	// The means each list's tails were given, sorted.
	run := func(own bool) [][]float64 {
		l := newLengthRun(5, xss(), 1, &wg, free)
		if own {
			// A generator of its own placed 3 outputs further on than the
			// shared ones: its draws are those of outputs 3 to 42.
			o := newDraws(5)
			o.skip(3)
			l.draws.own = o
		}
		sums := make([]float64, 2)
		l.sumOutputs(xs, *newDraws(0), sums, nil)
		close(l.outs)
		assert.Equal(t, 40, l.made)
		if !own {
			assert.Equal(t, []float64{0, 0}, sums, "40 draws end the eighth resample of 5: its sums are cleared")
		}
		var means [][]float64
		for i := range 2 {
			ms := slices.Clone(l.tl.lows[i*l.tl.kLow : i*l.tl.kLow+int(l.tl.nLow[i])])
			slices.Sort(ms)
			means = append(means, ms)
		}
		return means
	}
	wantMeans := func(d *draws) [][]float64 {
		draws := make([]int, 40)
		d.fill(draws, 1)
		means := [][]float64{nil, nil}
		for i := range 2 {
			for r := range 8 {
				sum := 0.0
				for _, k := range draws[5*r : 5*r+5] {
					sum += xss()[i][k]
				}
				means[i] = append(means[i], sum/5)
			}
			slices.Sort(means[i])
		}
		return means
	}
	o := newDraws(5)
	o.skip(3)
	assert.Equal(t, wantMeans(newDraws(5)), run(false), "the shared outputs' draws")
	assert.Equal(t, wantMeans(o), run(true), "the length's own generator's draws")
	wg.Wait()
}
