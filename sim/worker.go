package sim

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/warplab/warplab/sim/timing"
)

const (
	opLd = iota
	opSt
	opAtom
	numOps
)

var opNames = [numOps]string{"ld", "st", "atom"}

// siteKey identifies a dense site: a declared Site (or -1 for a buffer's
// default site), the buffer, the operation, the space and the unrolled copy.
type siteKey struct {
	site    int32
	buf     int
	op      int8
	shared  bool
	variant int8
}

// siteAgg accumulates one dense site's counters over a launch in one worker.
type siteAgg struct {
	key   siteKey
	label string
	meta  *bufMeta     // global buffer, nil for shared
	dram  *bitmap      // sectors of meta touched this launch
	spans *sectorSpans // loads: the blocks that sent each sector of meta to L2 (pending.go)

	requests, sectors      int64
	wavefronts, ideal      int64
	laneSlots, activeLanes int64
	hist                   [33]int64
	l2Sectors              int64 // sectors that missed the per-block L1 model
	missRequests           int64 // load requests with at least one such sector
	capSectors             int64 // re-touched sectors the L1's capacity lost (worker.l1Lost)
	capFar                 int64 // of those, the ones old enough to have left L2 as well
	capRequests            int64 // load requests with such a sector and no first touch
	l2Lines                int64 // line transactions to L2: per request, the lines with a sector it sends there
	l2Grans                int64 // per load request, the 64-byte granules (sector pairs) with a sector it sends to L2
	lines                  int64 // L1 data-stage wavefronts (bank rule), summed
}

// siteLanes holds one warp's accesses at one site until the warp is done
// (or reaches a barrier): for each lane, the sector (global) or word
// (shared) of each of its accesses, in order. The k-th entries of all lanes
// form the warp's k-th request at the site. Appending to a lane's own list
// keeps the hot path sequential in memory; the requests are put together
// when the warp is flushed.
type siteLanes struct {
	live  uint32 // lanes with entries; nonzero exactly when in warpAcc.touched
	wide  bool   // some access spans two sectors or words
	lanes [32][]uint32
	// second holds an access's last sector or word when it spans two
	// (8-byte shared elements), noSecond otherwise; allocated on first use
	// so the common case stays small.
	second *[32][]uint32
}

// noAccess marks a lane that was predicated off at its k-th turn at a site
// (SkipLd, SkipSt); noSecond, an access that fits one sector or word.
const (
	noAccess = ^uint32(0)
	noSecond = ^uint32(0)
)

// warpAcc holds the requests of one warp until the warp is done.
type warpAcc struct {
	sites    []siteLanes
	touched  []int32
	maxInstr int64
	buf      [64]uint32 // one request's sectors or words, being counted
}

