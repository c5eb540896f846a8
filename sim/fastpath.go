package sim

import (
	"fmt"
	"unsafe"
)

// The lane-descending fast path for Sync kernels.
//
// Running every lane as a coroutine costs a context switch at each shuffle,
// and warp-per-row SpMV makes five of them per thread. Most warp code in the
// lessons uses one intrinsic only, __shfl_down_sync, and a lane there reads
// only from higher lanes. So a warp can run its lanes from 31 down to 0 on a
// plain call stack: when lane L reaches its i-th shuffle, lane L+delta has
// already run to the end and logged the value it offered at its own i-th
// shuffle. By induction on the lane number every read is exact, and no lane
// ever waits.
//
// Requests pair accesses by count, not by time, so the counters are the
// same as on the coroutine path. A block leaves the fast path, and is run
// again from its start on the coroutine path, the moment one of its threads
// does something the fast path cannot order (a barrier, any other warp
// intrinsic, shared memory). Its global stores are undone first, from a log
// of old values; only a global atomic cannot be taken back, so leaving after
// one is a fault that says how to force the coroutine path
// (Kernel.Lockstep).
//
// Which path a launch tries is decided before its blocks run in parallel:
// block 0 runs alone on the coroutine path, and the fast path is used for
// the other blocks only if block 0 used nothing but __shfl_down_sync. The
// decision depends on the kernel and its data alone, so results, counters
// and faults are the same for any number of workers.

type logEntry struct {
	mask uint32
	val  uint64
}

// leaveFast is the panic value that abandons a block's fast-path run.
type leaveFast struct{}

func (w *worker) leaveFastPath(t *Thread, what string) {
	if w.atomics > 0 {
		t.fail(&Fault{Kind: "simulator limitation",
			Detail: fmt.Sprintf("this thread uses %s after its block made a global atomicAdd on the fast path, which cannot be undone; set Lockstep on the kernel to run it on the coroutine path", what)})
	}
	for i := len(w.undo) - 1; i >= 0; i-- {
		u := w.undo[i]
		if u.size == 4 {
			*(*uint32)(u.p) = uint32(u.old)
		} else {
			*(*uint64)(u.p) = u.old
		}
	}
	w.undo = w.undo[:0]
	panic(leaveFast{})
}

// undoEntry is the old contents of one element a fast-path store overwrote.
type undoEntry struct {
	p    unsafe.Pointer
	old  uint64
	size uint64
}

func (w *worker) remember(p unsafe.Pointer, old uint64, size uint64) {
	w.undo = append(w.undo, undoEntry{p: p, old: old, size: size})
}

func (w *worker) fastWarpOp(t *Thread, kind int, mask uint32, v uint64, delta int) uint64 {
	if kind != wShflDown {
		w.leaveFastPath(t, warpOpNames[kind])
	}
	t.instr++
	lane := t.lane
	i := len(w.wlog[lane])
	w.wlog[lane] = append(w.wlog[lane], logEntry{mask: mask, val: v})
	if mask&(1<<uint(lane)) == 0 {
		t.fail(&Fault{Kind: "bad warp mask", Detail: fmt.Sprintf("lane %d calls __shfl_down_sync with mask %#08x, which does not include itself", lane, mask)})
	}
	src := lane + delta
	if delta < 0 || src >= 32 {
		return v
	}
	if mask&(1<<uint(src)) == 0 {
		t.fail(&Fault{Kind: "shuffle from exited lane", Detail: fmt.Sprintf("lane %d's __shfl_down_sync reads lane %d, which is not in the mask %#08x", lane, src, mask)})
	}
	if t.warp*32+src >= w.l.nThreads || i >= len(w.wlog[src]) {
		t.fail(&Fault{Kind: "shuffle from exited lane", Detail: fmt.Sprintf("lane %d's __shfl_down_sync (its call %d) reads lane %d, which exited before making that call", lane, i+1, src)})
	}
	return w.wlog[src][i].val
}

// runBlockFast runs one block of a Sync kernel on the fast path. It reports
// left=true when the block must be run again on the coroutine path; the
// counters it gathered are then discarded.
func (w *worker) runBlockFast(b int) (f *Fault, left bool) {
	l := w.l
	if w.ft == nil {
		w.ft = &Thread{w: w, BlockDim: l.block, GridDim: l.grid, fast: true}
	}
	t := w.ft
	t.BlockIdx = l.grid.unlinear(b)
	w.l1Reset()
	w.sh.reset(w, l.sharedBytes)
	w.undo = w.undo[:0]
	w.atomics = 0
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(leaveFast); ok {
				w.discardAccs(t)
				f, left = nil, true
				return
			}
			f = w.caught(t, r)
		}
	}()
	for wp := 0; wp < l.nWarps; wp++ {
		for i := range w.wlog {
			w.wlog[i] = w.wlog[i][:0]
		}
		t.acc = &w.accs[wp]
		lanes := min(32, l.nThreads-wp*32)
		for lane := lanes - 1; lane >= 0; lane-- {
			tid := wp*32 + lane
			t.tid, t.lane, t.warp = tid, lane, wp
			t.ThreadIdx = l.block.unlinear(tid)
			w.k.Body(t)
			w.endThread(t)
		}
		if f := w.checkLog(t, wp, lanes); f != nil {
			return f, false
		}
	}
	for i := range w.accs[:l.nWarps] {
		w.flush(&w.accs[i])
	}
	return nil, false
}

// checkLog verifies that every lane named in a shuffle's mask made that
// shuffle too, as the coroutine path would have required.
func (w *worker) checkLog(t *Thread, wp, lanes int) *Fault {
	for lane := 0; lane < lanes; lane++ {
		for i, e := range w.wlog[lane] {
			for o := 0; o < 32; o++ {
				if e.mask&(1<<uint(o)) == 0 {
					continue
				}
				if o >= lanes || len(w.wlog[o]) <= i {
					return &Fault{Kernel: w.k.Name, Kind: "shuffle from exited lane", Block: t.BlockIdx,
						Thread: w.l.block.unlinear(wp*32 + lane),
						Detail: fmt.Sprintf("lane %d's __shfl_down_sync (its call %d) names lane %d in mask %#08x, but lane %d exited before making that call", lane, i+1, o, e.mask, o)}
				}
			}
		}
	}
	return nil
}

// discardAccs forgets what an abandoned fast-path run counted.
func (w *worker) discardAccs(t *Thread) {
	for i := range w.accs {
		acc := &w.accs[i]
		for _, d := range acc.touched {
			sl := &acc.sites[d]
			for l := range sl.lanes {
				sl.lanes[l] = sl.lanes[l][:0]
				if sl.second != nil {
					sl.second[l] = sl.second[l][:0]
				}
			}
			sl.live, sl.wide = 0, false
		}
		acc.touched = acc.touched[:0]
		acc.maxInstr = 0
	}
	t.instr = 0
	t.unroll = 0
}
