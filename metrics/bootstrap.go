package metrics

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// lengthLists are the sorted lists of one length that a bootstrap
// resamples with the same draws.
type lengthLists struct {
	n   int
	xss [][]float64
}

// bootstrap returns the percentile-bootstrap 95% interval of the mean of
// each list of each length: out[j][i] is that of lengths[j].xss[i]. One
// generator draws the indices of every resample of a length, and each
// draw picks a value from every list of that length: each list sees the
// draws a generator of its own would give it.
//
// The draws of every length come from one generator's outputs, made once:
// a length's draws are Rand.IntN's reductions of the generator's outputs,
// output k giving draw k, so every length reads the same outputs and only
// reduces them to its range (a mask, or Lemire's multiply). Only when an
// output is turned down (Lemire's rejection, which makes draw k come from
// output k+1; about one output in 2⁶⁴/n) does a length leave the shared
// outputs, for a generator of its own placed where it left. A run's
// configuration has a few lengths (the metrics not every task has), and
// stepping the generator costs several times a reduction.
//
// The outputs are made a block at a time by the calling goroutine and
// reduced to every length's draws, while up to workers goroutines of each
// length sum its blocks before, each over a range of its lists (one when the
// lists are few). The lists are laid out by draw (row k holds the k-th
// value of every list), so that a draw reads one contiguous row instead of
// one cache line in each list; each list's sum still adds its values in
// the order of the draws, so the means are those of a generator per list,
// to the last bit. Nothing is allocated per resample, and of each list's
// resample means only those the two percentiles need are kept (tails: 502
// of 10,000), so that the bootstrap of m lists holds 4 KB a list, not
// 80 KB.
func bootstrap(lengths []lengthLists, workers int) [][][2]float64 {
	ls := make([]*lengthRun, len(lengths))
	var wg sync.WaitGroup
	// Blocks of outputs: one being made while the others are read, by
	// the lengths of few lists, which reduce them as they sum.
	free := make(chan *outputBlock, 4)
	for range cap(free) {
		free <- &outputBlock{xs: make([]uint64, drawsPerBlock)}
	}
	for j := range lengths {
		ls[j] = newLengthRun(lengths[j].n, lengths[j].xss, workers, &wg, free)
		lengths[j].xss = nil
	}
	shared := newDraws(0)
	for more := true; more; {
		ob := <-free
		ob.start = *shared
		shared.raw(ob.xs)
		readers := int32(1) // this goroutine, and the lengths of few lists
		for _, l := range ls {
			if l.outs != nil && l.sent < l.total {
				readers++
			}
		}
		ob.left.Store(readers)
		more = false
		for _, l := range ls {
			if l.sent >= l.total {
				continue
			}
			if l.outs != nil {
				l.sent += min(len(ob.xs), l.total-l.sent)
				l.outs <- ob
			} else {
				l.draw(ob.xs, ob.start)
			}
			more = more || l.sent < l.total
		}
		if ob.left.Add(-1) == 0 {
			free <- ob
		}
	}
	for _, l := range ls {
		for _, in := range l.ins {
			close(in)
		}
		if l.outs != nil {
			close(l.outs)
		}
	}
	wg.Wait()
	out := make([][][2]float64, len(ls))
	for j, l := range ls {
		out[j] = make([][2]float64, l.m)
		for i := range out[j] {
			out[j][i] = l.tl.quantiles(i)
		}
	}
	return out
}

// An outputBlock holds drawsPerBlock of the generator's outputs, from
// the state start on, and how many have yet to read them.
type outputBlock struct {
	xs    []uint64
	start draws
	left  atomic.Int32
}

const (
	// drawsPerBlock is how many draws a block holds: 64 KiB of row
	// offsets, which stay in cache between the drawing and the summing.
	drawsPerBlock = 1 << 13
	// minListsPerSummer is the fewest lists worth a summing goroutine of
	// their own.
	minListsPerSummer = 8
)

// A lengthRun is the bootstrap of the lists of one length: their rows,
// the tails of their resample means, the summers' queues (ins, of blocks
// of draws; or outs, of blocks of outputs, for a length of few lists)
// and how many of its draws were handed to them (sent, by the drawing
// goroutine) and summed (made, by the one summer of a length of few
// lists).
type lengthRun struct {
	n, m              int
	rows              []float64
	tl                *tails
	ins               []chan *drawBlock
	free              chan *drawBlock
	outs              chan *outputBlock
	sent, made, total int
	draws             sharedDraws
}