// worker runs blocks on one goroutine and owns all per-block state, so the
// hot path takes no locks.
type worker struct {
	l *launch
	k *Kernel

	pxx ptxExtra // the PTX executor's rarer counters and state (ptxwarp.go)

	sites    []siteAgg
	explicit [][8]expl // Site -> dense index per op/space
	defIdx   []int32   // buf.id*numOps*2 + op*2 + shared -> dense
	variants map[[2]int32]int32

	accs []warpAcc

	// per-block L1 model: distinct sectors a block has touched, and when
	l1         []l1Entry // open addressing
	l1gen      uint64
	l1used     int
	l1recent   [1024]uint64
	l1recentAt [1024]int32 // the entry of each l1recent tag
	// The L1's capacity (PTX launches): l1cap is the launch's curve
	// (timing.L1Off for Go kernels); l1now is the running warp's line clock,
	// l1lines the lines its requests touched since the executor last took
	// them, l1blk the block.
	l1cap   timing.L1Cap
	l1now   uint32
	l1lines uint32
	l1blk   uint64
	// l1round numbers the passes (first-level load rounds) this worker's
	// warps open; l1seen remembers, direct-mapped, which lines the open
	// pass has counted, so an unrolled body's loads of one line count it
	// once.
	l1round uint64
	l1seen  [256]uint64
	// l1pos is the running warp's place for the L1's in-flight lines
	// (timing.Constants.L1InFlight; 0: off, or a Go kernel): flightPos's
	// warp, barrier interval and load round. A sector's entry keeps the
	// earliest place a warp fetched it from.
	l1pos uint32

	warpInstr int64

	// what the executor records for the time model (timemodel_ptx.go)
	tmMiss int64           // load requests that missed the L1 model, so far
	tmCap  int64           // load requests that lost a sector to the L1's capacity (and missed nothing else), so far
	tmWide int64           // of tmMiss, the gathers (more than four lines to L2, spread over twice as many), so far
	tmWait int64           // load requests that missed nothing but touched a sector another warp had in flight (l1Entry.inFlight), so far
	mem    timing.Memory   // memory requests, so far: a warp's record takes what it added
	rec    timing.Recorder // takes a PTX launch's records, block by block (a *timing.BlockLog)
	warp   timing.Warp     // the record being handed over (one per worker: a record on the stack would escape through rec)

	fault    *Fault
	faultBlk int

	// shared memory of the current block
	sh sharedState

	co []*coThread // coroutine threads for Sync kernels

	px *ptxWorker // PTX executor state (LaunchPTX)

	dram  map[[2]int]*bitmap            // this worker's DRAM footprint per buffer and direction
	spans map[int]*sectorSpans          // per buffer read, the blocks that fetched each sector (pending.go)
	atom  map[uint64]*timing.AtomicLine // global atomics by 128-byte line (timemodel_ptx.go's tmAtomic)

	// lane-descending fast path (fastpath.go)
	undo    []undoEntry    // old values of the block's global stores
	atomics int            // global atomics in the current block
	wlog    [32][]logEntry // per lane: the shuffles it made, in order
	ft      *Thread

	single   bool // run one block only (block 0 of a Sync kernel)
	usedSync bool // a barrier, shared memory or an intrinsic other than __shfl_down_sync was used
}

func newWorker(l *launch) *worker {
	return &worker{l: l, k: l.k, variants: map[[2]int32]int32{}, faultBlk: -1, l1cap: timing.L1Off}
}

// dense returns the dense index for key, creating its accumulator.
func (w *worker) newDense(key siteKey, meta *bufMeta, label string) int32 {
	d := int32(len(w.sites))
	agg := siteAgg{key: key, label: label, meta: meta}
	if meta != nil {
		agg.dram = w.bitmapFor(meta, key.op != opLd)
		if key.op == opLd && w.l.px != nil {
			// PTX launches only: a Go kernel's blocks are not numbered
			// for the L1 model (w.l1blk), so it has no spans.
			agg.spans = w.spansFor(meta)
		}
	}
	w.sites = append(w.sites, agg)
	for i := range w.accs {
		w.accs[i].sites = append(w.accs[i].sites, siteLanes{})
	}
	return d
}

func (w *worker) defaultSite(b *bufMeta, op int, shared bool) int32 {
	i := b.id*numOps*2 + op*2
	if shared {
		i++
	}
	if i < len(w.defIdx) {
		if d := w.defIdx[i]; d >= 0 {
			return d
		}
	} else {
		n := len(w.defIdx)
		for n <= i {
			n = 2*n + 16
		}
		grown := make([]int32, n)
		for j := range grown {
			grown[j] = -1
		}
		copy(grown, w.defIdx)
		w.defIdx = grown
	}
	label := b.name + " " + opNames[op]
	d := w.newDense(siteKey{site: -1, buf: b.id, op: int8(op), shared: shared}, metaIfGlobal(b, shared), label)
	w.defIdx[i] = d
	return d
}

func metaIfGlobal(b *bufMeta, shared bool) *bufMeta {
	if shared {
		return nil
	}
	return b
}

// explicitSite returns the dense index of declared site s used on buffer b
// with j = op*2 (+1 for shared memory). The fast path is small enough to
// inline into every load and store: the site was seen before with b.
func (w *worker) explicitSite(s Site, b *bufMeta, j int) int32 {
	if d := w.cachedSite(s, b, j); d >= 0 {
		return d
	}
	return w.explicitSiteSlow(s, b, j)
}

// cachedSite is explicitSite's inlinable half: -1 when the slow path must
// decide.
func (w *worker) cachedSite(s Site, b *bufMeta, j int) int32 {
	if uint(s) < uint(len(w.explicit)) {
		if e := w.explicit[s][j&7]; e.buf == b.id {
			return e.d
		}
	}
	return -1
}

