package sim

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/warplab/warplab/sim/timing"
)

// launch is the state one Launch shares between its workers.
type launch struct {
	d           *Device
	k           *Kernel
	grid, block Dim3
	sharedBytes int
	nThreads    int
	nWarps      int

	useFast   bool // Sync kernel: try the fast path (decided by block 0, fastpath.go)
	cancelled atomic.Bool
	nextBlock atomic.Int64
	stopAt    atomic.Int64 // blocks at or beyond this are skipped (a fault was found below)

	l2 map[int]int64

	px *ptxLaunch // a PTX launch (LaunchPTX); nil for Go kernels

	args LaunchArgs // the launch's arguments by kind (PTX launches; zero for Go kernels)

	// stride, above 1, samples the grid (PTXOptions.SampleStride): the
	// workers run one block in every stride, and stats scales the counters
	// and the time model's records to the whole grid (sample.go).
	stride int
	// keep are the blocks a sampled launch also runs for the time model
	// (PTXOptions.SampleKeep), sorted; kept are their records (runKept).
	keep []int
	kept []timing.Block
	// list, when set, is the blocks the workers run, in order, in place
	// of the grid or its sample (the kept blocks' pass, runKept).
	list []int
}

// bitmapFor returns this worker's DRAM-footprint bitmap of buffer m for
// reads or writes. Each worker keeps its own, so workers never share a
// cache line on the hot path; stats ORs them, which does not depend on
// which worker ran which block.
func (w *worker) bitmapFor(m *bufMeta, write bool) *bitmap {
	key := [2]int{m.id, 0}
	if write {
		key[1] = 1
	}
	if b, ok := w.dram[key]; ok {
		return b
	}
	sectors := (uint64(m.n)*m.esize + 31 + (m.addr & 31)) / 32
	b := &bitmap{words: make([]atomic.Uint64, (sectors+63)/64)}
	if w.dram == nil {
		w.dram = map[[2]int]*bitmap{}
	}
	w.dram[key] = b
	return b
}

// spansFor is this worker's sectorSpans of buffer m.
func (w *worker) spansFor(m *bufMeta) *sectorSpans {
	if s, ok := w.spans[m.id]; ok {
		return s
	}
	if w.spans == nil {
		w.spans = map[int]*sectorSpans{}
	}
	s := &sectorSpans{}
	w.spans[m.id] = s
	return s
}

// Launch runs kernel k over grid × block threads with sharedBytes of dynamic
// shared memory, and returns its counters. Blocks run in parallel on every
// core; counters, results and errors are the same for any GOMAXPROCS (float
// atomics to global memory excepted, see Kernel.Ordered).
//
// A kernel fault comes back as a *Fault; a launch the hardware would refuse
// (too many threads per block, too much shared memory, an empty grid) comes
// back as a plain error before any thread runs.
func (d *Device) Launch(k *Kernel, grid, block Dim3, sharedBytes int) (*Stats, error) {
	return d.LaunchContext(context.Background(), k, grid, block, sharedBytes)
}

// LaunchContext is Launch that stops when ctx is done: a notebook's
// interrupt, or a deadline on a student's kernel that loops for ever.
// Threads notice at their next global access (every few thousand accesses)
// and blocks before they start; the launch then returns a *Fault of Kind
// "cancelled" that names the thread it stopped and wraps ctx's error
// (errors.Is(err, context.Canceled)), and no Stats. A thread that
// loops without touching memory cannot be stopped from outside; Go has no
// way to interrupt it.
func (d *Device) LaunchContext(ctx context.Context, k *Kernel, grid, block Dim3, sharedBytes int) (*Stats, error) {
	if k == nil || k.Body == nil {
		return nil, fmt.Errorf("sim: launch of a kernel with no body")
	}
	if err := d.checkConfig(k.Name, grid, block, sharedBytes); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()

	l := &launch{d: d, k: k, grid: grid, block: block, sharedBytes: sharedBytes,
		nThreads: block.Count()}
	l.nWarps = (l.nThreads + 31) / 32
	return d.runLaunch(ctx, l)
}

