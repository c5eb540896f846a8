package sim

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/warplab/warplab/sim/ptx"
	"github.com/warplab/warplab/sim/timing"
)

// Device is one simulated GPU: a model, an allocator of device addresses and
// the buffers it gave out. Addresses matter because sectors and banks are
// computed from them: every buffer starts on a 256-byte boundary, as
// cudaMalloc's do, so a kernel's alignment is the same here as on hardware.
//
// A Device runs one launch at a time; Launch itself uses every core.
type Device struct {
	model Model

	mu     sync.Mutex // serialises launches and allocation
	next   uint64     // next free device address
	nextID int
	used   int64 // bytes of live buffers
	host   int64 // what the host can hold; 0 when unknown

	// allocs lists every buffer by address, weakly, so that the PTX
	// executor can resolve a device address to its buffer (a kernel may
	// reach a buffer through a pointer it loaded, not only through its
	// arguments) without keeping dropped buffers alive.
	allocs []allocRec

	// l2 holds what recent launches touched, newest last: a launch finds
	// in L2 what the launches since its buffers' last use left there.
	l2 timing.L2History

	// modVars holds, by PTX module, the module's __device__ and
	// __constant__ variables on this device (ptxglobals.go): they keep
	// their values from launch to launch, as in a CUDA context.
	modVars map[*ptx.Module][]byte

	// heap is the device's malloc heap (ptxheap.go).
	heap deviceHeap
}

// NewDevice returns a simulated device of model m with no buffers.
func NewDevice(m Model) *Device {
	return &Device{model: m, next: 1 << 32, host: hostMemory()}
}

// hostMemory is how many bytes of buffers this machine can back: simulated
// buffers live in host memory, so a size the model's GPU would take can
// still exhaust the host, and Go aborts rather than fails on that. Three
// quarters of MemTotal leaves room for the rest of the program.
func hostMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb * 1024 / 4 * 3
			}
		}
	}
	return 0
}

// Model is the GPU this device simulates.
func (d *Device) Model() Model { return d.model }

// Elem is the set of element types device buffers hold.
type Elem interface {
	~float32 | ~float64 | ~int32 | ~int64 | ~uint32
}

// bufMeta is what the counters need to know about a buffer, whatever its
// element type.
type bufMeta struct {
	id    int
	name  string
	addr  uint64
	esize uint64
	n     int
}

// Global is a buffer in simulated global memory. Data is its contents, which
// the host reads and writes directly between launches; kernels go through
// Ld, St and AtomicAdd so that every access is counted and bounds-checked.
type Global[T Elem] struct {
	Data []T
	meta bufMeta
}

// Short names for the buffer types lessons use.
type (
	F32 = Global[float32]
	F64 = Global[float64]
	I32 = Global[int32]
	I64 = Global[int64]
	U32 = Global[uint32]
)

// maxBufferBytes bounds one buffer: accesses are recorded as 4-byte word
// offsets in 32 bits.
const maxBufferBytes = 1<<34 - 4

// maxElems bounds one buffer, so that a size typo is an error rather than an
// attempt to allocate the machine's memory.
const maxElems = 1 << 34

// Alloc returns a zeroed buffer of n elements.
func Alloc[T Elem](d *Device, name string, n int) (*Global[T], error) {
	if n < 0 || n > maxElems {
		return nil, fmt.Errorf("sim: Alloc %q: %d elements is out of range [0, %d]", name, n, maxElems)
	}
	var z T
	es := uint64(unsafe.Sizeof(z))
	d.mu.Lock()
	defer d.mu.Unlock()
	bytes := int64(es * uint64(n))
	if bytes >= maxBufferBytes {
		return nil, fmt.Errorf("sim: Alloc %q: %d bytes; the simulator's counters address at most %d bytes in one buffer", name, bytes, int64(maxBufferBytes))
	}
	if bytes > d.model.MemoryBytes-d.used {
		return nil, fmt.Errorf("sim: Alloc %q: %d bytes do not fit in the %s's memory (%d bytes, %d in use)", name, bytes, d.model.Name, d.model.MemoryBytes, d.used)
	}
	if d.host > 0 && bytes > d.host-d.used {
		return nil, fmt.Errorf("sim: Alloc %q: %d bytes do not fit in this computer's memory (about %d bytes usable for simulated buffers, %d in use); use a smaller size", name, bytes, d.host, d.used)
	}
	d.used += bytes
	g := &Global[T]{Data: make([]T, n)}
	d.nextID++
	g.meta = bufMeta{id: d.nextID, name: name, addr: d.next, esize: es, n: n}
	d.register(g)
	d.next += (es*uint64(n) + 255) &^ 255
	if n == 0 {
		d.next += 256
	}
	return g, nil
}