func (w *worker) explicitSiteSlow(s Site, b *bufMeta, j int) int32 {
	op, shared := j/2, j%2 == 1
	if s < 0 || int(s) >= len(w.k.sites) {
		return w.defaultSite(b, op, shared)
	}
	for int(s) >= len(w.explicit) {
		var row [8]expl
		for i := range row {
			row[i] = expl{-1, -1}
		}
		w.explicit = append(w.explicit, row)
	}
	// A site used with another buffer than before: key it by both.
	key := siteKey{site: int32(s), buf: b.id, op: int8(op), shared: shared}
	for i := range w.sites {
		if w.sites[i].key == key {
			w.explicit[s][j] = expl{int32(i), b.id}
			return int32(i)
		}
	}
	d := w.newDense(key, metaIfGlobal(b, shared), w.k.sites[s])
	w.explicit[s][j] = expl{d, b.id}
	return d
}

// expl caches the dense index of a declared site and the buffer it was
// last used with.
type expl struct {
	d   int32
	buf int
}

// variantOf maps a dense site to its copy for the current unrolled iteration.
func (w *worker) variantOf(d int32, t *Thread) int32 {
	v := t.variant()
	if v == 0 {
		return d
	}
	k := [2]int32{d, int32(v)}
	if dv, ok := w.variants[k]; ok {
		return dv
	}
	key := w.sites[d].key
	key.variant = int8(v)
	dv := w.newDense(key, w.sites[d].meta, w.sites[d].label)
	w.variants[k] = dv
	return dv
}

// skip puts a hole in this lane's list at dense site d: the lane makes no
// access this time, but keeps its place for the next.
func (t *Thread) skip(d int32) {
	t.w.record(t, d, noAccess, noAccess)
}

// record records one lane's access at dense site d, touching sectors (or
// words) first to last: it becomes part of the warp-level request numbered
// by how many turns this lane has had at the site.
func (w *worker) record(t *Thread, d int32, first, last uint32) {
	sl, lane := w.entry(t, d, first)
	if first != last || sl.wide {
		w.recordWide(sl, lane, first, last)
	}
}

// entry appends v to this lane's list at dense site d (the copy for the
// current unrolled iteration) and counts the instruction; every access,
// global or shared, goes through it.
func (w *worker) entry(t *Thread, d int32, v uint32) (*siteLanes, int) {
	if t.unroll != 0 {
		d = w.variantOf(d, t)
	}
	t.instr++
	if t.instr&4095 == 0 {
		w.checkRunaway(t)
	}
	acc := t.acc
	sl := &acc.sites[d]
	if sl.live == 0 {
		acc.touched = append(acc.touched, d)
	}
	lane := t.lane & 31
	sl.live |= 1 << uint(lane)
	sl.lanes[lane] = append(sl.lanes[lane], v)
	return sl, lane
}

// recordWide keeps the second lists in step for accesses that span two
// sectors or words; it is off the hot path.
func (w *worker) recordWide(sl *siteLanes, lane int, first, last uint32) {
	if sl.second == nil {
		sl.second = new([32][]uint32)
	}
	if !sl.wide {
		sl.wide = true
		for l := range sl.lanes {
			sl.second[l] = sl.second[l][:0]
			n := len(sl.lanes[l])
			if l == lane {
				n-- // the entry just appended is added below
			}
			for range n {
				sl.second[l] = append(sl.second[l], noSecond)
			}
		}
	}
	second := noSecond
	if first != last && first != noAccess {
		second = last
	}
	sl.second[lane] = append(sl.second[lane], second)
}

// uniq sorts a (insertion sort: short and nearly sorted) and moves its
// distinct values to the front, returning how many there are.
func uniq(a []uint32) int {
	for i := 1; i < len(a); i++ {
		v := a[i]
		j := i - 1
		for j >= 0 && a[j] > v {
			a[j+1] = a[j]
			j--
		}
		a[j+1] = v
	}
	if len(a) == 0 {
		return 0
	}
	k := 1
	for i := 1; i < len(a); i++ {
		if a[i] != a[k-1] {
			a[k] = a[i]
			k++
		}
	}
	return k
}

// global records a global access at byte offset off of its buffer, as the
// offset of its first 4-byte word. Buffers start on 256-byte boundaries and
// elements are 4 or 8 bytes, so the word fixes the sector (word/8) and the
// L1 bank (word mod 32); an 8-byte element's second word is implied.
func (w *worker) global(t *Thread, d int32, off uint64) {
	w.entry(t, d, uint32(off>>2))
}