func (d *Device) checkConfig(name string, grid, block Dim3, sharedBytes int) error {
	m := d.model
	switch {
	case block.X < 1 || block.Y < 1 || block.Z < 1:
		return fmt.Errorf("sim: launch %s: block %v has a dimension below 1", name, block)
	case grid.X < 1 || grid.Y < 1 || grid.Z < 1:
		return fmt.Errorf("sim: launch %s: grid %v has a dimension below 1 (nothing would run)", name, grid)
	case block.Count() > m.MaxThreadsPerBlock:
		return fmt.Errorf("sim: launch %s: block %v has %d threads; the %s allows at most %d per block", name, block, block.Count(), m.Name, m.MaxThreadsPerBlock)
	case block.Z > 64:
		return fmt.Errorf("sim: launch %s: block z dimension %d exceeds 64", name, block.Z)
	case grid.Y > 65535 || grid.Z > 65535 || grid.X > 1<<31-1:
		return fmt.Errorf("sim: launch %s: grid %v exceeds CUDA's limits (x < 2^31, y and z <= 65535)", name, grid)
	case sharedBytes < 0 || sharedBytes > m.SharedPerBlock:
		return fmt.Errorf("sim: launch %s: %d bytes of dynamic shared memory; the %s allows 0 to %d per block", name, sharedBytes, m.Name, m.SharedPerBlock)
	}
	return nil
}

// run takes blocks in increasing order until none are left or a fault in a
// lower block makes the rest irrelevant.
func (w *worker) run() {
	l := w.l
	n := l.nWarps
	if !w.k.Sync {
		n = 1
	}
	w.accs = make([]warpAcc, n)
	t := &Thread{w: w, BlockDim: l.block, GridDim: l.grid, acc: &w.accs[0]}
	for {
		// i counts the blocks to run; b is the grid's block (the same
		// unless the launch samples its grid: blockAt).
		i := int(l.nextBlock.Add(1) - 1)
		if int64(i) >= l.stopAt.Load() {
			break
		}
		b := l.blockAt(i)
		if l.cancelled.Load() {
			w.fault = &Fault{Kernel: w.k.Name, Kind: "cancelled", Block: l.grid.unlinear(b),
				Detail: "the launch was cancelled before this block started"}
			w.faultBlk = b
			break
		}
		var f *Fault
		if l.px != nil {
			f = w.runBlockPTX(b)
		} else if w.k.Sync {
			left := true
			if l.useFast {
				f, left = w.runBlockFast(b)
			}
			if left {
				f = w.runBlockSync(b)
			}
		} else {
			f = w.runBlockPlain(t, b)
		}
		if f != nil {
			w.fault, w.faultBlk = f, b
			for {
				cur := l.stopAt.Load()
				if int64(i) >= cur || l.stopAt.CompareAndSwap(cur, int64(i)) {
					break
				}
			}
			break
		}
		if w.single {
			break
		}
	}
	w.closeCoroutines()
}

// runBlockPlain runs a kernel with no synchronisation: one warp at a time,
// one lane after another, which gives the same requests as lockstep because
// requests pair accesses by count, not by time.
func (w *worker) runBlockPlain(t *Thread, b int) (f *Fault) {
	l := w.l
	t.BlockIdx = l.grid.unlinear(b)
	w.l1Reset()
	w.sh.reset(w, l.sharedBytes)
	acc := t.acc
	defer func() {
		if r := recover(); r != nil {
			f = w.caught(t, r)
		}
	}()
	for tid := 0; tid < l.nThreads; tid++ {
		t.tid, t.lane, t.warp = tid, tid&31, tid>>5
		t.ThreadIdx = l.block.unlinear(tid)
		w.k.Body(t)
		w.endThread(t)
		if t.lane == 31 || tid == l.nThreads-1 {
			w.flush(acc)
		}
	}
	return nil
}

// caught turns a recovered panic into the fault it stands for.
func (w *worker) caught(t *Thread, r any) *Fault {
	if _, ok := r.(stopThread); ok && w.fault != nil {
		f := w.fault
		w.fault = nil
		return f
	}
	return &Fault{Kernel: w.k.Name, Kind: "panic", Block: t.BlockIdx, Thread: t.ThreadIdx,
		Detail: fmt.Sprintf("the kernel body panicked: %v", r)}
}

