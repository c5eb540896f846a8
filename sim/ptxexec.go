package sim

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"unsafe"

	"github.com/warplab/warplab/sim/internal/lanes"
	"github.com/warplab/warplab/sim/ptx"
	"github.com/warplab/warplab/sim/timing"
)

// The PTX executor runs a kernel's PTX warp-wide: each decoded instruction
// is applied to the active lanes of one warp at once, with a register file
// of one row of 32 slots per PTX register, so no goroutine or coroutine
// stands for a thread.
//
// Divergence follows the immediate-post-dominator (IPDOM) stack of
// GPGPU-Sim and Ocelot. Each stack entry holds a pc, a reconvergence pc and
// a lane mask; the top entry runs. A guarded bra whose active lanes go both
// ways turns the top entry into the reconvergence entry (its pc becomes the
// branch's Reconv) and pushes one entry per path with that Reconv; the
// fall-through path runs first. An entry is popped when its pc reaches its
// reconvergence pc or when all its lanes have exited. When the branch's
// Reconv is the top entry's own reconvergence pc (a loop's exit branch
// inside a region that reconverges there) the top is replaced instead, which
// keeps the stack as deep as the nesting, not as the trip count.
//
// A block's warps run round-robin, each until it reaches bar.sync or
// finishes. The barrier releases when every warp that still has live lanes
// has arrived: warps whose lanes have all exited count as arrived, as on
// sm_70 and later, where an early return before __syncthreads does not hang
// the block (compute-sanitizer reports nothing for it either). A warp that
// reaches bar.sync with some of its live lanes inactive (a barrier inside
// divergent code) is a "divergent barrier" fault.

// numSpecial is the number of special-register rows a warp keeps.
const numSpecial = int(ptx.SpecialLaneMaskGe) + 1 // the clocks are registers of their own (clockRegs, ptxwarp.go)

// defaultMaxWarpInstr bounds one warp's issued instructions when
// PTXKernel.MaxInstructions is zero.
const defaultMaxWarpInstr = 1 << 31

// ipdom is one entry of a warp's reconvergence stack.
type ipdom struct {
	pc, rpc int32
	mask    uint32
}

// pwarp is one warp of the block being run.
type pwarp struct {
	id      int
	regs    [][32]uint64
	spec    [numSpecial][32]uint64
	stack   []ipdom
	live    uint32 // lanes that exist and have not exited
	waiting bool   // at bar.sync
	instr   int64
	local   []byte // 32 lanes × localBytes
	tm      warpTM // load rounds for the time model (timemodel_ptx.go)
	// rec is the rest of the warp's record for the time model
	// (timemodel_ptx.go).
	rec warpRec
	// The warp's line clock for the L1's capacity: l1clk counts the
	// 128-byte lines its closed passes touched, l1pend those of the pass
	// still open. A compiled pass of an unrolled loop (xin.tmUnroll PTX
	// passes) is one: clkLoop is its loop, clkSkip its PTX passes to come.
	l1clk, l1pend uint32
	clkLoop       uint16
	clkSkip       uint8

	// pbits caches each predicate register's lanes as a mask, valid while
	// pvalid says so: every write of a register goes through
	// ptxWorker.dst, which clears it.
	pbits  []uint32
	pvalid []bool
	// ran says, by instruction of a run of dead and once instructions
	// (markSkips), whether a warp has passed it with this register file:
	// the once instructions from there to the run's end have written
	// their values, which the file keeps for the launch.
	ran []bool
	// undef holds, by register of PTXKernel.initRegs, the lanes whose
	// value is undefined, and uorig where it came from (initcheck.go);
	// nil for the kernels, nvcc's usual ones, that track none.
	undef []uint32
	uorig []uorigin

	// ext is the warp's state for calls and bar.red (ptxcall.go,
	// ptxwarp.go), nil for kernels without them: the executor's speed is
	// sensitive to pwarp's size.
	ext *warpExt
}

// ptxLaunch is what one LaunchPTX shares between its workers.
type ptxLaunch struct {
	pk       *PTXKernel
	params   []byte
	bufs     []gbuf // device buffers by address
	vars     []byte // the module's variables on this device (ptxglobals.go)
	varBuf   bool   // bufs[0] is vars, as a buffer (addVarBuf)
	shBytes  int    // shared memory per block: static + dynamic
	maxInstr int64
	trace    *traceRec  // warps whose memory accesses are recorded; nil: none
	printf   *printfLog // the launch's printf output (ptxcall.go); nil when the kernel has no printf
	// l1 is the L1 capacity model's figures (timing.L1Capacity).
	l1 timing.L1Cap
	// flight: the L1 model tells a warp's loads of sectors another warp
	// has in flight (timing.Constants.L1InFlight).
	flight bool
	// stalls is, by instruction, the dependent-latency stall cycles it
	// carries onto its warp's path (timemodel_deps.go); nil: none.
	stalls []float32
}

