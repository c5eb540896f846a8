package timing

import "math"

// BufferReads is one buffer's loads in a launch, what the L2's reuse rule
// needs: the distinct bytes they read and the sectors they sent to L2
// (first touches and re-reads; the L1's capacity misses, which
// Counters.CapFar judges by age, left out).
type BufferReads struct {
	Unique    int64 // bytes
	L2Sectors int64
	// Lines is the distinct 128-byte lines the bytes lie in, and
	// LineTouches the line transactions the loads sent to L2 for them
	// (per request, the lines of its L2 sectors, the L1's capacity
	// misses' included); Lines 0: not known.
	Lines, LineTouches int64
}

// held is what the buffer's reads in a share g of the launch take of the
// L2: the L2 allocates 128-byte lines and fills them by sector, so a line
// any of whose sectors was read in the window takes a whole line, and a
// line is touched as often as requests sent it a sector. Without Lines,
// the distinct sectors, each as often as it is touched.
func (b BufferReads) held(g float64) float64 {
	if b.Lines <= 0 {
		return float64(b.Unique) * (1 - math.Pow(1-g, b.touches()))
	}
	k := max(1, float64(b.LineTouches)/float64(b.Lines))
	return float64(b.Lines) * 128 * (1 - math.Pow(1-g, k))
}

// touches is how many times the buffer's loads touched each of its
// sectors in L2, on average (at least 1).
func (b BufferReads) touches() float64 {
	if b.Unique <= 0 {
		return 1
	}
	return max(1, float64(b.L2Sectors)*32/float64(b.Unique))
}

// rereads is the buffer's L2 sectors past the first touch of each.
func (b BufferReads) rereads() float64 {
	return max(0, float64(b.L2Sectors)-float64(b.Unique)/32)
}

// RereadMissShare is the share of buffer b's re-reads that miss an L2 of
// capacity bytes (LRU) while the launch's other reads and its writes
// (written bytes, each once) pass through it.
//
// A sector touched k times at moments spread evenly at random over the
// launch is re-read a gap g (a share of the launch) after its last touch
// with P(gap > g) = (1 − g)^k; in a window of g the launch holds
// D(g) = Σ_c H_c(g) + written·g bytes of the L2, H_c the buffer's part
// (held: its lines × 128 × (1 − (1 − g)^k_c), k_c its line transactions a
// line, since the L2 allocates 128-byte lines; without lines, its
// distinct bytes × (1 − (1 − g)^k), k its touches a sector). LRU keeps
// the sector while D(gap) ≤ capacity, so the share that misses is
// (1 − g*)^k_b, k_b the buffer's touches a sector, with D(g*) =
// capacity, and 0 when the whole launch fits.
// A small buffer gathered often (an SpMV's x beside its streamed matrix)
// is re-read soon and stays; a buffer re-read once, late, does not. The
// even spread is the rule's assumption: a stencil's neighbours, re-read
// within a row, stay longer than it says.
func RereadMissShare(reads []BufferReads, written int64, b int, capacity float64) float64 {
	if b < 0 || b >= len(reads) {
		return 0
	}
	return missShare(reads[b], reuseWindow(reads, written, capacity))
}

// reuseWindow is g*, the share of the launch whose distinct bytes fill
// capacity (RereadMissShare), or 1 when the whole launch fits (or there is
// no capacity to fill): one window for every buffer of the launch.
func reuseWindow(reads []BufferReads, written int64, capacity float64) float64 {
	distinct := func(g float64) float64 {
		d := float64(written) * g
		for _, c := range reads {
			d += c.held(g)
		}
		return d
	}
	if capacity <= 0 || distinct(1) <= capacity {
		return 1
	}
	lo, hi := 0.0, 1.0 // distinct(lo) <= capacity < distinct(hi)
	for range 60 {
		mid := (lo + hi) / 2
		if distinct(mid) <= capacity {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// missShare is the share of buffer b's re-reads whose gap exceeds the
// window g: (1 − g)^k, 0 when the window is the whole launch.
func missShare(b BufferReads, g float64) float64 {
	if g >= 1 {
		return 0
	}
	return math.Pow(1-g, b.touches())
}

// rereadMisses is the launch's re-read sectors that miss L2 by the reuse
// rule (RereadMissShare), summed over its buffers.
func rereadMisses(reads []BufferReads, written int64, capacity float64) float64 {
	g := reuseWindow(reads, written, capacity)
	var n float64
	for _, b := range reads {
		n += b.rereads() * missShare(b, g)
	}
	return n
}