// maxThreadInstr is the default bound on one thread's issued instructions
// (accesses and Ops): a lesson kernel's thread issues thousands; one that
// reaches this is looping for ever, and gets a fault instead of hanging the
// notebook. Kernel.MaxInstructions overrides it.
const maxThreadInstr = 1 << 31

// checkRunaway stops a thread whose launch was cancelled or that has run
// away. It is called every 4096 of the thread's instructions.
func (w *worker) checkRunaway(t *Thread) {
	if w.l.cancelled.Load() {
		t.fail(&Fault{Kind: "cancelled", Detail: "the launch was cancelled (its context is done)"})
	}
	limit := w.k.MaxInstructions
	if limit <= 0 {
		limit = maxThreadInstr
	}
	if t.instr >= limit {
		t.fail(&Fault{Kind: "runaway thread", Detail: fmt.Sprintf("the thread has issued %d instructions; a loop that never ends? (Kernel.MaxInstructions is %d)", t.instr, limit)})
	}
}

// endThread folds a finished lane into its warp and clears its counts.
func (w *worker) endThread(t *Thread) {
	acc := t.acc
	if t.instr > acc.maxInstr {
		acc.maxInstr = t.instr
	}
	t.instr = 0
	t.unroll = 0
}

// flush turns a finished warp's slots into counters and adds its issued
// instructions.
func (w *worker) flush(acc *warpAcc) {
	w.flushRequests(acc)
	w.warpInstr += acc.maxInstr
	acc.maxInstr = 0
}

// flushRequests turns the warp's assembled requests into counters. A Sync
// block calls it at every barrier too: the barrier is a point where the warp
// reconverges, so no request pairs accesses from both sides of it, and
// the per-warp state stays as small as one barrier interval.
func (w *worker) flushRequests(acc *warpAcc) {
	for _, d := range acc.touched {
		sl := &acc.sites[d]
		agg := &w.sites[d]
		longest := 0
		for m := sl.live; m != 0; m &= m - 1 {
			longest = max(longest, len(sl.lanes[bits.TrailingZeros32(m)]))
		}
		for k := 0; k < longest; k++ {
			// Gather the k-th entries; lanes usually touch rising
			// addresses, so the list is often sorted and distinct as it
			// is gathered, and then needs no sort.
			n, lanes, sorted := 0, 0, true
			for m := sl.live; m != 0; m &= m - 1 {
				lane := bits.TrailingZeros32(m)
				l := sl.lanes[lane]
				if k >= len(l) || l[k] == noAccess {
					continue
				}
				lanes++
				v := l[k]
				switch {
				case n == 0 || v > acc.buf[n-1]:
					acc.buf[n] = v
					n++
				case v < acc.buf[n-1]:
					acc.buf[n] = v
					n++
					sorted = false
				}
				if sl.wide {
					if v := (*sl.second)[lane][k]; v != noSecond {
						acc.buf[n] = v
						n++
						sorted = false
					}
				}
				if n > len(acc.buf)-2 {
					n = uniq(acc.buf[:n])
				}
			}
			if lanes == 0 {
				continue
			}
			if !sorted {
				n = uniq(acc.buf[:n])
			}
			w.request(agg, acc.buf[:n], lanes)
		}
		for m := sl.live; m != 0; m &= m - 1 {
			lane := bits.TrailingZeros32(m)
			sl.lanes[lane] = sl.lanes[lane][:0]
			if sl.second != nil {
				sl.second[lane] = sl.second[lane][:0]
			}
		}
		sl.live, sl.wide = 0, false
	}
	acc.touched = acc.touched[:0]
}

