package sim

import (
	"fmt"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/warplab/warplab/sim/ptx"
)

// Module variables: a CUDA module's __device__ and __constant__ variables
// (.global and .const at module scope in the PTX) exist once per module on
// a device, start from their initialisers when the module is first used,
// and keep what kernels and the host write from launch to launch, as in a
// CUDA context (cudaMemcpyToSymbol, cudaMemcpyFromSymbol, or
// cuModuleGetGlobal and a copy). All of a module's kernels see the same
// variables.

// moduleImage lays out m's module variables in one image: each at a
// multiple of its alignment (at least 8), in module order, holding its
// initialiser. It is a function of m alone, so every kernel of m places
// the variables alike.
func moduleImage(m *ptx.Module) (img []byte, ranges []varRange, off map[*ptx.Var]int) {
	off = map[*ptx.Var]int{}
	size := 0
	for _, v := range m.Vars {
		if v.Space != ptx.SpaceConst && v.Space != ptx.SpaceGlobal {
			continue
		}
		o := alignUp(size, max(v.Align, 8))
		off[v] = o
		size = o + v.Size
		ranges = append(ranges, varRange{lo: o, hi: o + v.Size, name: v.Name, writable: v.Space == ptx.SpaceGlobal})
	}
	img = make([]byte, size, size+8)
	for _, v := range m.Vars {
		if o, ok := off[v]; ok {
			copy(img[o:], v.Init)
		}
	}
	return img, ranges, off
}

// moduleVars returns k's module's variables on d, made from the
// initialisers on the module's first launch. The caller holds d.mu.
func (d *Device) moduleVars(k *PTXKernel) []byte {
	if d.modVars == nil {
		d.modVars = map[*ptx.Module][]byte{}
	}
	v, ok := d.modVars[k.mod]
	if !ok {
		v = append(make([]byte, 0, len(k.varImage)+8), k.varImage...)
		d.modVars[k.mod] = v
	}
	return v
}

// ModuleGlobal returns module variable name of m (a __device__ or
// __constant__ variable, by its PTX name: unmangled at namespace scope or
// in extern "C") on d, as bytes the host may read and write between
// launches: cudaMemcpyFromSymbol and cudaMemcpyToSymbol. The slice aliases
// the device's copy, which the next launch of any of m's kernels sees.
func (d *Device) ModuleGlobal(m *ptx.Module, name string) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("sim: ModuleGlobal: nil module")
	}
	img, _, off := moduleImage(m)
	var names []string
	for _, v := range m.Vars {
		o, ok := off[v]
		if !ok {
			continue
		}
		names = append(names, v.Name)
		if v.Name != name {
			continue
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.modVars == nil {
			d.modVars = map[*ptx.Module][]byte{}
		}
		cur, ok := d.modVars[m]
		if !ok {
			cur = append(make([]byte, 0, len(img)+8), img...)
			d.modVars[m] = cur
		}
		return cur[o : o+v.Size : o+v.Size], nil
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("sim: module %s has no variable %q (it has no __device__ or __constant__ variables)", m.Name, name)
	}
	return nil, fmt.Errorf("sim: module %s has no variable %q (variables: %s)", m.Name, name, strings.Join(names, ", "))
}

// ModuleVar is ModuleGlobal as a slice of T (its length the variable's
// size over T's): a __constant__ float filter[5] as a []float32 of 5.
func ModuleVar[T Elem](d *Device, m *ptx.Module, name string) ([]T, error) {
	b, err := d.ModuleGlobal(m, name)
	if err != nil {
		return nil, err
	}
	var z T
	es := int(unsafe.Sizeof(z))
	if len(b)%es != 0 {
		return nil, fmt.Errorf("sim: variable %s is %d bytes, not a whole number of %T", name, len(b), z)
	}
	if len(b) == 0 {
		return nil, nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/es), nil
}

// countConst counts one warp-level ld.const: the constant cache serves a
// request one distinct address at a time and broadcasts each to the lanes
// that read it, so lanes reading one address cost one pass and 32
// distinct addresses cost 32 (the CUDA C++ Programming Guide, "Constant
// Memory": a request is split into as many separate requests as there are
// different memory addresses in it).
func (e *ptxWorker) countConst(mask uint32, width int) {
	n := 0
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		e.words[n] = uint32(e.laneOff[l] / uint64(width))
		n++
	}
	x := &e.t.w.pxx
	x.constReq++
	x.constTx += int64(uniq(e.words[:n]))
}

// addVarBuf makes the module's variables a buffer of the launch when it
// has __device__ (.global) ones: their loads, stores and atomics are
// global memory accesses on a GPU (Nsight Compute counts them with the
// others: a lookup table, the math library's table of 2/pi's bits), so
// they are counted as requests and sectors at their sites, under the
// buffer name "__device__ variables". The buffer spans the module's image
// at its window (varWin, below every device buffer, so px.bufs stays
// sorted by address) and takes id 0, which no allocation has. __constant__
// variables in the same image are served by the constant cache instead
// (countConst).
func (px *ptxLaunch) addVarBuf() {
	writable := false
	for _, v := range px.pk.varRanges {
		writable = writable || v.writable
	}
	if !writable || len(px.vars) == 0 {
		return
	}
	n := len(px.vars)
	m := &bufMeta{id: 0, name: "__device__ variables", addr: varWin, esize: 1, n: n}
	m4, m8 := *m, *m
	m4.esize, m4.n = 4, (n+3)/4
	m8.esize, m8.n = 8, (n+7)/8
	g := gbuf{lo: varWin, hi: varWin + uint64(n), base: unsafe.Pointer(&px.vars[0]), meta: m, m4: &m4, m8: &m8}
	px.bufs = append([]gbuf{g}, px.bufs...)
	px.varBuf = true
}