// ptxWorker is one worker's executor state, reused across its blocks.
type ptxWorker struct {
	l      *ptxLaunch
	warps  []pwarp
	shared []byte
	shMeta bufMeta
	t      Thread // scratch thread for the shared race check and faults
	blkIdx Dim3
	instr  int64
	last   int // index of the buffer the last global access hit

	mix [numClasses]int64 // issued warp instructions by class

	specDone  bool       // the warps' launch-constant special rows are filled
	siteCache []siteMemo // by site: the dense counter index last used, and its buffer

	cur       *xin   // the memory instruction running, for faults raised below it
	raceOff   uint64 // the shared access the race check is looking at
	raceWidth int

	// The uninitialized shared-memory check (initcheck.go): the block's
	// first epoch of the race check, by word the last block an atomic
	// wrote it in (as that epoch), and the block's first read of a word
	// nothing wrote, reported at its next barrier or end.
	shEp0     int64
	atomEp    []int64
	shPending *Fault

	scratch [4][32]uint64
	sink    [2][32]uint64
	words   [32 * 8]uint32 // one request's words: 32 lanes × the widest access (v4 of 8 bytes)
	laneBuf [32]int32
	laneOff [32]uint64
}

// siteMemo caches a site's dense counter index for one buffer.
type siteMemo struct {
	buf int32
	d   int32
}

// LaunchPTX runs PTX kernel k over grid × block threads with sharedBytes of
// dynamic shared memory (the .extern .shared array). args follow the
// kernel's parameters in order: a *Global[T] for each pointer parameter
// (the kernel sees its Addr()), and int32, uint32, int64, uint64, float32 or
// float64 scalars whose size fits the parameter. Counters, results and
// faults follow the rules of Launch, including its determinism (see
// PTXKernel.Ordered).
func (d *Device) LaunchPTX(ctx context.Context, k *PTXKernel, grid, block Dim3, sharedBytes int, args ...any) (st *Stats, err error) {
	return d.launchPTX(ctx, k, 0, 0, nil, nil, grid, block, sharedBytes, args...)
}