// Upload returns a new buffer holding a copy of src.
func Upload[T Elem](d *Device, name string, src []T) (*Global[T], error) {
	g, err := Alloc[T](d, name, len(src))
	if err != nil {
		return nil, err
	}
	copy(g.Data, src)
	return g, nil
}

// Name is the buffer's name, used in site labels and fault messages.
func (g *Global[T]) Name() string { return g.meta.name }

// Len is the number of elements.
func (g *Global[T]) Len() int { return len(g.Data) }

// Addr is the simulated device address of element 0.
func (g *Global[T]) Addr() uint64 { return g.meta.addr }

// Ld is a load of g[i] from a kernel, counted at the default site
// "<name> ld". Out of range, it stops the thread with a fault.
func (g *Global[T]) Ld(t *Thread, i int) T {
	if uint(i) >= uint(len(g.Data)) {
		t.oob(&g.meta, "ld", -1, i)
	}
	t.w.global(t, t.w.defaultSite(&g.meta, opLd, false), uint64(i)*g.meta.esize)
	return g.Data[i]
}

// LdAt is Ld at a labelled site: use it where one buffer is loaded by two
// different instructions (rowPtr[row] and rowPtr[row+1]).
func (g *Global[T]) LdAt(t *Thread, s Site, i int) T {
	if uint(i) >= uint(len(g.Data)) {
		t.oob(&g.meta, "ld", s, i)
	}
	d := t.w.cachedSite(s, &g.meta, opLd*2)
	if d < 0 {
		d = t.w.explicitSiteSlow(s, &g.meta, opLd*2)
	}
	t.w.global(t, d, uint64(i)*g.meta.esize)
	return g.Data[i]
}

// SkipLd and SkipSt say that this lane is predicated off at the load or
// store of site s this time round: it makes no access, but it keeps its
// place, so that its next access there pairs with the other lanes' accesses
// of the same loop iteration. That is how SIMT lockstep pairs a conditional
// access inside a loop (denseToCSR's `if (v != 0) col[out] = j`), where the
// k-th access of one lane and of another come from different iterations.
func (g *Global[T]) SkipLd(t *Thread, s Site) { t.skip(t.w.explicitSite(s, &g.meta, opLd*2)) }

// SkipSt is SkipLd for a store site.
func (g *Global[T]) SkipSt(t *Thread, s Site) { t.skip(t.w.explicitSite(s, &g.meta, opSt*2)) }

// St is a store of v into g[i], counted at the default site "<name> st".
func (g *Global[T]) St(t *Thread, i int, v T) {
	if uint(i) >= uint(len(g.Data)) {
		t.oob(&g.meta, "st", -1, i)
	}
	t.w.global(t, t.w.defaultSite(&g.meta, opSt, false), uint64(i)*g.meta.esize)
	if t.fast {
		t.w.remember(unsafe.Pointer(&g.Data[i]), toBits(g.Data[i]), g.meta.esize)
	}
	g.Data[i] = v
}

// StAt is St at a labelled site.
func (g *Global[T]) StAt(t *Thread, s Site, i int, v T) {
	if uint(i) >= uint(len(g.Data)) {
		t.oob(&g.meta, "st", s, i)
	}
	t.w.global(t, t.w.explicitSite(s, &g.meta, opSt*2), uint64(i)*g.meta.esize)
	if t.fast {
		t.w.remember(unsafe.Pointer(&g.Data[i]), toBits(g.Data[i]), g.meta.esize)
	}
	g.Data[i] = v
}

// AtomicAdd adds v to g[i] atomically and returns the old value, like CUDA's
// atomicAdd. int32, uint32, int64, float32 and float64 are supported. Float
// atomics from different blocks land in an order that depends on scheduling,
// exactly as on a GPU; mark the kernel Ordered to make them reproducible.
func (g *Global[T]) AtomicAdd(t *Thread, i int, v T) T {
	t.w.atomics++
	if uint(i) >= uint(len(g.Data)) {
		t.oob(&g.meta, "atom", -1, i)
	}
	t.w.global(t, t.w.defaultSite(&g.meta, opAtom, false), uint64(i)*g.meta.esize)
	return atomicAdd(&g.Data[i], v)
}
