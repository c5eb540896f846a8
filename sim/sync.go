package sim

import (
	"fmt"
	"iter"
)

// Events a coroutine thread reports when it gives up the processor.
const (
	evExit int8 = iota
	evBarrier
	evWarp
	evFault
)

// Thread states inside a Sync block.
const (
	stRun int8 = iota
	stBar
	stWarp
	stExit
)

// Warp intrinsic kinds.
const (
	wShfl = iota + 1
	wShflDown
	wShflUp
	wShflXor
	wBallot
	wAny
	wAll
	wSyncWarp
)

var warpOpNames = map[int]string{
	wShfl: "__shfl_sync", wShflDown: "__shfl_down_sync", wShflUp: "__shfl_up_sync", wShflXor: "__shfl_xor_sync",
	wBallot: "__ballot_sync", wAny: "__any_sync", wAll: "__all_sync", wSyncWarp: "__syncwarp",
}

type warpOp struct {
	kind  int
	mask  uint32
	val   uint64
	param int
}

// coThread is a Thread that runs as a coroutine, so that it can stop at a
// barrier or a warp intrinsic and let its block's other threads catch up.
// Coroutines are reused from block to block; none is created per thread.
type coThread struct {
	t     Thread
	next  func() (int8, bool)
	stop  func()
	yield func(int8) bool
}

func (w *worker) newCo() *coThread {
	c := &coThread{}
	c.t.w = w
	c.t.co = c
	c.t.BlockDim, c.t.GridDim = w.l.block, w.l.grid
	seq := func(yield func(int8) bool) {
		c.yield = yield
		for {
			ev := w.runCoBody(&c.t)
			if c.t.stopped || !yield(ev) {
				return
			}
		}
	}
	c.next, c.stop = iter.Pull(seq)
	return c
}

func (w *worker) runCoBody(t *Thread) (ev int8) {
	defer func() {
		if r := recover(); r != nil {
			if t.stopped {
				ev = evExit
				return
			}
			w.fault = w.caught(t, r)
			ev = evFault
		}
	}()
	w.k.Body(t)
	return evExit
}

func (w *worker) closeCoroutines() {
	for _, c := range w.co {
		c.stop()
	}
	w.co = nil
}

// suspend hands the processor back to the block's scheduler.
func (t *Thread) suspend(ev int8) {
	if t.co == nil {
		t.fail(&Fault{Kind: "synchronisation in a kernel without Sync",
			Detail: "the body calls a barrier, shuffle or vote; declare the kernel with Sync: true (NewKernel(name, true))"})
	}
	if !t.co.yield(ev) {
		t.stopped = true
		panic(stopThread{})
	}
}

// SyncThreads is __syncthreads(): the thread waits until every thread of its
// block has reached a barrier. A thread that exits while others wait is a
// divergent barrier, reported as a fault instead of a hang.
func (t *Thread) SyncThreads() {
	if t.fast {
		t.w.leaveFastPath(t, "__syncthreads")
	}
	t.instr++
	t.w.usedSync = true
	t.suspend(evBarrier)
}

func (t *Thread) warpOp(kind int, mask uint32, v uint64, p int) uint64 {
	if t.fast {
		return t.w.fastWarpOp(t, kind, mask, v, p)
	}
	t.instr++
	if kind != wShflDown {
		t.w.usedSync = true
	}
	t.wop = warpOp{kind: kind, mask: mask, val: v, param: p}
	t.suspend(evWarp)
	return t.wres
}

// SyncWarp is __syncwarp(mask).
func (t *Thread) SyncWarp(mask uint32) { t.warpOp(wSyncWarp, mask, 0, 0) }

// BallotSync is __ballot_sync: bit L of the result is lane L's pred, for the
// lanes in mask.
func (t *Thread) BallotSync(mask uint32, pred bool) uint32 {
	return uint32(t.warpOp(wBallot, mask, b2u(pred), 0))
}