// launchPTX is LaunchPTX with LaunchPTXWith's instruction limit (0: the
// kernel's), sample stride (0: the whole grid), kept blocks (with a
// stride; nil: none) and trace (nil: none).
func (d *Device) launchPTX(ctx context.Context, k *PTXKernel, maxInstr int64, stride int, keep []int, tr *traceRec, grid, block Dim3, sharedBytes int, args ...any) (st *Stats, err error) {
	if k == nil || k.k == nil {
		return nil, fmt.Errorf("sim: LaunchPTX of a nil kernel (use NewPTXKernel)")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := d.checkConfig(k.Name, grid, block, sharedBytes); err != nil {
		return nil, err
	}
	if nt := k.k.ReqNTid; nt[0] > 0 && (block.X != nt[0] || block.Y != max(nt[1], 1) || block.Z != max(nt[2], 1)) {
		return nil, fmt.Errorf("sim: launch %s: block %v, but the kernel requires .reqntid %d,%d,%d", k.Name, block, nt[0], nt[1], nt[2])
	}
	shBytes := k.externOff + sharedBytes
	if sharedBytes == 0 {
		shBytes = k.sharedStatic
	}
	if shBytes > d.model.SharedPerBlock {
		return nil, fmt.Errorf("sim: launch %s: %d bytes of static and %d of dynamic shared memory; the %s allows %d per block",
			k.Name, k.sharedStatic, sharedBytes, d.model.Name, d.model.SharedPerBlock)
	}
	params, err := k.bindParams(args)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			st, err = nil, fmt.Errorf("sim: launch %s: internal error: %v", k.Name, r)
		}
	}()
	if k.malloc {
		if err := d.ensureHeap(); err != nil { // ptxheap.go
			return nil, fmt.Errorf("sim: launch %s: %w", k.Name, err)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()

	px := &ptxLaunch{pk: k, params: params, bufs: d.liveBuffers(), shBytes: shBytes,
		vars: d.moduleVars(k), maxInstr: k.MaxInstructions, trace: tr}
	if maxInstr > 0 {
		px.maxInstr = maxInstr
	}
	if k.printf {
		px.printf = &printfLog{}
	}
	if px.maxInstr <= 0 {
		px.maxInstr = defaultMaxWarpInstr
	}
	if err := px.checkArgs(args); err != nil {
		return nil, fmt.Errorf("sim: launch %s: %w", k.Name, err)
	}
	px.addVarBuf() // ptxglobals.go
	kk := &Kernel{Name: k.Name, Ordered: k.Ordered, sites: k.labels}
	l := &launch{d: d, k: kk, grid: grid, block: block, sharedBytes: sharedBytes,
		nThreads: block.Count(), px: px, args: countArgs(args), stride: stride}
	if stride > 1 {
		if l.keep, err = sampleKeep(keep, grid.Count()); err != nil {
			return nil, fmt.Errorf("sim: launch %s: %w", k.Name, err)
		}
	}
	l.nWarps = (l.nThreads + 31) / 32
	px.l1 = timing.L1Capacity(&d.model.GPU, &d.model.Constants, grid.Count(), l.nWarps, l.nThreads, shBytes, k.regs.n)
	px.flight = d.model.L1InFlight
	px.stalls = k.depStalls(&d.model.Constants)
	st, err = d.runLaunch(ctx, l)
	if err == nil && px.printf != nil {
		st.Printf, st.PrintfDropped = px.printf.text()
	}
	return st, err
}

// bindParams builds the parameter buffer ld.param reads from.
func (k *PTXKernel) bindParams(args []any) ([]byte, error) {
	ps := k.k.Params
	if len(args) != len(ps) {
		return nil, fmt.Errorf("sim: launch %s: %d arguments for %d parameters", k.Name, len(args), len(ps))
	}
	buf := make([]byte, max(k.k.ParamBytes, 8))
	for i, a := range args {
		p := &ps[i]
		var v uint64
		var size int
		switch x := a.(type) {
		case globalArg:
			v, size = x.bufInfo().addr, 8
		case int32:
			v, size = uint64(uint32(x)), 4
		case uint32:
			v, size = uint64(x), 4
		case int64:
			v, size = uint64(x), 8
		case uint64:
			v, size = x, 8
		case float32:
			v, size = uint64(math.Float32bits(x)), 4
		case float64:
			v, size = math.Float64bits(x), 8
		case int:
			return nil, fmt.Errorf("sim: launch %s: argument %d (%s) is a Go int; pass int32 or int64, the parameter's CUDA type", k.Name, i, p.Name)
		case nil:
			return nil, fmt.Errorf("sim: launch %s: argument %d (%s) is nil", k.Name, i, p.Name)
		default:
			return nil, fmt.Errorf("sim: launch %s: argument %d (%s) has type %T; want a *sim.Global or an int32, uint32, int64, uint64, float32 or float64", k.Name, i, p.Name, a)
		}
		if _, ok := a.(globalArg); ok && p.Size != 8 {
			return nil, fmt.Errorf("sim: launch %s: argument %d is a buffer, but parameter %s is .%s (%d bytes), not a 64-bit pointer", k.Name, i, p.Name, p.Type, p.Size)
		}
		if size != p.Size {
			return nil, fmt.Errorf("sim: launch %s: argument %d is a %T (%d bytes), but parameter %s is .%s (%d bytes)", k.Name, i, a, size, p.Name, p.Type, p.Size)
		}
		if p.Offset+size > len(buf) {
			return nil, fmt.Errorf("sim: launch %s: parameter %s lies outside the parameter buffer", k.Name, p.Name)
		}
		for j := range size {
			buf[p.Offset+j] = byte(v >> (8 * j))
		}
	}
	return buf, nil
}

// checkArgs verifies that every buffer argument belongs to this device.
func (px *ptxLaunch) checkArgs(args []any) error {
	for i, a := range args {
		g, ok := a.(globalArg)
		if !ok {
			continue
		}
		m := g.bufInfo()
		j := px.find(m.addr)
		if j < 0 || px.bufs[j].meta != m {
			return fmt.Errorf("argument %d: buffer %s was not allocated on this device", i, m.name)
		}
	}
	return nil
}

// runLaunch runs l's blocks on the workers and merges their counters; it
// is shared by Launch (Go kernels) and LaunchPTX. The caller holds d.mu.
func (d *Device) runLaunch(ctx context.Context, l *launch) (*Stats, error) {
	workers, err := d.runWorkers(ctx, l)
	if err != nil {
		return nil, err
	}
	if len(l.keep) > 0 { // a sampled PTX launch's (launchPTX)
		if l.kept, err = d.runKept(ctx, l); err != nil {
			return nil, err
		}
	}
	return l.stats(workers), nil
}

// runWorkers runs l's blocks on the workers and returns them, or the
// fault of the lowest faulting block.
func (d *Device) runWorkers(ctx context.Context, l *launch) ([]*worker, error) {
	k := l.k
	nBlocks := l.blocksToRun() // the grid, or its sample (sample.go)
	l.stopAt.Store(int64(nBlocks))
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { l.cancelled.Store(true) })
		defer stop()
	}

	nw := runtime.GOMAXPROCS(0)
	if k.Ordered || nw > nBlocks {
		nw = 1
		if !k.Ordered && nBlocks > 1 {
			nw = min(runtime.GOMAXPROCS(0), nBlocks)
		}
	}
	workers := make([]*worker, nw)
	var wg sync.WaitGroup
	if k.Sync && l.px == nil {
		// Block 0 runs first, alone, on the coroutine path; what it used
		// decides whether the other blocks may take the fast path.
		w0 := newWorker(l)
		w0.single = true
		w0.run()
		l.useFast = !k.Lockstep && !w0.usedSync
		workers = append(workers, w0)
	}
	for i := range nw {
		w := newWorker(l)
		if l.px != nil {
			// The time model keeps a record a block: room for a fair
			// share of the grid, so a large grid's records do not grow
			// by copying.
			w.rec = timing.NewBlockLog(&d.model.GPU, &d.model.Constants, nBlocks/nw+16)
		}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run()
		}()
	}
	wg.Wait()

	var fault *Fault
	faultBlk := -1
	for _, w := range workers {
		if w.fault != nil && (faultBlk < 0 || w.faultBlk < faultBlk) {
			fault, faultBlk = w.fault, w.faultBlk
		}
	}
	if fault != nil {
		if fault.Kind == FaultCancelled {
			fault.cause = ctx.Err()
		}
		return nil, fault
	}
	return workers, nil
}