// stats merges the workers' counters in a fixed order.
func (l *launch) stats(workers []*worker) *Stats {
	s := &Stats{Kernel: l.k.Name, Grid: l.grid, Block: l.block, Model: l.d.model.Key, Args: l.args,
		Warps: int64(l.grid.Count()) * int64(l.nWarps)}
	type merged struct {
		SiteStats
		order siteKey
		ideal int64
		miss  int64
		cap   int64 // of L2Sectors, those the L1's capacity lost
		grans int64 // per request, the 64-byte granules of its L2Sectors (loads)
		lines int64 // per request, the 128-byte lines of its L2Sectors
		buf   int
	}
	byKey := map[siteKey]*merged{}
	var keys []siteKey
	for _, w := range workers {
		if w.px != nil {
			if s.InstrMix == nil {
				s.InstrMix = map[InstrClass]int64{}
			}
			s.ConstLoad.Requests += w.pxx.constReq
			s.ConstLoad.Transactions += w.pxx.constTx
			s.Tensor.merge(w.pxx.tensor)
			for c, n := range w.px.mix {
				if n != 0 {
					s.InstrMix[InstrClass(instrClassNames[c])] += n
				}
			}
		}
		s.WarpInstructions += w.warpInstr
		for i := range w.sites {
			a := &w.sites[i]
			key := a.key
			key.variant = 0
			m, ok := byKey[key]
			if !ok {
				space := SpaceGlobal
				if key.shared {
					space = SpaceShared
				}
				m = &merged{SiteStats: SiteStats{Label: a.label, Space: space, Op: Op(opNames[key.op])}, order: key}
				if l.px != nil && key.site >= 0 && int(key.site) < len(l.px.pk.arrays) {
					m.Array = l.px.pk.arrays[key.site]
				}
				byKey[key] = m
				keys = append(keys, key)
			}
			m.Requests += a.requests
			m.Sectors += a.sectors
			m.Wavefronts += a.wavefronts
			m.Conflicts += a.wavefronts - a.ideal
			m.ideal += a.ideal
			m.LaneSlots += a.laneSlots
			m.ActiveLanes += a.activeLanes
			m.L2Sectors += a.l2Sectors + a.capSectors
			m.cap += a.capSectors
			s.capFar += a.capFar
			s.missRequests += a.missRequests
			s.capRequests += a.capRequests
			s.l2Lines += a.l2Lines
			if key.op == opSt && !key.shared {
				s.storeLines += a.l2Lines
			}
			s.l2Grans += a.l2Grans
			m.grans += a.l2Grans
			m.lines += a.l2Lines
			m.miss += a.missRequests
			m.buf = key.buf
			s.L1Wavefronts += a.lines
			for j := range a.hist {
				m.ActiveHist[j] += a.hist[j]
			}
		}
	}
	if f := l.sampleScale(); f != 1 {
		// A sampled launch (sample.go): the sample's counts stand for the grid's.
		s.SampledBlocks = int64(l.blocksToRun())
		s.WarpInstructions = scaled(s.WarpInstructions, f)
		for c, n := range s.InstrMix {
			s.InstrMix[c] = scaled(n, f)
		}
		s.ConstLoad.Requests, s.ConstLoad.Transactions = scaled(s.ConstLoad.Requests, f), scaled(s.ConstLoad.Transactions, f)
		s.capFar, s.missRequests, s.capRequests = scaled(s.capFar, f), scaled(s.missRequests, f), scaled(s.capRequests, f)
		s.l2Lines, s.L1Wavefronts = scaled(s.l2Lines, f), scaled(s.L1Wavefronts, f)
		s.storeLines = scaled(s.storeLines, f)
		s.l2Grans = scaled(s.l2Grans, f)
		for _, m := range byKey {
			m.SiteStats.scale(f)
			m.ideal, m.miss, m.cap, m.grans = scaled(m.ideal, f), scaled(m.miss, f), scaled(m.cap, f), scaled(m.grans, f)
			m.lines = scaled(m.lines, f)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if (a.site < 0) != (b.site < 0) {
			return a.site >= 0
		}
		if a.site != b.site {
			return a.site < b.site
		}
		if a.buf != b.buf {
			return a.buf < b.buf
		}
		if a.shared != b.shared {
			return !a.shared
		}
		return a.op < b.op
	})
	for _, k := range keys {
		m := byKey[k]
		s.Sites = append(s.Sites, m.SiteStats)
		switch {
		case k.shared && k.op == opLd:
			s.SharedLoad.add(m.Requests, m.Wavefronts, m.ideal)
		case k.shared:
			s.SharedStore.add(m.Requests, m.Wavefronts, m.ideal)
		case k.op == opLd:
			s.loadSites = append(s.loadSites, loadSite{requests: m.Requests, miss: m.miss, l2: m.L2Sectors - m.cap, l2All: m.L2Sectors, grans: m.grans, lines: m.lines, buf: m.buf})
			s.GlobalLoad.Requests += m.Requests
			s.GlobalLoad.Sectors += m.Sectors
			s.L2Sectors += m.L2Sectors
			s.capSectors += m.cap
		case k.op == opSt:
			s.GlobalStore.Requests += m.Requests
			s.GlobalStore.Sectors += m.Sectors
			s.L2Sectors += m.L2Sectors
		default:
			s.GlobalAtomic.Requests += m.Requests
			s.GlobalAtomic.Sectors += m.Sectors
			s.L2Sectors += m.L2Sectors
		}
	}
	footprint := map[[2]int]*bitmap{}
	for _, w := range workers {
		for key, b := range w.dram {
			footprint[key] = footprint[key].or(b)
		}
	}
	uniq, lines := map[int]int64{}, map[int]int64{}
	perBuf := map[int]int64{}
	for key, b := range footprint {
		n := footprintSectors(b.count(), l.sampleScale(), int64(len(b.words))*64)
		perBuf[key[0]] += n * 32
		if key[1] == 0 {
			uniq[key[0]] = n
			lines[key[0]] = footprintSectors(b.countGroups(4), l.sampleScale(), int64(len(b.words))*16)
			s.uniqueRead += n * 32
			s.uniqueGrans += footprintSectors(b.countGroups(2), l.sampleScale(), int64(len(b.words))*32)
		} else {
			s.DRAMWriteBytes += n * 32
		}
	}
	s.l2Share = l.d.l2Resident(perBuf, s.uniqueRead+s.DRAMWriteBytes)
	// A buffer's L1 misses that are not its first touch of a sector hit in
	// L2; the share is per buffer, so it does not depend on block order.
	l2, lineTx := map[int]int64{}, map[int]int64{}
	for _, ls := range s.loadSites {
		l2[ls.buf] += ls.l2
		lineTx[ls.buf] += ls.lines
	}
	for i := range s.loadSites {
		ls := &s.loadSites[i]
		if t := l2[ls.buf]; t > 0 {
			ls.l2HitShare = max(0, 1-float64(uniq[ls.buf])/float64(t))
		}
	}
	s.rereadGrans, s.rereadSectors = rereadGranules(s.loadSites, uniq)
	s.reads = bufferReads(l2, uniq, lines, lineTx)
	s.tmCollect(l, workers)
	if l.px != nil && s.tm.BlocksPerSM > 0 {
		// Blocks start in index order, the resident ones (window) over a
		// block's life, which is about its warps' load rounds of fetch
		// latency: blocks resident/rounds apart start a latency apart
		// (pending.go).
		window := float64(l.d.model.GPU.SMs * s.tm.BlocksPerSM)
		if s.Warps > 0 && s.tm.Rounds > s.Warps {
			window /= float64(s.tm.Rounds) / float64(s.Warps)
		}
		near := map[int]float64{}
		for id := range uniq {
			var all sectorSpans
			for _, w := range workers {
				all.merge(w.spans[id])
			}
			near[id] = all.nearShare(window)
		}
		for i := range s.loadSites {
			s.loadSites[i].pending = near[s.loadSites[i].buf]
		}
	}
	l.d.model.estimate(s)
	return s
}