// AnySync is __any_sync.
func (t *Thread) AnySync(mask uint32, pred bool) bool { return t.warpOp(wAny, mask, b2u(pred), 0) != 0 }

// AllSync is __all_sync.
func (t *Thread) AllSync(mask uint32, pred bool) bool { return t.warpOp(wAll, mask, b2u(pred), 0) != 0 }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// ShflSync is __shfl_sync: v of lane srcLane (mod 32).
func ShflSync[T Elem](t *Thread, mask uint32, v T, srcLane int) T {
	return fromBits[T](t.warpOp(wShfl, mask, toBits(v), srcLane))
}

// ShflDownSync is __shfl_down_sync: v of lane+delta, or the lane's own v
// when lane+delta is past the warp.
func ShflDownSync[T Elem](t *Thread, mask uint32, v T, delta int) T {
	return fromBits[T](t.warpOp(wShflDown, mask, toBits(v), delta))
}

// ShflUpSync is __shfl_up_sync: v of lane-delta, or the lane's own v below 0.
func ShflUpSync[T Elem](t *Thread, mask uint32, v T, delta int) T {
	return fromBits[T](t.warpOp(wShflUp, mask, toBits(v), delta))
}

// ShflXorSync is __shfl_xor_sync: v of lane^laneMask.
func ShflXorSync[T Elem](t *Thread, mask uint32, v T, laneMask int) T {
	return fromBits[T](t.warpOp(wShflXor, mask, toBits(v), laneMask))
}

// runBlockSync runs one block of a Sync kernel: every runnable thread runs
// until it exits or waits; then waiting warp intrinsics are resolved, and
// when nothing else can move, the barrier releases. The order is fixed, so
// races, faults and atomics come out the same on every run.
func (w *worker) runBlockSync(b int) *Fault {
	l := w.l
	n := l.nThreads
	for len(w.co) < n {
		w.co = append(w.co, w.newCo())
	}
	bIdx := l.grid.unlinear(b)
	w.l1Reset()
	w.sh.reset(w, l.sharedBytes)
	for tid := 0; tid < n; tid++ {
		t := &w.co[tid].t
		t.BlockIdx = bIdx
		t.ThreadIdx = l.block.unlinear(tid)
		t.tid, t.lane, t.warp = tid, tid&31, tid>>5
		t.acc = &w.accs[tid>>5]
		t.state = stRun
		t.instr = 0
		t.unroll = 0
	}
	for {
		for tid := 0; tid < n; tid++ {
			c := w.co[tid]
			t := &c.t
			if t.state != stRun {
				continue
			}
			ev, _ := c.next()
			switch ev {
			case evExit:
				t.state = stExit
				w.endThread(t)
			case evBarrier:
				t.state = stBar
			case evWarp:
				t.state = stWarp
			default:
				f := w.fault
				w.fault = nil
				if f == nil {
					f = &Fault{Kernel: w.k.Name, Kind: "internal", Block: bIdx, Thread: t.ThreadIdx}
				}
				return f
			}
		}
		resolved := false
		for wp := 0; wp < l.nWarps; wp++ {
			r, f := w.resolveWarp(wp, n)
			if f != nil {
				return f
			}
			resolved = resolved || r
		}
		if resolved {
			continue
		}
		var atBar, exited *Thread
		for tid := 0; tid < n; tid++ {
			t := &w.co[tid].t
			switch {
			case t.state == stBar && atBar == nil:
				atBar = t
			case t.state == stExit && exited == nil:
				exited = t
			}
		}
		if atBar == nil {
			break // every thread has exited
		}
		if exited != nil {
			return &Fault{Kernel: w.k.Name, Kind: "divergent barrier", Block: bIdx, Thread: atBar.ThreadIdx,
				Detail: fmt.Sprintf("thread %v waits at __syncthreads, but thread %v exited without reaching it (every thread of the block must reach each barrier)", atBar.ThreadIdx, exited.ThreadIdx)}
		}
		w.sh.barrier()
		for tid := 0; tid < n; tid++ {
			t := &w.co[tid].t
			t.state = stRun
		}
		for i := range w.accs[:l.nWarps] {
			w.flushRequests(&w.accs[i])
		}
	}
	for i := range w.accs[:l.nWarps] {
		w.flush(&w.accs[i])
	}
	return nil
}