// fewLists is the most lists of a length that its summer draws for
// itself, reducing the shared outputs as it adds the rows they pick: with
// fewer lists than a vector's four lanes, writing the draws out and
// reading them back costs more than the sums.
const fewLists = 3

// newLengthRun lays xss out by draw, letting each list go once it is
// laid out, and starts the length's summers on wg; a summer of few lists
// gives the blocks of outputs it has read to free.
func newLengthRun(n int, xss [][]float64, workers int, wg *sync.WaitGroup, free chan<- *outputBlock) *lengthRun {
	m := len(xss)
	l := &lengthRun{n: n, m: m, rows: make([]float64, n*m), total: n * BootstrapResamples, draws: sharedDraws{n: uint64(n)}}
	for i, xs := range xss {
		for k, x := range xs {
			l.rows[k*m+i] = x
		}
		xss[i] = nil // laid out: the list is not held by the bootstrap
	}
	l.tl = newTails(m, BootstrapResamples, bootstrapLow, bootstrapHigh)
	if m <= fewLists {
		l.outs = make(chan *outputBlock, cap(free))
		wg.Go(func() {
			sums := make([]float64, m)
			var buf []int
			for ob := range l.outs {
				buf = l.sumOutputs(ob.xs, ob.start, sums, buf)
				if ob.left.Add(-1) == 0 {
					free <- ob
				}
			}
		})
		return l
	}
	parts := max(1, min(workers, m/minListsPerSummer))
	// Three blocks: one being drawn while two wait for or are being
	// summed, so that neither side waits for the other in the steady state.
	l.free = make(chan *drawBlock, 3)
	for range cap(l.free) {
		l.free <- &drawBlock{rows: make([]int, drawsPerBlock)}
	}
	l.ins = make([]chan *drawBlock, parts)
	for p := range parts {
		l.ins[p] = make(chan *drawBlock, cap(l.free))
		lo, hi := p*m/parts, (p+1)*m/parts
		wg.Go(func() {
			sums := make([]float64, hi-lo)
			for blk := range l.ins[p] {
				blk.sum(n, m, lo, l.rows, sums, l.tl)
				if blk.left.Add(-1) == 0 {
					l.free <- blk
				}
			}
		})
	}
	return l
}

// sumOutputs is the summer of a length of few lists: it makes the
// length's next draws from the shared outputs xs (from the generator's
// state start on), adding the row each picks to sums as it makes it, in
// the order of the draws, and gives tl the mean of each resample it ends.
// sums holds the sums of the resample the block begins in. Where the
// reduction cannot be done as it goes (a power of two, an output turned
// down, a generator of the length's own), the draws are made into buf
// (returned, grown) and added from there.
func (l *lengthRun) sumOutputs(xs []uint64, start draws, sums []float64, buf []int) []int {
	xs = xs[:min(len(xs), l.total-l.made)]
	j := 0
	if l.draws.own == nil && l.n&(l.n-1) != 0 {
		j = l.addOutputs(xs, sums)
	}
	if j == len(xs) {
		return buf
	}
	// From output j on: as a block of draws.
	at := start
	at.skip(j)
	buf = slices.Grow(buf[:0], len(xs)-j)[:len(xs)-j]
	l.draws.fill(buf, xs[j:], at, l.m)
	inRange(buf, l.rows, l.m)
	blk := drawBlock{first: l.made, rows: buf}
	blk.sum(l.n, l.m, 0, l.rows, sums, l.tl)
	l.made += len(buf)
	return buf
}

// addOutputs reduces the outputs xs to draws into n values, as reduce
// does, adding the row each picks to sums, until an output is turned
// down: it returns how many it reduced. The sums of a resample are held
// in registers, a loop for each number of lists (one to three), each
// list's added to in the order of the draws.
func (l *lengthRun) addOutputs(xs []uint64, sums []float64) int {
	done := 0
	for done < len(xs) {
		// The draws up to the end of a resample, or of xs.
		at := l.made % l.n
		chunk := xs[done:min(len(xs), done+l.n-at)]
		var k int
		switch l.m {
		case 1:
			k = add1(chunk, uint64(l.n), l.rows, sums)
		case 2:
			k = add2(chunk, uint64(l.n), l.rows, sums)
		default:
			k = add3(chunk, uint64(l.n), l.rows, sums)
		}
		done += k
		l.made += k
		if k < len(chunk) {
			return done
		}
		if at+len(chunk) == l.n {
			for i, s := range sums[:l.m] {
				l.tl.add(i, s/float64(l.n))
			}
			clear(sums)
		}
	}
	return len(xs)
}