// runBlockPTX runs block b of a PTX launch to completion or to its first
// fault.
func (w *worker) runBlockPTX(b int) (f *Fault) {
	l := w.l
	px := l.px
	e := w.px
	if e == nil {
		e = &ptxWorker{l: px, shMeta: bufMeta{id: 0, name: "shared", esize: 4}}
		e.t.w = w
		e.t.BlockDim, e.t.GridDim = l.block, l.grid
		e.warps = make([]pwarp, l.nWarps)
		for i := range e.warps {
			wp := &e.warps[i]
			wp.id = i
			if i == 0 || !px.pk.oneRun {
				wp.regs = make([][32]uint64, px.pk.nregs)
				wp.pbits = make([]uint32, px.pk.nregs)
				wp.pvalid = make([]bool, px.pk.nregs)
				wp.ran = make([]bool, len(px.pk.code))
			} else {
				// Warps that each run once, start to end, take turns
				// with one register file (PTXKernel.oneRun).
				wp.regs, wp.pbits, wp.pvalid, wp.ran = e.warps[0].regs, e.warps[0].pbits, e.warps[0].pvalid, e.warps[0].ran
			}
			wp.local = make([]byte, 32*px.pk.laneLocal)
			wp.stack = make([]ipdom, 0, 8)
		}
		e.shared = make([]byte, px.shBytes)
		e.siteCache = make([]siteMemo, px.pk.nsites)
		for i := range e.siteCache {
			e.siteCache[i] = siteMemo{-1, -1}
		}
		w.px = e
	}
	e.blkIdx = l.grid.unlinear(b)
	e.t.BlockIdx = e.blkIdx
	e.instr = 0
	w.l1Reset()
	w.l1cap, w.l1blk = px.l1, uint64(b)
	w.sh.reset(w, l.sharedBytes)
	w.sh.ensureWords((px.shBytes + 3) / 4)
	clear(e.shared)
	e.initShared()
	for i := range e.warps {
		e.initWarp(&e.warps[i], b)
	}
	e.specDone = true
	defer func() {
		if r := recover(); r != nil {
			f = w.caught(&e.t, r)
			e.annotate(f)
		}
		w.warpInstr += e.instr
	}()
	for {
		waiting := 0
		for i := range e.warps {
			wp := &e.warps[i]
			if wp.waiting || len(wp.stack) == 0 {
				continue
			}
			if px.pk.oneRun {
				e.resetRegs(wp)
			}
			if f := e.runWarp(wp); f != nil {
				if e.shPending != nil { // the earlier fault (initcheck.go)
					return e.shPending
				}
				return f
			}
		}
		e.barRedRelease() // ptxwarp.go
		for i := range e.warps {
			if e.warps[i].waiting {
				e.warps[i].waiting = false
				waiting++
			}
		}
		if e.shPending != nil { // no race came first (initcheck.go)
			return e.shPending
		}
		if waiting == 0 {
			e.tmEndBlock(b)
			return nil
		}
		w.sh.barrier()
	}
}

// initWarp readies warp wp of block b: registers and local memory zeroed
// (PTX leaves them undefined; zero keeps runs reproducible), special
// registers filled, one stack entry holding the warp's lanes.
func (e *ptxWorker) initWarp(wp *pwarp, b int) {
	l := e.t.w.l
	pk := e.l.pk
	if !pk.oneRun {
		e.resetRegs(wp)
	}
	if len(wp.local) > 0 {
		clear(wp.local)
	}
	wp.instr, wp.waiting = 0, false
	wp.l1clk, wp.l1pend, wp.clkLoop, wp.clkSkip = 0, 0, 0, 0
	n := min(32, l.nThreads-32*wp.id)
	wp.live = uint32(1<<n - 1)
	if n == 32 {
		wp.live = ^uint32(0)
	}
	wp.stack = append(wp.stack[:0], ipdom{pc: 0, rpc: pk.kend, mask: wp.live})
	if pk.needExt {
		if wp.ext == nil {
			wp.ext = &warpExt{}
		}
		x := wp.ext
		x.calls, x.fp, x.retDepth, x.barRed = x.calls[:0], 0, -1, nil
	}
	for _, sp := range pk.specials {
		// Only the block index changes from block to block.
		if !e.specDone || sp >= ptx.SpecialCtaidX && sp <= ptx.SpecialCtaidZ {
			e.fillSpecial(wp, sp)
		}
	}
}

// resetRegs readies wp's register file for the warp's first instruction:
// the registers some path may read before writing them zeroed (and, for
// the uninitialized-read check, undefined: resetInit), and no predicate
// bits cached. The other registers keep what the last warp to
// use the file left, which no path of the kernel can read.
func (e *ptxWorker) resetRegs(wp *pwarp) {
	for _, r := range e.l.pk.clearRegs {
		wp.regs[r] = [32]uint64{}
	}
	clear(wp.pvalid)
	e.resetInit(wp)
}