// request counts one warp-level request of the given active lanes touching
// the sectors (global) or words (shared) in v.
// v is sorted and distinct.
func (w *worker) request(agg *siteAgg, v []uint32, lanes int) {
	agg.requests++
	agg.laneSlots += 32
	agg.activeLanes += int64(lanes)
	agg.hist[min(lanes, 32)]++
	if agg.key.shared {
		wf, ideal := wavefronts(v)
		agg.wavefronts += wf
		agg.ideal += ideal
		w.mem.SharedRequests++
		w.mem.SharedWaves += wf
		w.mem.SharedIdeal += ideal
		return
	}
	// v holds the distinct 4-byte words (offsets in the buffer), sorted.
	// Sectors are 8 words; the L1 serves a request in as many data-stage
	// wavefronts as its busiest bank (32 banks of 4 bytes, as shared
	// memory) has distinct words: l1tex__data_pipe_lsu_wavefronts_mem_lgds.
	wide := agg.meta.esize == 8
	base := uint32(agg.meta.addr >> 5)
	load := agg.key.op == opLd
	most := busiestBank(v, wide)
	sector, line, l2line, l2gran, l2first := uint32(1<<32-1), uint32(1<<32-1), uint32(1<<32-1), uint32(1<<32-1), uint32(1<<32-1)
	var sectors, misses, lost, far, waits, l2lines, l2grans int64
	// Consecutive words (a coalesced request) skip straight to the next
	// sector's first word; a request of a few words is not worth the test.
	consecutive := len(v) > 8 && v[len(v)-1]-v[0] == uint32(len(v)-1)
	for i := 0; i < len(v); i++ {
		wd := v[i]
		s := wd >> 3
		if s == sector {
			continue
		}
		if consecutive {
			i += 7 - int(wd&7)
		}
		sector = s
		sectors++
		ln := (base + s) >> 2
		// L1 caches loads; stores and atomics write through to L2.
		toL2 := !load
		if !load {
			misses++
			agg.dram.set(s)
		} else {
			if ln != line {
				line = ln
				key := w.l1round<<32 | uint64(ln)
				if f := &w.l1seen[(ln*0x9E3779B1)>>24]; *f != key {
					*f = key
					w.l1lines++
				}
			}
			isNew, age, wait := w.l1Touch(base+s, w.l1now)
			switch {
			case wait:
				waits++
			case isNew:
				misses++
				agg.dram.set(s)
				toL2 = true
				if agg.spans != nil {
					agg.spans.touch(s, w.l1blk)
				}
			case age > w.l1cap.Safe && w.l1Lost(base+s, age):
				lost++
				toL2 = true
				if age > w.l1cap.Far {
					far++
				}
			}
		}
		// One line transaction per line the request sends sectors of to
		// L2: sectors come sorted, so a line's sectors are adjacent.
		if toL2 && ln != l2line {
			l2line = ln
			if l2first == 1<<32-1 {
				l2first = ln
			}
			l2lines++
		}
		// And one 64-byte DRAM granule per sector pair a load sends to
		// L2 (timing.Counters.L2LoadGranules).
		if toL2 && load && (base+s)>>1 != l2gran {
			l2gran = (base + s) >> 1
			l2grans++
		}
	}
	agg.sectors += sectors
	agg.l2Lines += l2lines
	agg.l2Grans += l2grans
	agg.lines += most
	w.mem.GlobalRequests++
	w.mem.GlobalSectors += sectors
	w.mem.L2Sectors += misses + lost
	w.mem.L2Lines += l2lines
	w.mem.L1Wavefronts += most
	agg.l2Sectors += misses
	agg.capSectors += lost
	agg.capFar += far
	if misses > 0 && load {
		agg.missRequests++
		w.tmMiss++
		// A gather (timing.Rounds.MissWide): more than four lines, spread
		// over more than twice as many as it touches (dram_scatter's
		// random lines; a request of adjacent lines, a short-row CSR
		// walk's, is its DRAM pages' as a coalesced one's is).
		if l2lines > 4 && int64(l2line-l2first)+1 > 2*l2lines {
			w.tmWide++
		}
	} else {
		if lost > 0 {
			agg.capRequests++
		}
		// Nothing of its own to fetch, but a sector on its way for
		// another warp: the request waits the rest of that fetch, which
		// outlasts a refetch of what the capacity lost.
		if load && waits > 0 {
			w.tmWait++
		} else if lost > 0 {
			w.tmCap++
		}
	}
}