// resolveWarp completes a warp intrinsic once every lane its mask names has
// reached it.
func (w *worker) resolveWarp(wp, n int) (bool, *Fault) {
	base := wp * 32
	var lead *Thread
	for i := 0; i < 32 && base+i < n; i++ {
		if t := &w.co[base+i].t; t.state == stWarp {
			lead = t
			break
		}
	}
	if lead == nil {
		return false, nil
	}
	op := lead.wop
	name := warpOpNames[op.kind]
	fault := func(kind FaultKind, detail string) *Fault {
		return &Fault{Kernel: w.k.Name, Kind: kind, Block: lead.BlockIdx, Thread: lead.ThreadIdx, Detail: detail}
	}
	if op.mask&(1<<uint(lead.lane)) == 0 {
		return false, fault("bad warp mask", fmt.Sprintf("lane %d calls %s with mask %#08x, which does not include itself", lead.lane, name, op.mask))
	}
	var group [32]*Thread
	for i := 0; i < 32; i++ {
		if op.mask&(1<<uint(i)) == 0 {
			continue
		}
		if base+i >= n {
			return false, fault("shuffle from exited lane", fmt.Sprintf("%s mask %#08x names lane %d, which does not exist in this block (%d threads)", name, op.mask, i, n))
		}
		t := &w.co[base+i].t
		switch t.state {
		case stWarp:
			if t.wop.kind != op.kind {
				return false, fault("divergent warp intrinsic", fmt.Sprintf("lane %d waits at %s but lane %d at %s", lead.lane, name, i, warpOpNames[t.wop.kind]))
			}
			group[i] = t
		case stExit:
			return false, fault("shuffle from exited lane", fmt.Sprintf("lane %d calls %s with mask %#08x, but lane %d has exited", lead.lane, name, op.mask, i))
		default:
			return false, fault("divergent warp intrinsic", fmt.Sprintf("lane %d waits at %s but lane %d, named in its mask, waits at __syncthreads", lead.lane, name, i))
		}
	}
	var vote uint64
	for i, t := range group {
		if t != nil && t.wop.val != 0 {
			vote |= 1 << uint(i)
		}
	}
	for i, t := range group {
		if t == nil {
			continue
		}
		switch op.kind {
		case wBallot:
			t.wres = vote
		case wAny:
			t.wres = b2u(vote != 0)
		case wAll:
			t.wres = b2u(vote == uint64(op.mask))
		case wSyncWarp:
		default:
			src := i
			switch op.kind {
			case wShfl:
				src = t.wop.param & 31
			case wShflDown:
				if i+t.wop.param < 32 {
					src = i + t.wop.param
				}
			case wShflUp:
				if i-t.wop.param >= 0 {
					src = i - t.wop.param
				}
			case wShflXor:
				src = (i ^ t.wop.param) & 31
			}
			if group[src] == nil {
				st := "is not in the mask"
				if base+src >= n || w.co[base+src].t.state == stExit {
					st = "has exited"
				}
				return false, &Fault{Kernel: w.k.Name, Kind: "shuffle from exited lane", Block: t.BlockIdx, Thread: t.ThreadIdx,
					Detail: fmt.Sprintf("lane %d's %s reads lane %d, which %s", i, name, src, st)}
			}
			t.wres = group[src].wop.val
		}
	}
	for _, t := range group {
		if t != nil {
			t.state = stRun
		}
	}
	w.sh.warpSync(wp)
	return true, nil
}