// fillSpecial fills wp's row of special register sp for the current block.
func (e *ptxWorker) fillSpecial(wp *pwarp, sp ptx.Special) {
	l := e.t.w.l
	blk := e.blkIdx
	row := &wp.spec[sp]
	var v uint64
	uniform := true
	switch sp {
	case ptx.SpecialNtidX:
		v = uint64(l.block.X)
	case ptx.SpecialNtidY:
		v = uint64(l.block.Y)
	case ptx.SpecialNtidZ:
		v = uint64(l.block.Z)
	case ptx.SpecialCtaidX:
		v = uint64(blk.X)
	case ptx.SpecialCtaidY:
		v = uint64(blk.Y)
	case ptx.SpecialCtaidZ:
		v = uint64(blk.Z)
	case ptx.SpecialNctaidX:
		v = uint64(l.grid.X)
	case ptx.SpecialNctaidY:
		v = uint64(l.grid.Y)
	case ptx.SpecialNctaidZ:
		v = uint64(l.grid.Z)
	case ptx.SpecialWarpID:
		v = uint64(wp.id)
	case ptx.SpecialNWarpID:
		v = uint64(l.nWarps)
	case ptx.SpecialWarpSize:
		v = 32
	default:
		uniform = false
	}
	if uniform {
		fillRow(row, v)
		return
	}
	for lane := range 32 {
		tid := 32*wp.id + lane
		bit := uint32(1) << lane
		switch sp {
		case ptx.SpecialTidX:
			row[lane] = uint64(tid % l.block.X)
		case ptx.SpecialTidY:
			row[lane] = uint64(tid / l.block.X % l.block.Y)
		case ptx.SpecialTidZ:
			row[lane] = uint64(tid / (l.block.X * l.block.Y))
		case ptx.SpecialLaneID:
			row[lane] = uint64(lane)
		case ptx.SpecialLaneMaskEq:
			row[lane] = uint64(bit)
		case ptx.SpecialLaneMaskLt:
			row[lane] = uint64(bit - 1)
		case ptx.SpecialLaneMaskLe:
			row[lane] = uint64(bit | (bit - 1))
		case ptx.SpecialLaneMaskGt:
			row[lane] = uint64(^(bit | (bit - 1)))
		case ptx.SpecialLaneMaskGe:
			row[lane] = uint64(^(bit - 1))
		}
	}
}

// fault builds a fault at instruction x for lane (of warp wp).
func (e *ptxWorker) fault(wp *pwarp, lane int, x *xin, kind FaultKind, detail string) *Fault {
	l := e.t.w.l
	f := &Fault{Kernel: e.l.pk.Name, Kind: kind, Block: e.blkIdx, Thread: l.block.unlinear(32*wp.id + lane), Detail: detail}
	if x != nil {
		f.Site = e.l.pk.where(x.in)
	}
	return f
}

// runWarp runs wp until it reaches a barrier, finishes or faults. This is
// the executor's hot loop: one decoded instruction per step, applied to the
// warp's active lanes.
func (e *ptxWorker) runWarp(wp *pwarp) *Fault {
	code, skipMix := e.l.pk.code, e.l.pk.skipMix
	ncode := int32(len(code))
	limit := e.l.maxInstr
	start, mem, bars := wp.instr, e.t.w.mem, wp.rec.bars
	defer func() {
		e.instr += wp.instr - start
		d := e.t.w.mem.Sub(mem)
		wp.rec.mem.Add(d)
		wp.rec.step(bars, wp.instr-start, d)
	}()
	for {
		n := len(wp.stack)
		if n == 0 {
			return nil
		}
		top := &wp.stack[n-1]
		act := top.mask & wp.live
		if top.pc == top.rpc || act == 0 {
			wp.stack = wp.stack[:n-1]
			if wp.ext != nil && n-1 == wp.ext.retDepth {
				e.callReturn(wp) // the callee's lanes have all returned (ptxcall.go)
			}
			continue
		}
		// Run the top entry with its pc in a local until the stack or the
		// active mask changes.
		pc, rpc := top.pc, top.rpc
		for pc != rpc {
			if pc >= ncode {
				// Falling off the end of the kernel is an implicit exit.
				wp.live &^= act
				break
			}
			x := &code[pc]
			if n := x.skip; n != 0 && (!x.onceAhead || wp.ran[pc]) && (wp.instr+int64(n))>>12 == wp.instr>>12 {
				// A run of instructions that are issued and counted
				// but run no lanes: nothing reads what they would write
				// (dead), or the file holds what they write (once,
				// after their first run). One step for the run, unless
				// it would pass the next runaway check.
				wp.instr += int64(n)
				sm := &skipMix[pc]
				for c := range sm {
					wp.rec.mix[c] += sm[c]
				}
				pc += n
				continue
			}
			wp.instr++
			wp.rec.mix[x.class]++
			if wp.instr&4095 == 0 {
				if f := e.checkRunaway(wp, x, act, limit); f != nil {
					return f
				}
			}
			exec := act
			if x.skip != 0 {
				// One instruction of such a run, passed one by one: a
				// once instruction's first run in this file is on all
				// lanes (markOnce).
				ran := wp.ran[pc]
				wp.ran[pc] = true
				if x.dead || ran {
					pc++
					continue
				}
				exec = fullMask
			}
			if x.guard >= 0 {
				exec &= wp.guardMask(x.guard, x.gneg)
			}
			if x.initck {
				// It reads or writes a register some path may read
				// before writing it (initcheck.go).
				if f := e.initCheck(wp, x, pc, act, exec); f != nil {
					return f
				}
			}
			if x.fast != fNone {
				if exec != 0 {
					if f := e.alu(wp, x, exec); f != nil {
						return f
					}
				}
				pc++
				continue
			}
			switch x.op {
			case ptx.OpBra:
				if exec == act {
					pc = x.in.Target
					continue
				}
				if exec == 0 {
					pc++
					continue
				}
				top.pc = pc
				e.diverge(wp, x.in.Target, pc+1, x.in.Reconv, exec, act&^exec)
				if wp.ext != nil && len(wp.stack) == wp.ext.retDepth {
					e.callReturn(wp) // both ways left the callee
				}
				goto next
			case ptx.OpRet, ptx.OpExit:
				pc++
				if exec != 0 && x.fnRet {
					e.fnRet(wp, exec) // a device function's ret (ptxcall.go)
					top.pc = pc
					goto next
				}
				if exec != 0 {
					wp.live &^= exec
					top.pc = pc
					goto next
				}
				continue
			case ptx.OpBar:
				if exec == 0 || !x.in.Sync {
					// bar.arrive does not wait; the executor runs a
					// block's warps to their next waiting barrier, so
					// an arrival needs no bookkeeping.
					pc++
					continue
				}
				if exec != wp.live {
					lane := bits.TrailingZeros32(wp.live &^ exec)
					return e.fault(wp, lane, x, "divergent barrier", fmt.Sprintf(
						"warp %d reached bar.sync with lanes %032b of its live lanes %032b; the other lanes can never arrive (a __syncthreads inside a branch not every thread takes)",
						wp.id, exec, wp.live))
				}
				if x.in.Red != ptx.RedNone {
					e.barRedArrive(wp, x, exec) // ptxwarp.go
				}
				top.pc = pc + 1
				wp.waiting = true
				wp.rec.bars++
				wp.rec.barRounds = wp.tm.Opened()
				return nil
			case ptx.OpMembar:
				if x.in.Sync && exec != 0 {
					// bar.warp.sync (__syncwarp): it orders the warp's
					// lanes' shared-memory accesses for the race check, as
					// the _sync intrinsics do.
					e.t.w.sh.warpSync(wp.id)
				}
			case ptx.OpCall:
				if exec == 0 {
					break
				}
				pushed, f := e.call(wp, x, pc, exec) // ptxcall.go
				if f != nil {
					return f
				}
				if pushed {
					goto next
				}
			case ptx.OpCvta:
				// exec's work, without its dispatch (no load round).
				if exec != 0 {
					e.cvta(wp, x, exec)
				}
			case ptx.OpShfl:
				if exec != 0 {
					if st := e.l.stalls; st != nil {
						wp.rec.stall += float64(st[pc])
					}
					if f := e.shfl(wp, x, exec); f != nil {
						return f
					}
				}
			case ptx.OpTrap:
				if exec != 0 {
					return e.fault(wp, bits.TrailingZeros32(exec), x, "trap",
						"the thread executed trap (__trap()); on a GPU the kernel fails with CUDA_ERROR_LAUNCH_FAILED and the context is lost")
				}
			default:
				if exec != 0 && x.op == ptx.OpLd && x.space == ptx.SpaceParam {
					// ld.param, a warp-wide read of the launch's
					// arguments: no memory traffic, no load round
					// (what mem would do, without its dispatch).
					if f := e.ldParam(wp, x, exec); f != nil {
						return f
					}
				} else if exec != 0 {
					if st := e.l.stalls; st != nil {
						wp.rec.stall += float64(st[pc])
					}
					w := e.t.w
					miss, lost, wide, wait := w.tmMiss, w.tmCap, w.tmWide, w.tmWait
					if x.tmRound != tmNoLoad {
						if e.l.flight {
							w.l1pos = wp.place(x)
						}
						// A new pass over a block's loads (its
						// first-level load opens a round) ages the
						// lines the warp's earlier passes touched;
						// loads of one compiled pass do not age each
						// other's.
						if x.tmRound>>1 == 1 && wp.newPass(x) {
							wp.l1clk += wp.l1pend
							wp.l1pend = 0
							w.l1round++
						}
						w.l1now, w.l1lines = wp.l1clk, 0
					}
					if f := e.exec(wp, x, exec); f != nil {
						return f
					}
					if x.tmRound != tmNoLoad {
						wp.l1pend += w.l1lines
						e.tmLoad(wp, x, w.tmMiss != miss || w.tmWait != wait, w.tmCap != lost)
						if w.tmWide != wide {
							wp.tm.Wide(x.tmRound)
						}
					}
				}
			}
			pc++
		}
		top.pc = pc
	next:
	}
}