// l1Lost decides whether the L1 lost sector s, re-touched age lines (of
// its warp's line clock) after its last touch, to the other resident
// warps' lines. While the SM's warps × the lines each touches between two
// touches of a sector fit the L1, the sector stays; as they outgrow it,
// more of the re-touches miss. ρ is that ratio; the share of re-touches
// that miss rises linearly from L1MissFrom to L1MissTo, the curve measured
// on the H200 (evidence/timemodel-l1reuse-h200-2026-12-01, docs/timemodel.md).
// The draw is a hash of the sector, the block and the clock, so a result
// does not depend on which worker ran the block.
func (w *worker) l1Lost(s, age uint32) bool {
	c := &w.l1cap
	p := (float64(age)*c.Press - c.From) / c.Span
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	h := uint64(s) | w.l1blk<<32
	h ^= uint64(w.l1now) * 0x9E3779B97F4A7C15
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return float64(h>>11)/(1<<53) < p
}

// wavefronts is the shared-memory cost of one request: 32 banks of 4 bytes,
// lanes reading one word share it, and each bank serves one word per
// wavefront, so the request takes as many wavefronts as the busiest bank has
// distinct words. ideal is the cost without conflicts.
func wavefronts(words []uint32) (wf, ideal int64) {
	ideal = max(1, int64((len(words)+31)/32))
	return busiestBank(words, false), ideal
}

// busiestBank is the most distinct words any of 32 four-byte banks holds,
// for sorted, distinct words; with pairs, each word's successor (the second
// half of an 8-byte element) counts too. It is the wavefront count of a
// shared request and, by the same rule, of a global one in the L1.
func busiestBank(words []uint32, pairs bool) int64 {
	if len(words) == 0 {
		return 0
	}
	if words[len(words)-1]-words[0] <= 30 {
		// Within 32 consecutive words (31 with pairs), every word has a
		// bank of its own: the coalesced case needs no count.
		return 1
	}
	var perBank [32]int32
	var most int32
	for _, wd := range words {
		perBank[wd&31]++
		most = max(most, perBank[wd&31])
		if pairs {
			perBank[(wd+1)&31]++
			most = max(most, perBank[(wd+1)&31])
		}
	}
	return int64(most)
}

// l1Touch adds sector s, touched at line clock now, to the block's L1
// model. It reports whether s was new (a miss that goes to L2) and, when it
// was not, how far the clock moved since its last touch (0 when the last
// touch was by a warp whose clock is ahead: the block's warps are taken to
// run abreast) and whether the running warp waits for it in flight
// (l1Entry.inFlight).
func (w *worker) l1Touch(s, now uint32) (isNew bool, age uint32, wait bool) {
	tag := w.l1gen<<32 | uint64(s)
	// A small direct-mapped filter of recent sectors answers most repeats
	// without probing the hash table; it only ever holds sectors already in
	// the set, with their entries, so it cannot change the answer.
	fi := s & uint32(len(w.l1recent)-1)
	if w.l1recent[fi] == tag {
		i := w.l1recentAt[fi]
		return false, w.l1Age(i, now), w.l1[i].inFlight(w.l1pos)
	}
	if w.l1used*2 >= len(w.l1) {
		w.l1Grow()
	}
	mask := uint64(len(w.l1) - 1)
	h := (uint64(s) * 0x9E3779B97F4A7C15) >> 20
	for i := h & mask; ; i = (i + 1) & mask {
		e := &w.l1[i]
		if e.tag == tag {
			w.l1recent[fi], w.l1recentAt[fi] = tag, int32(i)
			return false, w.l1Age(int32(i), now), e.inFlight(w.l1pos)
		}
		if e.tag>>32 != w.l1gen {
			*e = l1Entry{tag, now, w.l1pos}
			w.l1used++
			w.l1recent[fi], w.l1recentAt[fi] = tag, int32(i)
			return true, 0, false
		}
	}
}

// l1Age is how far clock now is past entry i's last touch, which it moves
// to now.
func (w *worker) l1Age(i int32, now uint32) uint32 {
	e := &w.l1[i]
	d := int32(now - e.clk)
	e.clk = now
	return uint32(max(d, 0))
}

// l1Entry is one sector of the block's L1 model: gen<<32 | sector, the
// line clock of the warp that touched it last and the place (flightPos)
// it was fetched from. They share a cache line, so a re-touch reads one.
type l1Entry struct {
	tag uint64
	clk uint32
	pos uint32
}

// A place in a block's run, for the L1's in-flight lines: the warp's index
// + 1 (0: none), the bar.sync waits it has passed (mod 2^posBarBits) and
// the load rounds it has opened since the last (at most posRoundMax).
const (
	posRoundBits = 16
	posBarBits   = 10
	posRoundMax  = 1<<posRoundBits - 1
	posBarMask   = (1<<posBarBits - 1) << posRoundBits
	posWarpShift = posRoundBits + posBarBits
)