// add1, add2 and add3 add to sums, for each output of xs until one is
// turned down, the row of one, two or three values it draws from rows,
// and return how many outputs they reduced.
func add1(xs []uint64, n uint64, rows, sums []float64) int {
	thresh := -n % n
	s0 := sums[0]
	for j, x := range xs {
		top, bot := bits.Mul64(x, n)
		if bot < thresh {
			sums[0] = s0
			return j
		}
		s0 += rows[top]
	}
	sums[0] = s0
	return len(xs)
}

func add2(xs []uint64, n uint64, rows, sums []float64) int {
	thresh := -n % n
	s0, s1 := sums[0], sums[1]
	for j, x := range xs {
		top, bot := bits.Mul64(x, n)
		if bot < thresh {
			sums[0], sums[1] = s0, s1
			return j
		}
		r := rows[2*top : 2*top+2]
		s0 += r[0]
		s1 += r[1]
	}
	sums[0], sums[1] = s0, s1
	return len(xs)
}

func add3(xs []uint64, n uint64, rows, sums []float64) int {
	thresh := -n % n
	s0, s1, s2 := sums[0], sums[1], sums[2]
	for j, x := range xs {
		top, bot := bits.Mul64(x, n)
		if bot < thresh {
			sums[0], sums[1], sums[2] = s0, s1, s2
			return j
		}
		r := rows[3*top : 3*top+3]
		s0 += r[0]
		s1 += r[1]
		s2 += r[2]
	}
	sums[0], sums[1], sums[2] = s0, s1, s2
	return len(xs)
}

// draw makes the length's next block of draws from xs, the shared
// outputs from the generator's state start on, and hands it to the
// summers.
func (l *lengthRun) draw(xs []uint64, start draws) {
	blk := <-l.free
	blk.first = l.sent
	blk.rows = blk.rows[:min(len(xs), l.total-l.sent)]
	l.draws.fill(blk.rows, xs, start, l.m)
	inRange(blk.rows, l.rows, l.m)
	l.sent += len(blk.rows)
	blk.left.Store(int32(len(l.ins)))
	for _, in := range l.ins {
		in <- blk
	}
}

// sharedDraws are the draws into n values made from a generator's
// outputs shared with other lengths: output k gives draw k, as long as
// no output is turned down.
type sharedDraws struct {
	n uint64
	// own is the length's generator once it has turned down an output
	// that other lengths took; nil while it reduces the shared ones.
	own *draws
}

// fill sets dst to the next len(dst) draws, each times scale, from xs,
// the shared outputs from the generator's state start on (the outputs of
// the draws made so far, unless the length has a generator of its own).
func (s *sharedDraws) fill(dst []int, xs []uint64, start draws, scale int) {
	k := 0
	if s.own == nil {
		k = reduce(dst, xs, s.n, scale)
		if k < len(dst) {
			// Output k is turned down: from there on, the length's own
			// generator, at the state that gives output k.
			own := start
			own.n = s.n
			own.skip(k)
			s.own = &own
		}
	}
	if s.own != nil {
		s.own.fill(dst[k:], scale)
	}
}

// A drawBlock holds draws first to first+len(rows) of a length, each as
// the offset of its row, and how many summers have yet to sum it. A block
// may begin and end inside a resample.
type drawBlock struct {
	first int
	rows  []int
	left  atomic.Int32
}

// sum adds, for lists lo to lo+len(sums), the values the block's draws
// pick, and gives tl the mean of each resample the block ends. sums holds
// the sums of the resample the block begins in (the summer's, from its
// blocks before).
func (blk *drawBlock) sum(n, m, lo int, rows, sums []float64, tl *tails) {
	if lo < 0 || lo+len(sums) > m {
		panic("metrics: summing lists outside the rows")
	}
	k, draws := blk.first, blk.rows
	for len(draws) > 0 {
		at := k % n
		if at == 0 {
			clear(sums)
		}
		take := min(len(draws), n-at)
		sumDrawsInRange(sums, rows, draws[:take], lo) // the block is inRange
		k, draws = k+take, draws[take:]
		if at+take == n {
			for i, s := range sums {
				tl.add(lo+i, s/float64(n))
			}
		}
	}
}

