package sim

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// The device heap: malloc and free in a kernel (CUDA's device-side
// allocator). A device gets one heap of heapBytes, CUDA's default
// cudaLimitMallocHeapSize, as a buffer named "malloc heap" the first time
// a kernel that calls malloc is launched; allocations come from it in
// order, 16-byte aligned, and stay valid across launches, as on a GPU.
// malloc returns NULL when the heap is used up. free is accepted and does
// nothing: the simulator never reuses heap memory, so a kernel that
// allocates and frees more than 8 MiB in all runs out where a GPU would
// not (its out-of-memory NULL is then the simulator's, not CUDA's).
// Accesses to the heap are global memory accesses like any buffer's.

// heapBytes is the heap's size: CUDA's default heap limit.
const heapBytes = 8 << 20

// deviceHeap is a device's malloc heap: its buffer, and how many of its
// bytes have been handed out (updated by the workers of a launch at once).
type deviceHeap struct {
	buf  *Global[int64]
	next atomic.Uint64
}

// ensureHeap allocates d's heap if it has none. It takes d.mu itself, so
// it is called before a launch takes it.
func (d *Device) ensureHeap() error {
	d.mu.Lock()
	have := d.heap.buf != nil
	d.mu.Unlock()
	if have {
		return nil
	}
	g, err := Alloc[int64](d, "malloc heap", heapBytes/8)
	if err != nil {
		return fmt.Errorf("the device heap for malloc: %w", err)
	}
	d.mu.Lock()
	if d.heap.buf == nil {
		d.heap.buf = g
	}
	d.mu.Unlock()
	return nil
}

// heapAlloc is one thread's malloc(n): the address of n fresh bytes,
// 16-byte aligned, or 0 when the heap cannot hold them.
func (d *Device) heapAlloc(n uint64) uint64 {
	sz := (max(n, 1) + 15) &^ 15
	if sz < n {
		return 0
	}
	for {
		old := d.heap.next.Load()
		end, carry := bits.Add64(old, sz, 0)
		if carry != 0 || end > heapBytes {
			return 0
		}
		if d.heap.next.CompareAndSwap(old, end) {
			return d.heap.buf.meta.addr + old
		}
	}
}

// mallocCall runs malloc for the lanes in exec: each gets its own block,
// written to the call's return value.
func (e *ptxWorker) mallocCall(wp *pwarp, x *xin, exec uint32) {
	c := x.in.Call
	lb := e.l.pk.laneLocal
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		p := e.t.w.l.d.heapAlloc(e.frameWord(wp, l, c.Args[0], 8))
		off := l*lb + wp.ext.fp + e.l.pk.varOff[c.Rets[0]]
		writeMem(unsafe.Pointer(&wp.local[off]), 8, p)
	}
}
