package sim

import (
	"fmt"
	"unsafe"
)

// Site names one load or store instruction of a kernel. Accesses pair into
// warp-level requests per site (lane L's k-th access at a site with every
// other lane's k-th access there), so a kernel that loads one buffer from two
// places, as thread-per-row SpMV loads rowPtr[row] and rowPtr[row+1], gives
// each place its own Site. Accesses made without a Site use the default site
// of their buffer and operation, labelled "<buffer> ld" or "<buffer> st".
type Site int32

// Kernel is the Go mirror of a CUDA kernel: a function run once per thread.
//
// Sync must be true when the body calls SyncThreads, SyncWarp, a shuffle or a
// vote. Such kernels run each lane as a coroutine so that a thread can wait
// for the others; kernels without Sync run thread after thread on a plain
// call stack and pay nothing for that machinery, which is what makes the
// simulator fast on the memory-bound kernels lessons start with.
//
// Ordered runs the blocks one after another in block order. Use it for a
// kernel whose float atomicAdds to global memory must be reproducible; on a
// GPU (and here, without Ordered) their order depends on scheduling.
//
// Lockstep forces a Sync kernel onto the coroutine path for every block
// (see fastpath.go); it is never needed for correctness, only when a kernel
// stores to global memory before it first touches shared memory, a barrier
// or an intrinsic other than __shfl_down_sync.
//
// MaxInstructions bounds each thread's issued instructions (memory
// accesses, intrinsics and Ops; checked every 4096): a thread that passes
// it ends the launch with a "runaway thread" fault instead of running for
// ever. Zero means 2^31.
type Kernel struct {
	Name            string
	Sync            bool
	Ordered         bool
	Lockstep        bool
	MaxInstructions int64
	Body            func(t *Thread)

	sites []string
}

// NewKernel returns a kernel with no body yet; set Body after declaring its
// sites, so the body can close over them.
func NewKernel(name string, sync bool) *Kernel {
	return &Kernel{Name: name, Sync: sync}
}

// Site declares a labelled access site, e.g. k.Site("rowPtr[row+1]").
func (k *Kernel) Site(label string) Site {
	k.sites = append(k.sites, label)
	return Site(len(k.sites) - 1)
}

// Thread is one CUDA thread as its kernel body sees it: the built-in
// variables, and the methods that stand for CUDA's intrinsics.
type Thread struct {
	ThreadIdx, BlockIdx, BlockDim, GridDim Dim3

	w     *worker
	acc   *warpAcc
	tid   int // linear id in the block
	lane  int
	warp  int
	instr int64 // instructions issued by this lane (memory ops + Ops)

	// remainder-first unrolling model
	unroll, rem, iter int

	// coroutine state (Sync kernels)
	co      *coThread
	wop     warpOp
	wres    uint64
	state   int8
	stopped bool
	fast    bool // running on the lane-descending fast path (fastpath.go)
}

// Lane is the thread's lane in its warp, threadIdx linearised modulo 32.
func (t *Thread) Lane() int { return t.lane }

// Warp is the index of the thread's warp in its block.
func (t *Thread) Warp() int { return t.warp }

// LinearID is the thread's linear index in its block (x fastest).
func (t *Thread) LinearID() int { return t.tid }

// Ops counts n non-memory instructions issued by this lane. Mirrors call it
// to tell the time model about the arithmetic and control instructions the
// compiled kernel issues; memory accesses and warp intrinsics count
// themselves.
func (t *Thread) Ops(n int) { t.instr += int64(n) }

// Unroll tells the simulator that the loop that follows was unrolled by nvcc
// by factor, with the remainder iterations (trips mod factor) run first, and
// that this lane runs it trips times. Each unrolled copy of a load is its own
// instruction, so a lane's iteration i is counted at copy 0 (the remainder
// loop, pass i) when i < trips mod factor, otherwise at copy
// 1 + (i-rem) mod factor with pass (i-rem)/factor. Lanes with different trip
// counts therefore pair up the way the compiled code pairs them. Call Next at
// the end of every iteration and EndLoop after the loop. factor <= 1 means
// not unrolled.
func (t *Thread) Unroll(factor, trips int) {
	if factor <= 1 {
		t.unroll = 0
		return
	}
	if factor > maxUnroll {
		factor = maxUnroll
	}
	t.unroll, t.rem, t.iter = factor, trips%factor, 0
}

// Next marks the end of one iteration of an unrolled loop.
func (t *Thread) Next() { t.iter++ }

// InRemainder reports whether the current iteration of an unrolled loop is
// one of the remainder iterations nvcc runs first (always true when the
// loop is not unrolled), so mirrors can count its instructions.
func (t *Thread) InRemainder() bool { return t.unroll == 0 || t.iter < t.rem }

// EndLoop ends the unrolled loop begun with Unroll.
func (t *Thread) EndLoop() { t.unroll = 0 }

const maxUnroll = 16

// variant is the unrolled copy the current iteration executes (0: the
// remainder loop or no unrolling).
func (t *Thread) variant() int {
	if t.iter < t.rem {
		return 0
	}
	return 1 + (t.iter-t.rem)%t.unroll
}

// oob stops the thread with an out-of-bounds fault on buffer b.
func (t *Thread) oob(b *bufMeta, op string, s Site, i int) {
	label := b.name + " " + op
	if s >= 0 && int(s) < len(t.w.k.sites) {
		label = t.w.k.sites[s]
	}
	t.fail(&Fault{Kind: "out of bounds", Site: label, Buffer: b.name, Index: i, Len: b.n,
		Detail: fmt.Sprintf("%s of element %d, but the buffer holds %d", opWord(op), i, b.n)})
}

func opWord(op string) string {
	switch op {
	case "st":
		return "store"
	case "atom":
		return "atomic"
	}
	return "load"
}

// fail records f as this thread's fault and unwinds the body.
func (t *Thread) fail(f *Fault) {
	f.Kernel = t.w.k.Name
	f.Block = t.BlockIdx
	f.Thread = t.ThreadIdx
	if t.w.fault == nil {
		t.w.fault = f
	}
	panic(stopThread{})
}

// bits and fromBits move any Elem through a warp operation's uint64 slot.
func toBits[T Elem](v T) uint64 {
	var u uint64
	*(*T)(unsafe.Pointer(&u)) = v
	return u
}

func fromBits[T Elem](u uint64) T { return *(*T)(unsafe.Pointer(&u)) }
