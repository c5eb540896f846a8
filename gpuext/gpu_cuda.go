//go:build cuda

package gpuext

/*
#cgo linux CFLAGS: -I/usr/local/cuda/include
#cgo linux LDFLAGS: -L/usr/local/cuda/lib64 -lcuda
#include <cuda.h>

// gorgonia.org/cu v0.9.6 does not wrap cuFuncSetAttribute, which a kernel
// needs before it may use more than 48 KiB of dynamic shared memory.
static CUresult warplabSetMaxDynamicShared(CUfunction f, int bytes) {
	return cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
}

// Nor cuMemAllocHost, the page-locked host memory an asynchronous copy to
// the host needs (ReadAsync). It returns NULL and sets *r on failure.
static void* warplabMemAllocHost(size_t bytes, CUresult* r) {
	void* p = NULL;
	*r = cuMemAllocHost(&p, bytes);
	return *r == CUDA_SUCCESS ? p : NULL;
}
*/
import "C"

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/warplab/warplab/sim"
	"gorgonia.org/cu"
)

// gpuBuilt reports whether this build has the GPU backend.
const gpuBuilt = true

// cudaHeaderVersion is CUDA_VERSION from the cuda.h cgo compiled against.
const cudaHeaderVersion = int(C.CUDA_VERSION)

// defaultShared is the dynamic shared memory every kernel may use without
// opting in (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES).
const defaultShared = 48 << 10

// cudaDev is the GPU backend: one GPU's primary context, driven through
// gorgonia.org/cu.
//
// Threads: a CUDA context is current per OS thread, and Go moves goroutines
// between threads. Every call into the driver therefore goes through do,
// which takes the device's mutex, locks the calling goroutine to its OS
// thread, makes the primary context current there (cuCtxSetCurrent, a
// thread-local store), runs the calls, and unlocks. The primary context may
// be current on any number of threads, so this is correct from any
// goroutine, and it costs no goroutine hand-off per launch, which a single
// owner goroutine fed by a channel would (the launch-overhead benchmark
// measures this path).
type cudaDev struct {
	mu      sync.Mutex
	closed  bool
	dev     cu.Device
	ctx     cu.CUContext
	name    string
	ccMajor int
	ccMinor int
	driver  string
	opts    Options

	compDone bool
	comp     *compiler // nil: load PTX
	compWhy  string    // why comp is nil

	// gen counts contexts: a kernel fault destroys one and recover makes
	// the next (ContextLostError); buffers and reads of an older one are
	// dead. lost says how the last one was lost, for their errors.
	gen  atomic.Uint64
	lost atomic.Pointer[string]
	// dead is the fault whose context could not be recreated: the driver
	// keeps reporting it on every call in this process (NVIDIA documents
	// illegal-address and trap faults as needing a new process; measured
	// on the H200 with driver 580: cuDevicePrimaryCtxRetain after the reset
	// returns IllegalAddress). Every later call returns it at once.
	dead *ContextLostError

	modules    map[[32]byte]*cudaModule
	byModule   map[*Module]moduleRef // fast path: no hashing on every launch
	stage      []byte                // pointer-free staging for small copies
	lastLaunch launchRef             // for errors that surface after the launch that caused them

	// ReadAsync's pinned host blocks and events, reused; Close frees them.
	pinnedFree map[int64][]unsafe.Pointer // size class -> free blocks
	pinnedAll  []unsafe.Pointer
	eventsFree []cu.Event
	eventsAll  []cu.Event

	graphs map[*cudaGraph]struct{} // live graphs of this context; Close destroys them
}

type cudaModule struct {
	mod   cu.Module
	info  LoadInfo
	funcs map[string]*cudaFunc

	// The PTX behind the loaded code, for a simulator run in the same
	// process (Options.PTXFrom): made on first request, by the nvcc and
	// flags that made the cubin, or the embedded PTX that was JIT-loaded.
	ptxOnce sync.Once
	ptx     string
	ptxErr  error
	ptxText string // the PTX loaded on the PTX path: the module's, or compiled from its CUDA C
}

type cudaFunc struct {
	fn            cu.Function
	maxThreads    int // the most threads per block this kernel can launch with (registers)
	staticShared  int
	sharedOptedIn int
}