// diverge splits the top entry of wp's stack at a branch whose taken lanes
// go to target and the others to fall.
func (e *ptxWorker) diverge(wp *pwarp, target, fall, reconv int32, taken, not uint32) {
	n := len(wp.stack)
	top := &wp.stack[n-1]
	if reconv == top.rpc {
		wp.stack = wp.stack[:n-1]
	} else {
		top.pc = reconv
	}
	if target != reconv {
		wp.stack = append(wp.stack, ipdom{pc: target, rpc: reconv, mask: taken})
	}
	if fall != reconv {
		wp.stack = append(wp.stack, ipdom{pc: fall, rpc: reconv, mask: not})
	}
}

// checkRunaway ends a cancelled launch or a warp past its instruction limit.
func (e *ptxWorker) checkRunaway(wp *pwarp, x *xin, act uint32, limit int64) *Fault {
	lane := bits.TrailingZeros32(act)
	if e.t.w.l.cancelled.Load() {
		return e.fault(wp, lane, x, "cancelled", "the launch was cancelled (its context is done)")
	}
	if wp.instr >= limit {
		return e.fault(wp, lane, x, "runaway warp", fmt.Sprintf(
			"warp %d has issued %d instructions; a loop that never ends? (the launch's limit, PTXKernel.MaxInstructions or PTXOptions.MaxInstructions, is %d)", wp.id, wp.instr, limit))
	}
	return nil
}

// predMask is the lanes whose predicate in row is true (false with neg).
func predMask(row *[32]uint64, neg bool) uint32 {
	m := lanes.Bit0(row)
	if neg {
		m = ^m
	}
	return m
}