// flightPos is the place of a warp (index warp in its block) that has
// passed bars barriers and opened rounds load rounds since the last.
func flightPos(warp int, bars int32, rounds int64) uint32 {
	return uint32(warp+1)<<posWarpShift | uint32(bars)<<posRoundBits&posBarMask | uint32(min(rounds, posRoundMax))
}

// inFlight reports whether a warp at place pos that touches the sector
// finds it on its way (timing.Constants.L1InFlight): another warp fetched
// it in the same barrier interval at a load round no earlier than pos's.
// The executor runs a block's warps one after another, but the GPU runs
// them abreast, round for round, so the k-th rounds of two warps ask at
// about the same time and the later asker waits the rest of the first's
// fetch (linewait.cu). A warp that gets there at an earlier round is the
// one that fetches it: the entry takes its place, so a third warp at a
// round between the two finds the sector back.
func (e *l1Entry) inFlight(pos uint32) bool {
	if pos == 0 || e.pos == 0 || e.pos>>posWarpShift == pos>>posWarpShift || (e.pos^pos)&posBarMask != 0 {
		return false
	}
	mine, first := pos&posRoundMax, e.pos&posRoundMax
	if mine > first {
		return false
	}
	if mine < first {
		e.pos = pos
	}
	return true
}

func (w *worker) l1Grow() {
	old := w.l1
	n := 2 * len(old)
	if n < 1<<12 {
		n = 1 << 12
	}
	w.l1 = make([]l1Entry, n)
	w.l1used = 0
	// The filter's entries point into the old table.
	clear(w.l1recent[:])
	gen := w.l1gen
	for _, e := range old {
		if e.tag>>32 == gen && gen != 0 {
			s := uint32(e.tag)
			mask := uint64(n - 1)
			h := (uint64(s) * 0x9E3779B97F4A7C15) >> 20
			for i := h & mask; ; i = (i + 1) & mask {
				if w.l1[i].tag>>32 != gen {
					w.l1[i] = e
					w.l1used++
					break
				}
			}
		}
	}
}

// l1Reset starts a new block: the model's L1 is private to a block.
func (w *worker) l1Reset() {
	w.l1gen++
	w.l1used = 0
	w.l1pos = 0
}

// bitmap marks which sectors of one buffer a launch touched: the unique
// footprint the DRAM model charges. Bits are set atomically, so workers
// share one bitmap per buffer and the result does not depend on order.
type bitmap struct {
	words []atomic.Uint64
}

func (b *bitmap) set(i uint32) {
	if b == nil || int(i>>6) >= len(b.words) {
		return
	}
	m := uint64(1) << (i & 63)
	if b.words[i>>6].Load()&m == 0 {
		b.words[i>>6].Or(m)
	}
}

// countGroups is the number of aligned groups of k bits (k 2: bits 2j
// and 2j+1; k 4: 4j to 4j+3) with a bit set: in a sector bitmap, the
// 64-byte granules (k 2) or the 128-byte lines (k 4) touched. k divides
// 64.
func (b *bitmap) countGroups(k uint) int64 {
	var first uint64 // the first bit of every group
	for i := uint(0); i < 64; i += k {
		first |= 1 << i
	}
	var n int64
	for i := range b.words {
		v, set := b.words[i].Load(), uint64(0)
		for j := range k {
			set |= v >> j
		}
		n += int64(bits.OnesCount64(set & first))
	}
	return n
}

// or returns the union of a (nil: empty) and b, reusing a's words.
func (a *bitmap) or(b *bitmap) *bitmap {
	if a == nil {
		a = &bitmap{}
	}
	if len(b.words) > len(a.words) {
		grown := make([]atomic.Uint64, len(b.words))
		for i := range a.words {
			grown[i].Store(a.words[i].Load())
		}
		a.words = grown
	}
	for i := range b.words {
		if v := b.words[i].Load(); v != 0 {
			a.words[i].Or(v)
		}
	}
	return a
}

func (b *bitmap) count() int64 {
	var n int64
	for i := range b.words {
		n += int64(bits.OnesCount64(b.words[i].Load()))
	}
	return n
}