// draws gives the bootstrap's indices into n values: the numbers that
// rand.New(rand.NewPCG(BootstrapSeed1, BootstrapSeed2)).IntN(n) gives,
// call after call. The PCG's steps are made here, on a state held in
// registers for a whole block of draws (fill), where a Rand calls its
// source through an interface and rand.PCG stores its state to memory at
// every step: the draws are most of a bootstrap of few lists, and a
// third of one of many. Each step is rand.PCG's (a 128-bit LCG and its
// DXSM output, with its constants), and the reduction to [0, n) is the
// one Rand documents for its bounded draws (a mask for a power of two,
// otherwise Lemire's multiply-and-reject), so that the sequence is
// Rand's, draw for draw, on a 64-bit platform; a test holds them side by
// side. (On a 32-bit one Rand reduces lengths below 2³² through 32-bit
// draws; these draws are the same on every platform, and so are the
// intervals.)
type draws struct {
	hi, lo uint64 // the PCG's state: rand.NewPCG(seed1, seed2) starts at (seed1, seed2)
	n      uint64
}

func newDraws(n int) *draws {
	return &draws{hi: BootstrapSeed1, lo: BootstrapSeed2, n: uint64(n)}
}

// pcgStep is one step of rand.PCG from the state (hi, lo): the next
// state and the Uint64 it gives.
func pcgStep(hi, lo uint64) (nhi, nlo, x uint64) {
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		incLo    = 1442695040888963407
		cheapMul = 0xda942042e4dd58b5
	)
	nhi, nlo = bits.Mul64(lo, mulLo)
	nhi += hi*mulLo + lo*mulHi
	nlo, c := bits.Add64(nlo, incLo, 0)
	nhi, _ = bits.Add64(nhi, incHi, c)
	x = nhi
	x ^= x >> 32
	x *= cheapMul
	x ^= x >> 48
	x *= nlo | 1
	return nhi, nlo, x
}

// next is the next draw.
func (d *draws) next() int {
	var x [1]int
	d.fill(x[:], 1)
	return x[0]
}

// raw sets xs to the generator's next len(xs) outputs, not reduced to a
// range.
func (d *draws) raw(xs []uint64) {
	hi, lo := d.hi, d.lo
	for j := range xs {
		hi, lo, xs[j] = pcgStep(hi, lo)
	}
	d.hi, d.lo = hi, lo
}

// skip steps the generator past k outputs.
func (d *draws) skip(k int) {
	hi, lo := d.hi, d.lo
	for range k {
		hi, lo, _ = pcgStep(hi, lo)
	}
	d.hi, d.lo = hi, lo
}

// fill sets dst to the next len(dst) draws, each times scale (the offset
// of the row it picks).
func (d *draws) fill(dst []int, scale int) {
	hi, lo, n := d.hi, d.lo, d.n
	var x uint64
	if n&(n-1) == 0 {
		for j := range dst {
			hi, lo, x = pcgStep(hi, lo)
			dst[j] = int(x&(n-1)) * scale
		}
		d.hi, d.lo = hi, lo
		return
	}
	thresh := -n % n
	for j := range dst {
		hi, lo, x = pcgStep(hi, lo)
		top, bot := bits.Mul64(x, n)
		// Reject the few products that would make low indices likelier.
		for bot < thresh {
			hi, lo, x = pcgStep(hi, lo)
			top, bot = bits.Mul64(x, n)
		}
		dst[j] = int(top) * scale
	}
	d.hi, d.lo = hi, lo
}

// reduce sets dst to the draws into n values that the outputs xs give,
// one output a draw, each times scale, as fill makes them, and returns how
// many it set: all of dst, or the index of the first output that fill
// would turn down (after which a draw takes the output after its own).
func reduce(dst []int, xs []uint64, n uint64, scale int) int {
	xs = xs[:len(dst)]
	if n&(n-1) == 0 {
		for j, x := range xs {
			dst[j] = int(x&(n-1)) * scale
		}
		return len(dst)
	}
	thresh := -n % n
	for j, x := range xs {
		top, bot := bits.Mul64(x, n)
		if bot < thresh {
			return j
		}
		dst[j] = int(top) * scale
	}
	return len(dst)
}