// src returns operand o's row for reading.
func (e *ptxWorker) src(wp *pwarp, o *xopd, slot int) *[32]uint64 {
	switch o.kind {
	case oReg:
		r := &wp.regs[o.idx]
		if o.neg {
			s := &e.scratch[slot]
			for l := range 32 {
				s[l] = r[l] ^ 1
			}
			return s
		}
		return r
	case oImm:
		return &e.l.pk.imms[o.idx]
	case oSpec:
		return &wp.spec[o.idx]
	}
	return &e.scratch[slot]
}

// dst returns operand o's row for writing (a sink row for _).
func (e *ptxWorker) dst(wp *pwarp, o *xopd, slot int) *[32]uint64 {
	if o.kind == oReg {
		if int(o.idx) < len(wp.pvalid) {
			wp.pvalid[o.idx] = false
		}
		return &wp.regs[o.idx]
	}
	return &e.sink[slot]
}

// guardMask is the lanes whose predicate register g is true (false with
// neg), from the warp's cache of predicate bits when the register has not
// been written since they were taken.
func (wp *pwarp) guardMask(g int32, neg bool) uint32 {
	var m uint32
	if wp.pvalid[g] {
		m = wp.pbits[g]
	} else {
		m = predMask(&wp.regs[g], false)
		wp.pbits[g], wp.pvalid[g] = m, true
	}
	if neg {
		m = ^m
	}
	return m
}

// exec runs one non-control instruction on the lanes in mask.
func (e *ptxWorker) exec(wp *pwarp, x *xin, mask uint32) *Fault {
	switch x.op {
	case ptx.OpLd, ptx.OpSt, ptx.OpAtom, ptx.OpRed:
		return e.mem(wp, x, mask)
	case ptx.OpShfl:
		return e.shfl(wp, x, mask)
	case ptx.OpVote:
		e.vote(wp, x, mask)
		return nil
	case ptx.OpMatch: // ptxwarp.go
		return e.match(wp, x, mask)
	case ptx.OpRedux:
		return e.redux(wp, x, mask)
	case ptx.OpActivemask:
		e.activemask(wp, x, mask)
		return nil
	case ptx.OpNanosleep:
		return nil
	case ptx.OpWmma:
		return e.wmma(wp, x, mask) // ptxwmma.go
	case ptx.OpCpAsync:
		if x.in.Async == ptx.AsyncCopy {
			return e.cpAsync(wp, x, mask)
		}
		return nil // commit and wait: the copies are done (cpAsync)
	case ptx.OpMov:
		if x.frameSym {
			e.cvta(wp, x, mask) // a frame variable's address (ptxcall.go)
			return nil
		}
		if x.dst[0].kind == oVec || x.src[0].kind == oVec {
			e.movVec(wp, x, mask)
			return nil
		}
	case ptx.OpCvta:
		e.cvta(wp, x, mask)
		return nil
	}
	if x.clock {
		e.fillClocks(wp) // it reads a clock (ptxwarp.go)
	}
	return e.alu(wp, x, mask)
}

// cvta moves an address between a state space and the generic space by
// adding or removing the space's window.
func (e *ptxWorker) cvta(wp *pwarp, x *xin, mask uint32) {
	a := e.src(wp, &x.src[0], 0)
	d := e.dst(wp, &x.dst[0], 0)
	var win uint64
	switch x.in.Space {
	case ptx.SpaceShared:
		win = sharedWin
	case ptx.SpaceLocal:
		win = localWin
	}
	wmask := x.tmask
	if x.in.CvtaTo {
		win = -win
	}
	if x.frameSym {
		// The address of a device function's frame variable: its offset
		// in the running frame (ptxcall.go).
		win += uint64(wp.ext.fp)
	}
	for m := lanes.AddK(d, a, win, wmask, mask); m != 0; {
		lo, hi, rest := laneRun(m)
		m = rest
		dr, ar := d[lo:hi], a[lo:hi]
		for i := range dr {
			dr[i] = (ar[i] + win) & wmask
		}
	}
}

// movVec packs registers into a wider one or unpacks one into several:
// mov.b64 %rd, {%r1, %r2} and its reverse.
func (e *ptxWorker) movVec(wp *pwarp, x *xin, mask uint32) {
	size := x.in.Type.Size() * 8
	if dv := x.dst[0]; dv.kind == oVec {
		part := size / len(dv.vec)
		a := e.src(wp, &x.src[0], 0)
		for i, r := range dv.vec {
			if r < 0 {
				continue
			}
			d := &wp.regs[r]
			if int(r) < len(wp.pvalid) {
				wp.pvalid[r] = false
			}
			for m := mask; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m)
				d[l] = a[l] >> (i * part) & (1<<part - 1)
			}
		}
		return
	}
	sv := x.src[0]
	part := size / len(sv.vec)
	d := e.dst(wp, &x.dst[0], 0)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		var v uint64
		for i, r := range sv.vec {
			if r >= 0 {
				v |= wp.regs[r][l] & (1<<part - 1) << (i * part)
			}
		}
		d[l] = v
	}
}

// typeMask keeps the bits of a value of type t.
func typeMask(t ptx.Type) uint64 {
	switch t.Size() {
	case 1:
		return 0xff
	case 2:
		return 0xffff
	case 4:
		return 0xffffffff
	}
	return ^uint64(0)
}