func openGPU(ordinal int, opts Options) (*Device, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, cudaErr("cuDeviceGetCount", err)
	}
	if ordinal >= n {
		return nil, fmt.Errorf("GPU %d was asked for, but %d GPU(s) answer (numbered from 0)", ordinal, n)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, cudaErr("cuDeviceGet", err)
	}
	name, err := dev.Name()
	if err != nil {
		return nil, cudaErr("cuDeviceGetName", err)
	}
	attr := func(a C.CUdevice_attribute) int {
		v, err := dev.Attribute(cu.DeviceAttribute(a))
		if err != nil {
			return 0
		}
		return v
	}
	total, err := dev.TotalMem()
	if err != nil {
		return nil, cudaErr("cuDeviceTotalMem", err)
	}
	a := gpuAttrs{
		Name:                name,
		CCMajor:             attr(C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
		CCMinor:             attr(C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
		SMs:                 attr(C.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
		MaxThreadsPerSM:     attr(C.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
		MaxThreadsPerBlock:  attr(C.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
		MaxBlocksPerSM:      attr(C.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
		SharedPerBlockOptin: attr(C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
		SharedPerSM:         attr(C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
		L2Bytes:             int64(attr(C.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)),
		MemoryBytes:         total,
		ClockKHz:            attr(C.CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
		MemClockKHz:         attr(C.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
		BusWidthBits:        attr(C.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
	}
	if a.CCMajor == 0 {
		return nil, fmt.Errorf("cuDeviceGetAttribute: GPU %d (%s) reports no compute capability", ordinal, name)
	}
	lim := limits{
		device:             name,
		maxThreadsPerBlock: a.MaxThreadsPerBlock,
		maxBlock: sim.Dim3{X: attr(C.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), Y: attr(C.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
			Z: attr(C.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)},
		maxGrid: sim.Dim3{X: attr(C.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), Y: attr(C.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
			Z: attr(C.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)},
		sharedPerBlock: max(a.SharedPerBlockOptin, attr(C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)),
	}
	if lim.maxThreadsPerBlock <= 0 || lim.maxBlock.X <= 0 || lim.maxGrid.X <= 0 {
		return nil, fmt.Errorf("cuDeviceGetAttribute: GPU %d (%s) reports no launch limits", ordinal, name)
	}

	ctx, err := dev.RetainPrimaryCtx()
	if err != nil {
		return nil, cudaErr("cuDevicePrimaryCtxRetain", err)
	}
	g := &cudaDev{
		dev: dev, ctx: ctx, name: name, ccMajor: a.CCMajor, ccMinor: a.CCMinor,
		driver: driverString(), opts: opts, modules: make(map[[32]byte]*cudaModule), byModule: make(map[*Module]moduleRef),
	}
	return &Device{
		kind:   GPU,
		name:   name,
		driver: g.driver,
		model:  modelFor(a),
		opts:   opts,
		be:     g,
		lim:    lim,
		live:   make(map[*bufState]struct{}),
	}, nil
}

// driverString names the driver: the kernel module's version when
// /proc says it, and the CUDA version the driver API reports.
func driverString() string {
	v := cu.Version()
	s := fmt.Sprintf("CUDA %d.%d driver API", v/1000, v%1000/10)
	if b, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		if m := regexp.MustCompile(`Kernel Module\s+([0-9.]+)`).FindSubmatch(b); m != nil {
			return "driver " + string(m[1]) + ", " + s
		}
	}
	// Some virtual machines hide /proc/driver/nvidia; nvidia-smi still
	// knows the version.
	if out, err := exec.Command("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader").Output(); err == nil {
		if v := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]); v != "" {
			return "driver " + v + ", " + s
		}
	}
	return s
}

// do runs f with the primary context current on a locked OS thread; see
// the type's comment.
func (g *cudaDev) do(f func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("the GPU context was released (device closed)")
	}
	if g.dead != nil {
		return g.dead
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(g.ctx); err != nil {
		return cudaErr("cuCtxSetCurrent", err)
	}
	return f()
}

// cudaErr wraps a CUDA error with the call that returned it and, for the
// errors students meet, what they usually mean.
func cudaErr(call string, err error) error {
	hint := ""
	switch {
	case errors.Is(err, cu.OutOfMemory):
		hint = "the GPU has no room for this allocation; free buffers or use smaller inputs"
	case errors.Is(err, cu.IllegalAddress), errors.Is(err, cu.MisalignedAddress):
		hint = "a kernel read or wrote outside its buffers"
	case errors.Is(err, cu.LaunchFailed), errors.Is(err, cu.IllegalInstruction), errors.Is(err, cu.HardwareStackError), errors.Is(err, cu.Assert):
		hint = "a kernel failed while running: a __trap(), a failed assert, or a bad instruction"
	case errors.Is(err, cu.LaunchOutOfResources):
		hint = "the kernel needs more registers or shared memory than this block size allows; use fewer threads per block"
	case errors.Is(err, cu.InvalidPtx), errors.Is(err, cu.InvalidImage):
		hint = "the driver refused the PTX or cubin; regenerate PTX with nvcc 11.8 (scripts/cuda/gen-ptx.sh) or update the driver"
	}
	if hint == "" && strings.Contains(err.Error(), "UnsupportedPtxVersion") {
		hint = "the PTX is newer than this driver; generate it with nvcc 11.8 (scripts/cuda/gen-ptx.sh) or update the driver"
	}
	if hint != "" {
		return fmt.Errorf("%s: %w (%s)", call, err, hint)
	}
	return fmt.Errorf("%s: %w", call, err)
}

// contextFault reports whether err is a kernel fault that leaves the
// context unusable (CUDA's "sticky" errors).
func contextFault(err error) bool {
	return errors.Is(err, cu.IllegalAddress) || errors.Is(err, cu.MisalignedAddress) ||
		errors.Is(err, cu.LaunchFailed) || errors.Is(err, cu.IllegalInstruction) ||
		errors.Is(err, cu.HardwareStackError) || errors.Is(err, cu.Assert) ||
		errors.Is(err, cu.InvalidAddressSpace) || errors.Is(err, cu.InvalidPc)
}

// sticky is cudaErr for calls that may be the first to see an earlier
// kernel's fault: such a fault recreates the context (recoverLocked) and
// comes back as a *ContextLostError naming the last launch. g.mu is held.
func (g *cudaDev) sticky(call string, err error) error {
	if contextFault(err) {
		return g.recoverLocked(call, err)
	}
	return cudaErr(call, err)
}

// recoverLocked replaces the primary context a kernel fault destroyed:
// cuDevicePrimaryCtxReset frees everything in it (modules, memory, events,
// pinned blocks), a fresh retain creates the new one, and the reference
// held from before the reset is released, so the count stays one. Module
// handles are forgotten (the next launch reloads them); buffers and
// pending reads of the old generation report ErrDiedWithContext. g.mu is
// held, with the old context current on this locked thread.
func (g *cudaDev) recoverLocked(call string, err error) error {
	if g.dead != nil {
		return g.dead
	}
	lost := &ContextLostError{Device: g.name, Call: call, Err: cudaErr(call, err)}
	if r := g.lastLaunch; r.m != nil {
		lost.Module, lost.Kernel, lost.Grid, lost.Block, lost.Shared = r.m.Name, r.name, r.grid, r.block, r.shared
	}
	why := fmt.Sprintf("%s reported %v", call, err)
	if lost.Kernel != "" {
		why = fmt.Sprintf("kernel %s.%s faulted (%v)", lost.Module, lost.Kernel, err)
	}
	g.lost.Store(&why)
	g.gen.Add(1)
	g.modules = make(map[[32]byte]*cudaModule)
	g.byModule = make(map[*Module]moduleRef)
	g.pinnedAll, g.pinnedFree, g.eventsAll, g.eventsFree = nil, nil, nil, nil
	g.graphs = nil // gone with the context; their generation marks them dead
	g.lastLaunch = launchRef{}
	if rerr := g.dev.ResetPrimaryCtx(); rerr != nil {
		lost.RecreateErr = cudaErr("cuDevicePrimaryCtxReset", rerr)
		g.dead = lost
		return lost
	}
	ctx, rerr := g.dev.RetainPrimaryCtx()
	if rerr != nil {
		lost.RecreateErr = cudaErr("cuDevicePrimaryCtxRetain", rerr)
		g.dead = lost
		return lost
	}
	if rerr := g.dev.ReleasePrimaryCtx(); rerr != nil {
		lost.RecreateErr = cudaErr("cuDevicePrimaryCtxRelease", rerr)
	}
	g.ctx = ctx
	if rerr := cu.SetCurrentContext(ctx); rerr != nil && lost.RecreateErr == nil {
		lost.RecreateErr = cudaErr("cuCtxSetCurrent", rerr)
	}
	return lost
}

// generation is the context generation and why the last context was lost.
func (g *cudaDev) generation() (uint64, string) {
	why := "a kernel faulted"
	if p := g.lost.Load(); p != nil {
		why = *p
	}
	return g.gen.Load(), why
}

// alloc implements backend: cuMemAlloc, zeroed (cuMemAlloc leaves the
// memory as it was). An empty buffer has no memory and address 0.
func (g *cudaDev) alloc(_ string, bytes int64, _ simAlloc) (mem, error) {
	gen, _ := g.generation()
	m := &cudaMem{g: g, gen: gen}
	if bytes == 0 {
		return m, nil
	}
	ptr, err := g.allocRaw(bytes)
	if err != nil {
		return nil, err
	}
	if g2, _ := g.generation(); g2 != gen {
		return nil, fmt.Errorf("the GPU context was recreated during the allocation; allocate again")
	}
	m.ptr = ptr
	if err := g.memsetD32(ptr, 0, bytes/4); err != nil {
		_ = g.free(ptr, gen)
		return nil, fmt.Errorf("zeroing: %w", err)
	}
	return m, nil
}

// cudaMem is a buffer's device memory on a GPU: its address and the
// context generation it belongs to.
type cudaMem struct {
	g        *cudaDev
	ptr, gen uint64
}

func (m *cudaMem) arg() any { return devPtr(m.ptr) }

func (m *cudaMem) alive() error {
	gen, lost := m.g.generation()
	if m.gen != gen {
		return fmt.Errorf("%w, destroyed when %s; allocate and upload it again", ErrDiedWithContext, lost)
	}
	return nil
}

func (m *cudaMem) write(off int64, src unsafe.Pointer, bytes int64) error {
	return m.g.htod(m.ptr+uint64(off), src, bytes)
}

func (m *cudaMem) read(dst unsafe.Pointer, bytes int64) error { return m.g.dtoh(dst, m.ptr, bytes) }

func (m *cudaMem) copyFrom(src mem, bytes int64) error {
	return m.g.dtod(m.ptr, src.(*cudaMem).ptr, bytes)
}

func (m *cudaMem) fill32(word uint32, words int64) error { return m.g.memsetD32(m.ptr, word, words) }

func (m *cudaMem) readAsync(bytes int64) (asyncRead, error) { return m.g.readAsync(m.ptr, bytes) }

func (m *cudaMem) free() error {
	if m.ptr == 0 {
		return nil
	}
	return m.g.free(m.ptr, m.gen)
}

func (g *cudaDev) allocRaw(bytes int64) (uint64, error) {
	var p cu.DevicePtr
	err := g.do(func() error {
		var err error
		p, err = cu.MemAlloc(bytes)
		if err == nil {
			return nil
		}
		if errors.Is(err, cu.OutOfMemory) {
			free, total, _ := cu.MemInfo()
			return fmt.Errorf("cuMemAlloc of %s: out of memory: %s free of %s on %s: %w",
				human(bytes), human(free), human(total), g.name, err)
		}
		return g.sticky(fmt.Sprintf("cuMemAlloc of %s", human(bytes)), err)
	})
	return uint64(p), err
}

func (g *cudaDev) free(ptr, gen uint64) error {
	// Checked before do, which refuses every call on a dead device.
	if gen != g.gen.Load() {
		return nil // freed with its context; the address may be reused
	}
	return g.do(func() error {
		if gen != g.gen.Load() {
			return nil
		}
		if err := cu.MemFree(cu.DevicePtr(ptr)); err != nil {
			return g.sticky("cuMemFree", err)
		}
		return nil
	})
}

// stageMax is the largest copy that goes through a staging buffer. cgo
// refuses to pass a pointer into a Go allocation that also holds Go
// pointers (a [1]float64 field of a struct, say), so small copies, where
// such memory is common and the extra memcpy costs nothing, are staged
// through pointer-free memory; large ones go direct, from the caller's
// slice.
const stageMax = 64 << 10

// staging returns pointer-free scratch memory of n bytes; g.mu is held.
func (g *cudaDev) staging(n int64) []byte {
	if int64(cap(g.stage)) < n {
		g.stage = make([]byte, stageMax)
	}
	return g.stage[:n]
}

func (g *cudaDev) htod(dst uint64, src unsafe.Pointer, bytes int64) error {
	return g.do(func() error {
		if bytes <= stageMax {
			st := g.staging(bytes)
			copy(st, unsafe.Slice((*byte)(src), bytes))
			src = unsafe.Pointer(&st[0])
		}
		if err := cu.MemcpyHtoD(cu.DevicePtr(dst), src, bytes); err != nil {
			return g.sticky("cuMemcpyHtoD", err)
		}
		return nil
	})
}

func (g *cudaDev) dtoh(dst unsafe.Pointer, src uint64, bytes int64) error {
	return g.do(func() error {
		to := dst
		var st []byte
		if bytes <= stageMax {
			st = g.staging(bytes)
			to = unsafe.Pointer(&st[0])
		}
		if err := cu.MemcpyDtoH(to, cu.DevicePtr(src), bytes); err != nil {
			return g.sticky("cuMemcpyDtoH", err)
		}
		if st != nil {
			copy(unsafe.Slice((*byte)(dst), bytes), st)
		}
		return nil
	})
}

func (g *cudaDev) dtod(dst, src uint64, bytes int64) error {
	return g.do(func() error {
		if err := cu.MemcpyDtoD(cu.DevicePtr(dst), cu.DevicePtr(src), bytes); err != nil {
			return g.sticky("cuMemcpyDtoD", err)
		}
		return nil
	})
}

func (g *cudaDev) memsetD32(dst uint64, v uint32, n int64) error {
	return g.do(func() error {
		if err := cu.MemsetD32(cu.DevicePtr(dst), v, n); err != nil {
			return g.sticky("cuMemsetD32", err)
		}
		return nil
	})
}

func (g *cudaDev) memInfo() (free, total int64, err error) {
	err = g.do(func() error {
		var err error
		free, total, err = cu.MemInfo()
		if err != nil {
			return g.sticky("cuMemGetInfo", err)
		}
		return nil
	})
	return free, total, err
}

func (g *cudaDev) synchronize() error {
	return g.do(func() error {
		if err := cu.Synchronize(); err != nil {
			return g.sticky("cuCtxSynchronize", err)
		}
		return nil
	})
}

func (g *cudaDev) load(m *Module) (LoadInfo, error) {
	var li LoadInfo
	err := g.do(func() error {
		cm, err := g.loadLocked(m)
		if err != nil {
			return err
		}
		li = cm.info
		return nil
	})
	return li, err
}

// loadedPTX loads m and returns the PTX text behind what was loaded: for a
// cubin, `nvcc -ptx` of the same source with the same nvcc, arch and flags
// (cached by source hash beside the cubin, and made only when asked for, so
// GPU runs that need no simulator pay nothing); for the PTX path, the
// embedded PTX the driver JIT-compiled. The nvcc runs outside the device's
// lock: it takes seconds, and launches need not wait for it.
func (g *cudaDev) loadedPTX(m *Module) (string, LoadInfo, error) {
	var cm *cudaModule
	if err := g.do(func() error {
		var err error
		cm, err = g.loadLocked(m)
		return err
	}); err != nil {
		return "", LoadInfo{}, err
	}
	cm.ptxOnce.Do(func() {
		if cm.info.Path != PathCubin {
			cm.ptx = cm.ptxText
			return
		}
		text, _, err := g.comp.ptx(m.Name, m.CUDA, cm.info.Arch)
		if err != nil {
			cm.ptxErr = fmt.Errorf("the cubin's nvcc made no PTX: %w", err)
			return
		}
		cm.ptx = string(text)
	})
	return cm.ptx, cm.info, cm.ptxErr
}

var ptxTargetRE = regexp.MustCompile(`(?m)^\s*\.target\s+(\w+)`)

// loadLocked loads m once per content (name, CUDA and PTX): a cubin from
// nvcc for this exact GPU when nvcc is available, else the embedded PTX,
// which the driver JIT-compiles.
func (g *cudaDev) loadLocked(m *Module) (*cudaModule, error) {
	// Hashing the sources costs more than a launch (lesson PTX runs to
	// hundreds of kilobytes), so a module already seen is found by its
	// address, as long as its fields still have the lengths they had.
	ref := moduleRef{name: m.Name, cudaLen: len(m.CUDA), ptxLen: len(m.PTX)}
	if r, ok := g.byModule[m]; ok && r.name == ref.name && r.cudaLen == ref.cudaLen && r.ptxLen == ref.ptxLen {
		return r.cm, nil
	}
	key := sha256.Sum256([]byte(m.Name + "\x00" + m.CUDA + "\x00" + m.PTX))
	if cm, ok := g.modules[key]; ok {
		ref.cm = cm
		g.byModule[m] = ref
		return cm, nil
	}
	if !g.compDone {
		g.comp, g.compWhy = findCompiler(g.opts)
		g.compDone = true
	}
	info := LoadInfo{Module: m.Name}
	var image string
	note := g.compWhy
	if g.comp != nil && m.CUDA == "" {
		note = "the module has no CUDA source for nvcc"
	}
	if g.comp != nil && m.CUDA != "" {
		arch := fmt.Sprintf("sm_%d%d", g.ccMajor, g.ccMinor)
		img, path, err := g.comp.cubin(m.Name, m.CUDA, arch)
		switch {
		case err == nil:
			image = string(img)
			info = LoadInfo{Module: m.Name, Path: PathCubin, Arch: arch, Cache: path,
				Note: fmt.Sprintf("compiled by nvcc %s for this GPU", g.comp.release)}
		case m.PTX == "":
			return nil, fmt.Errorf("compiling module %s: %w", m.Name, err)
		default:
			first, _, _ := strings.Cut(err.Error(), "\n")
			note = "nvcc could not build a cubin (" + first + "), so the embedded PTX was loaded"
		}
	}
	ptxText := m.PTX
	if image == "" && ptxText == "" && m.CUDA != "" {
		// CUDA C without PTX (a notebook's Module{CUDA: src}): the PTX
		// Compile gives, from the repository's cache, the user's, or
		// this machine's nvcc.
		cm, ci, err := g.opts.Compile.Compile(m.Name, m.CUDA)
		if err != nil {
			return nil, fmt.Errorf("module %s has CUDA C and no PTX, and %s; compiling it to PTX: %w", m.Name, note, err)
		}
		ptxText = cm.PTX
		note += "; its PTX: " + ci.String()
	}
	if image == "" {
		if ptxText == "" {
			return nil, fmt.Errorf("module %s has no PTX and %s: install the CUDA toolkit so nvcc can compile its CUDA C, or embed PTX made by scripts/cuda/gen-ptx.sh", m.Name, note)
		}
		image = ptxText
		info.Path = PathPTX
		if t := ptxTargetRE.FindStringSubmatch(ptxText); t != nil {
			info.Arch = t[1]
		}
		info.Note = note
	}
	mod, err := cu.LoadData(image)
	if err != nil && contextFault(err) {
		return nil, g.recoverLocked("cuModuleLoadData", err)
	}
	if err != nil {
		e := cudaErr("cuModuleLoadData ("+info.Path.String()+")", err)
		if info.Path == PathPTX {
			if log := jitLog(image); log != "" {
				e = fmt.Errorf("%w\nJIT log: %s", e, log)
			}
		}
		return nil, e
	}
	cm := &cudaModule{mod: mod, info: info, funcs: make(map[string]*cudaFunc), ptxText: ptxText}
	g.modules[key] = cm
	ref.cm = cm
	g.byModule[m] = ref
	return cm, nil
}

// moduleRef remembers which loaded module a *Module was.
type moduleRef struct {
	cm              *cudaModule
	name            string
	cudaLen, ptxLen int
}

// launchRef names a launch without formatting it on the hot path.
type launchRef struct {
	m           *Module
	name        string
	grid, block sim.Dim3
	shared      int
}

func (r launchRef) String() string {
	return fmt.Sprintf("%s.%s<<<%v, %v, %d>>>", r.m.Name, r.name, r.grid, r.block, r.shared)
}

// jitLog reloads failing PTX with an error log buffer to say why it failed.
func jitLog(ptx string) string {
	buf := &cu.JITErrorLogBuffer{Buffer: make([]byte, 16<<10)}
	mod, err := cu.LoadDataEx(ptx, buf)
	if err == nil {
		_ = mod.Unload()
		return ""
	}
	return strings.TrimSpace(string(bytes.TrimRight(buf.Buffer, "\x00")))
}

// function returns the cached handle of kernel name.
func (cm *cudaModule) function(name string) (*cudaFunc, error) {
	if f, ok := cm.funcs[name]; ok {
		return f, nil
	}
	fn, err := cm.mod.Function(name)
	if err != nil {
		if errors.Is(err, cu.NotFound) {
			return nil, fmt.Errorf("cuModuleGetFunction: module %s (%s) has no kernel named %q; "+
				"declare it extern \"C\" __global__ so that C++ does not mangle its name", cm.info.Module, cm.info.Path, name)
		}
		return nil, cudaErr("cuModuleGetFunction", err)
	}
	f := &cudaFunc{fn: fn, sharedOptedIn: defaultShared}
	if f.maxThreads, err = fn.Attribute(cu.FnMaxThreadsPerBlock); err != nil {
		return nil, cudaErr("cuFuncGetAttribute", err)
	}
	if f.staticShared, err = fn.Attribute(cu.SharedSizeBytes); err != nil {
		return nil, cudaErr("cuFuncGetAttribute", err)
	}
	cm.funcs[name] = f
	return f, nil
}

// cFunction is the CUfunction inside a cu.Function (a struct of that one
// field), for the one driver call gorgonia.org/cu does not wrap.
func cFunction(f cu.Function) C.CUfunction { return *(*C.CUfunction)(unsafe.Pointer(&f)) }

// launch implements backend: cuLaunchKernel on the default stream.
func (g *cudaDev) launch(_ context.Context, k *Kernel, c *launchConfig, args []any) (*Launch, string, error) {
	call, err := g.launchRaw(k.mod, k.name, c.grid, c.block, c.shared, paramSlots(args))
	if err != nil {
		return nil, call, err
	}
	return &Launch{}, "", nil
}

// paramSlots turns launch arguments into the 8-byte slots cuLaunchKernel
// reads from: a device address, or a scalar's bits in the low bytes
// (little endian), so that the driver, which copies each parameter's own
// size, sees the value. Device.Launch checked them already.
func paramSlots(args []any) []uint64 {
	out := make([]uint64, len(args))
	for i, a := range args {
		out[i], _ = scalarBits(i, a)
	}
	return out
}

func (g *cudaDev) launchRaw(m *Module, name string, grid, block sim.Dim3, shared int, params []uint64) (string, error) {
	call := "load module"
	err := g.do(func() error {
		var f *cudaFunc
		var err error
		if f, call, err = g.prepareLocked(m, name, block, shared); err != nil {
			return err
		}
		// cu's Launch copies 8 bytes from each pointer into C memory and
		// hands the driver a pointer to each copy; the driver reads the
		// parameter's own size from there, so each slot holds a device
		// address or a scalar's bits in its low bytes.
		ptrs := make([]unsafe.Pointer, len(params))
		for i := range params {
			ptrs[i] = unsafe.Pointer(&params[i])
		}
		call = "cuLaunchKernel"
		if err := f.fn.Launch(grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, shared, cu.NoStream, ptrs); err != nil {
			return g.sticky("cuLaunchKernel", err)
		}
		g.lastLaunch = launchRef{m, name, grid, block, shared}
		return nil
	})
	return call, err
}

// prepareLocked loads m, finds kernel name and checks (and opts in) what
// a launch of it with block threads and shared dynamic bytes needs; call
// names the failing step. g.mu is held.
func (g *cudaDev) prepareLocked(m *Module, name string, block sim.Dim3, shared int) (*cudaFunc, string, error) {
	cm, err := g.loadLocked(m)
	if err != nil {
		return nil, "load module", err
	}
	f, err := cm.function(name)
	if err != nil {
		return nil, "cuModuleGetFunction", err
	}
	if n := block.Count(); n > f.maxThreads {
		return nil, "Launch", fmt.Errorf("kernel %s can run at most %d threads per block on %s (it needs many registers per thread), "+
			"and the block has %d; use a smaller block", name, f.maxThreads, g.name, n)
	}
	if shared > f.sharedOptedIn {
		if r := C.warplabSetMaxDynamicShared(cFunction(f.fn), C.int(shared)); r != C.CUDA_SUCCESS {
			return nil, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", fmt.Errorf("kernel %s has %d bytes of static shared memory and cannot add %d dynamic bytes on %s (CUresult %d)",
				name, f.staticShared, shared, g.name, int(r))
		}
		f.sharedOptedIn = shared
	}
	return f, "", nil
}

// time implements Device.Time with CUDA events on the default stream, the
// stream Launch uses.
//
// once (TimeOnce) runs f a single time between the two events: no warm-up
// and no second pass.
func (g *cudaDev) time(ctx context.Context, fc func(context.Context) error, warmups, runs int, once bool) (Timing, error) {
	f := func() error { return fc(ctx) }
	if once {
		warmups, runs = 0, 1
	}
	events := make([]cu.Event, runs+1)
	var start, stop cu.Event
	gen := g.gen.Load()
	err := g.do(func() error {
		var err error
		if start, err = cu.MakeEvent(cu.DefaultEvent); err != nil {
			return cudaErr("cuEventCreate", err)
		}
		if stop, err = cu.MakeEvent(cu.DefaultEvent); err != nil {
			return cudaErr("cuEventCreate", err)
		}
		for i := range events {
			if events[i], err = cu.MakeEvent(cu.DefaultEvent); err != nil {
				return cudaErr("cuEventCreate", err)
			}
		}
		return nil
	})
	defer func() {
		_ = g.do(func() error {
			if g.gen.Load() != gen {
				return nil // the events went with a context a fault destroyed
			}
			for _, e := range append([]cu.Event{start, stop}, events...) {
				if e != (cu.Event{}) {
					_ = cu.DestroyEvent(&e)
				}
			}
			return nil
		})
	}()
	if err != nil {
		return Timing{}, err
	}
	record := func(e cu.Event) error {
		return g.do(func() error {
			if err := e.Record(cu.NoStream); err != nil {
				return g.sticky("cuEventRecord", err)
			}
			return nil
		})
	}
	runN := func(what string, n int) error {
		for i := 0; i < n; i++ {
			if err := f(); err != nil {
				return fmt.Errorf("%s run %d: %w", what, i+1, err)
			}
		}
		return nil
	}

	if err := runN("warm-up", warmups); err != nil {
		return Timing{}, err
	}
	if err := g.synchronize(); err != nil {
		return Timing{}, fmt.Errorf("after the warm-ups: %w", err)
	}
	// Pass 1, as the Day-37 seed: two events around all timed runs.
	if err := record(start); err != nil {
		return Timing{}, err
	}
	if err := runN("timed", runs); err != nil {
		return Timing{}, err
	}
	if err := record(stop); err != nil {
		return Timing{}, err
	}
	var total float64
	err = g.do(func() error {
		if err := stop.Synchronize(); err != nil {
			return g.sticky("cuEventSynchronize", err)
		}
		ms, err := start.Elapsed(stop)
		if err != nil {
			return cudaErr("cuEventElapsedTime", err)
		}
		total = ms
		return nil
	})
	if err != nil {
		return Timing{}, err
	}
	if once {
		return Timing{MeanMs: total, MinMs: total, MedianMs: total, Warmups: 0, Runs: 1, Kind: Measured,
			Device: g.name, Driver: g.driver, Date: time.Now()}, nil
	}
	// Pass 2: an event between every two runs, for min and median.
	for i := 0; i < runs; i++ {
		if err := record(events[i]); err != nil {
			return Timing{}, err
		}
		if err := f(); err != nil {
			return Timing{}, fmt.Errorf("per-run timed run %d: %w", i+1, err)
		}
	}
	if err := record(events[runs]); err != nil {
		return Timing{}, err
	}
	per := make([]float64, runs)
	err = g.do(func() error {
		if err := events[runs].Synchronize(); err != nil {
			return g.sticky("cuEventSynchronize", err)
		}
		for i := range per {
			ms, err := events[i].Elapsed(events[i+1])
			if err != nil {
				return cudaErr("cuEventElapsedTime", err)
			}
			per[i] = ms
		}
		return nil
	})
	if err != nil {
		return Timing{}, err
	}
	slices.Sort(per)
	median := per[runs/2]
	if runs%2 == 0 {
		median = (per[runs/2-1] + per[runs/2]) / 2
	}
	return Timing{MeanMs: total / float64(runs), MinMs: per[0], MedianMs: median,
		Warmups: warmups, Runs: runs, Kind: Measured,
		Device: g.name, Driver: g.driver, Date: time.Now()}, nil
}

func (g *cudaDev) close() error {
	var errs []error
	err := g.do(func() error {
		if err := cu.Synchronize(); err != nil {
			errs = append(errs, g.sticky("cuCtxSynchronize", err))
		}
		errs = append(errs, g.freeAsyncLocked())
		errs = append(errs, g.destroyGraphsLocked())
		for _, cm := range g.modules {
			if err := cm.mod.Unload(); err != nil {
				errs = append(errs, cudaErr("cuModuleUnload "+cm.info.Module, err))
			}
		}
		g.modules = nil
		g.byModule = nil
		return nil
	})
	g.mu.Lock()
	var dead *ContextLostError
	if err != nil && !(errors.As(err, &dead) && dead == g.dead) {
		errs = append(errs, err) // a dead context has nothing left to free
	}
	if !g.closed {
		g.closed = true
		// A dead context has nothing to release: the driver refuses every call.
		if err := g.releaseLocked(); err != nil {
			errs = append(errs, cudaErr("cuDevicePrimaryCtxRelease", err))
		}
	}
	g.mu.Unlock()
	return errors.Join(errs...)
}

// releaseLocked drops the primary context's reference, unless a fault
// killed it for good. g.mu is held.
func (g *cudaDev) releaseLocked() error {
	if g.dead != nil {
		return nil
	}
	return g.dev.ReleasePrimaryCtx()
}

// pinnedClass is the size of the pinned block that holds a copy of n
// bytes: a power of two of at least 64 bytes, so that blocks are reused
// across reads of similar sizes.
func pinnedClass(n int64) int64 {
	c := int64(64)
	for c < n {
		c *= 2
	}
	return c
}

// cudaRead is one ReadAsync in flight: bytes from the device are being
// copied into the pinned block ptr, and ev is recorded after the copy.
type cudaRead struct {
	g     *cudaDev
	gen   uint64 // the context generation the pinned block and event belong to
	ptr   unsafe.Pointer
	class int64
	bytes int64
	ev    cu.Event
}

// readAsync queues a copy of bytes bytes at src into pinned host memory on
// the default stream (the stream launch uses, so the copy is ordered with
// the kernels) and records an event after it.
func (g *cudaDev) readAsync(src uint64, bytes int64) (asyncRead, error) {
	var rd *cudaRead
	err := g.do(func() error {
		class := pinnedClass(bytes)
		var ptr unsafe.Pointer
		if free := g.pinnedFree[class]; len(free) > 0 {
			ptr = free[len(free)-1]
			g.pinnedFree[class] = free[:len(free)-1]
		} else {
			var r C.CUresult
			ptr = C.warplabMemAllocHost(C.size_t(class), &r)
			if ptr == nil {
				return g.sticky(fmt.Sprintf("cuMemAllocHost of %s", human(class)), asResult(cu.OutOfMemory, int(r)))
			}
			g.pinnedAll = append(g.pinnedAll, ptr)
		}
		var ev cu.Event
		if n := len(g.eventsFree); n > 0 {
			ev = g.eventsFree[n-1]
			g.eventsFree = g.eventsFree[:n-1]
		} else {
			var err error
			if ev, err = cu.MakeEvent(cu.DisableTiming); err != nil {
				g.putPinned(class, ptr)
				return cudaErr("cuEventCreate", err)
			}
			g.eventsAll = append(g.eventsAll, ev)
		}
		if err := cu.MemcpyDtoHAsync(ptr, cu.DevicePtr(src), bytes, cu.NoStream); err != nil {
			g.putPinned(class, ptr)
			g.eventsFree = append(g.eventsFree, ev)
			return g.sticky("cuMemcpyDtoHAsync", err)
		}
		if err := ev.Record(cu.NoStream); err != nil {
			// The copy is queued and will write ptr: keep the block out of
			// the pool (Close frees it) rather than risk a later reader.
			g.eventsFree = append(g.eventsFree, ev)
			return g.sticky("cuEventRecord", err)
		}
		rd = &cudaRead{g: g, gen: g.gen.Load(), ptr: ptr, class: class, bytes: bytes, ev: ev}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rd, nil
}

// wait blocks on the read's event, copies the bytes to dst and returns the
// pinned block and the event to their pools.
func (rd *cudaRead) wait(dst unsafe.Pointer) error {
	g := rd.g
	died := func() error {
		_, why := g.generation()
		return fmt.Errorf("the read %w, destroyed when %s; read again from a buffer of the new context", ErrDiedWithContext, why)
	}
	if rd.gen != g.gen.Load() { // before do, which refuses every call on a dead device
		return died()
	}
	return g.do(func() error {
		if rd.gen != g.gen.Load() {
			return died()
		}
		err := rd.ev.Synchronize()
		g.eventsFree = append(g.eventsFree, rd.ev)
		if err != nil {
			// A kernel before the copy faulted; the copy may never finish
			// writing, so the block stays out of the pool (Close frees it).
			return g.sticky("cuEventSynchronize", err)
		}
		copy(unsafe.Slice((*byte)(dst), rd.bytes), unsafe.Slice((*byte)(rd.ptr), rd.bytes))
		g.putPinned(rd.class, rd.ptr)
		return nil
	})
}

// putPinned returns a pinned block to the pool; g.mu is held.
func (g *cudaDev) putPinned(class int64, ptr unsafe.Pointer) {
	if g.pinnedFree == nil {
		g.pinnedFree = make(map[int64][]unsafe.Pointer)
	}
	g.pinnedFree[class] = append(g.pinnedFree[class], ptr)
}

// freeAsyncLocked frees every pinned block and event ReadAsync made, in the
// pool or not (Close has synchronized, so no copy still writes them);
// g.mu is held.
func (g *cudaDev) freeAsyncLocked() error {
	var errs []error
	for _, p := range g.pinnedAll {
		if err := cu.MemFreeHost(p); err != nil {
			errs = append(errs, cudaErr("cuMemFreeHost", err))
		}
	}
	for i := range g.eventsAll {
		if err := cu.DestroyEvent(&g.eventsAll[i]); err != nil {
			errs = append(errs, cudaErr("cuEventDestroy", err))
		}
	}
	g.pinnedAll, g.pinnedFree, g.eventsAll, g.eventsFree = nil, nil, nil, nil
	return errors.Join(errs...)
}

// asResult makes the driver's result code r an error of cu's own
// (unexported) result type, so that errors.Is(err, cu.OutOfMemory) and
// cudaErr's hints work for the driver calls cu does not wrap; proto is any
// of cu's result constants.
func asResult[E ~int](proto E, r int) E { return E(r) }

// The CUDA backend implements the Device's backend, and says which PTX it
// loaded for a simulator that runs the same (Options.PTXFrom).
var (
	_ backend   = (*cudaDev)(nil)
	_ ptxLoader = (*cudaDev)(nil)
)