// shfl runs shfl.sync with the PTX manual's lane arithmetic: c holds the
// clamp value (bits 0-4) and the segment mask (bits 8-12); a lane whose
// source lane falls outside its segment reads its own value and gets a
// false predicate. Reading from a lane that is not executing the shuffle
// (inactive, exited or outside the member mask) is a fault, as it is
// undefined on hardware.
func (e *ptxWorker) shfl(wp *pwarp, x *xin, mask uint32) *Fault {
	if mask == fullMask && x.shflK >= 0 {
		// The reduction idiom on a 32-bit register (markShuffles), whose
		// row already holds canonical .b32 bits.
		var p *[32]uint64
		if x.dst[1].kind == oReg { // a predicate nothing reads is a sink (sinkUnread)
			p = e.dst(wp, &x.dst[1], 1)
		}
		shiftDown(e.dst(wp, &x.dst[0], 0), e.src(wp, &x.src[0], 0), p, int(x.shflK))
		e.t.w.sh.warpSync(wp.id)
		return nil
	}
	a := e.src(wp, &x.src[0], 0)
	b := e.src(wp, &x.src[1], 1)
	c := e.src(wp, &x.src[2], 2)
	mm := e.src(wp, &x.src[3], 3)
	vals := *a
	if x.src[0].kind != oReg || e.l.pk.k.Regs[x.src[0].idx].Type.Size() != 4 {
		for l := range vals {
			vals[l] &= 0xffffffff
		}
	}
	d := e.dst(wp, &x.dst[0], 0)
	var p *[32]uint64
	if x.in.NDst > 1 {
		p = e.dst(wp, &x.dst[1], 1)
	}
	if mask == fullMask && x.in.Shfl == ptx.ShflDown && e.shflDownFull(&vals, b, c, mm, d, p) {
		e.t.w.sh.warpSync(wp.id)
		return nil
	}
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		j, ok := shflSource(x.in.Shfl, lane, b[lane], c[lane])
		members := uint32(mm[lane]) & wp.live
		if mask&(1<<j) == 0 || members&(1<<j) == 0 {
			return e.fault(wp, lane, x, "shuffle from inactive lane", fmt.Sprintf(
				"lane %d reads lane %d, which is not executing this shfl.sync (active lanes %032b, member mask %032b)", lane, j, mask, uint32(mm[lane])))
		}
		d[lane] = vals[j] & 0xffffffff
		if p != nil {
			p[lane] = 0
			if ok {
				p[lane] = 1
			}
		}
	}
	e.t.w.sh.warpSync(wp.id)
	return nil
}

// shiftDown is shfl.sync.down by k over a whole warp with no segments:
// lane l takes vals[l+k], the top k lanes their own value, and p (when not
// nil) says which lanes read another. copy moves overlapping rows as
// memmove does, so d may be vals.
func shiftDown(d, vals, p *[32]uint64, k int) {
	copy(d[:32-k], vals[k:])
	copy(d[32-k:], vals[32-k:])
	if p != nil {
		for lane := range 32 {
			p[lane] = uint64(^uint32(31-lane-k) >> 31)
		}
	}
}

// shflDownFull is shfl.sync.down with all 32 lanes active, the reduction
// idiom: it reports false, having written nothing, when a lane's member
// mask leaves out its source lane (the general path then reports it).
func (e *ptxWorker) shflDownFull(vals, b, c, mm, d, p *[32]uint64) bool {
	uniform := true
	for lane := range 32 {
		if uint32(mm[lane]) != fullMask {
			return false
		}
		uniform = uniform && b[lane] == b[0] && c[lane] == c[0]
	}
	if uniform && c[0]&0x1f1f == 31 {
		// One offset k for all, no segments: lane l takes l+k, the top
		// k lanes their own value. vals holds canonical .b32 bits.
		shiftDown(d, vals, p, int(b[0]&31))
		return true
	}
	for lane := range 32 {
		seg := int(c[lane]>>8) & 31
		maxLane := lane&seg | int(c[lane]&31)&^seg
		j, ok := lane+int(b[lane]&31), uint64(1)
		if j > maxLane {
			j, ok = lane, 0
		}
		d[lane] = vals[j] & 0xffffffff
		if p != nil {
			p[lane] = ok
		}
	}
	return true
}

// vote runs vote.sync over the lanes executing it.
func (e *ptxWorker) vote(wp *pwarp, x *xin, mask uint32) {
	a := e.src(wp, &x.src[0], 0)
	ballot := predMask(a, false) & mask
	d := e.dst(wp, &x.dst[0], 0)
	var v uint64
	switch x.in.Vote {
	case ptx.VoteAll:
		if ballot == mask {
			v = 1
		}
	case ptx.VoteAny:
		if ballot != 0 {
			v = 1
		}
	case ptx.VoteUni:
		if ballot == 0 || ballot == mask {
			v = 1
		}
	default:
		v = uint64(ballot)
	}
	for m := mask; m != 0; m &= m - 1 {
		d[bits.TrailingZeros32(m)] = v
	}
	e.t.w.sh.warpSync(wp.id)
}

// globalArg is a *Global[T] of any element type, as an argument.
type globalArg interface{ bufInfo() *bufMeta }

func (g *Global[T]) bufInfo() *bufMeta { return &g.meta }

// dataPtr is the address of element 0 and the byte length of the data.
func (g *Global[T]) dataPtr() (unsafe.Pointer, int) {
	if len(g.Data) == 0 {
		return nil, 0
	}
	var z T
	return unsafe.Pointer(unsafe.SliceData(g.Data)), len(g.Data) * int(unsafe.Sizeof(z))
}
