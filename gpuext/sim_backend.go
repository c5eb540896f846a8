package gpuext

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/warplab/warplab/sim"
)

// simBackend runs a Device's kernels on the simulator: buffers are
// sim.Global values, a launch executes the kernel's PTX warp by warp and
// returns its counters, and Time sums modeled times.
type simBackend struct {
	sd      *sim.Device
	model   sim.Model
	name    string
	compile CompileOptions // for modules with CUDA C and no PTX
	// sassWidths: time shared accesses at ptxas's widths (Options.SASSWidths).
	sassWidths bool

	// ptxFrom is the GPU backend whose loaded PTX the simulator runs
	// (Options.PTXFrom); nil runs each module's own PTX.
	ptxFrom     ptxLoader
	ptxFromName string
	ptx         ptxCache

	used atomic.Int64 // bytes held by live buffers

	mu        sync.Mutex
	timeCalls []*timeCall  // the Time calls in progress
	timers    atomic.Int32 // len(timeCalls), read without mu by every launch
}

// simAlloc makes a buffer's typed simulator memory: the *sim.Global[T]
// and its elements' bytes.
type simAlloc func(sd *sim.Device) (g any, data []byte, err error)

// newSimAlloc is Alloc[T]'s simAlloc for n elements of T.
func newSimAlloc[T sim.Elem](name string, n int) simAlloc {
	return func(sd *sim.Device) (any, []byte, error) {
		g, err := sim.Alloc[T](sd, name, n)
		if err != nil {
			return nil, nil, err
		}
		var data []byte
		if n > 0 {
			data = unsafe.Slice((*byte)(unsafe.Pointer(&g.Data[0])), int64(n)*elemSize[T]())
		}
		return g, data, nil
	}
}

func (s *simBackend) alloc(name string, bytes int64, newSim simAlloc) (mem, error) {
	if free := s.model.MemoryBytes - s.used.Load(); bytes > free {
		return nil, fmt.Errorf("out of device memory: needs %s, %s free of %s on %s",
			human(bytes), human(free), human(s.model.MemoryBytes), s.name)
	}
	g, data, err := newSim(s.sd)
	if err != nil {
		return nil, err
	}
	s.used.Add(bytes)
	return &simMem{s: s, g: g, data: data, bytes: bytes}, nil
}

// simMem is a buffer's memory on the simulator.
type simMem struct {
	s     *simBackend
	g     any    // *sim.Global[T]
	data  []byte // its elements
	bytes int64
}

func (m *simMem) arg() any     { return m.g }
func (m *simMem) alive() error { return nil }

func (m *simMem) write(off int64, src unsafe.Pointer, bytes int64) error {
	copy(m.data[off:off+bytes], unsafe.Slice((*byte)(src), bytes))
	return nil
}

func (m *simMem) read(dst unsafe.Pointer, bytes int64) error {
	copy(unsafe.Slice((*byte)(dst), bytes), m.data[:bytes])
	return nil
}

func (m *simMem) copyFrom(src mem, bytes int64) error {
	copy(m.data[:bytes], src.(*simMem).data[:bytes])
	return nil
}

func (m *simMem) fill32(word uint32, words int64) error {
	if words == 0 {
		return nil
	}
	w := unsafe.Slice((*uint32)(unsafe.Pointer(&m.data[0])), words)
	for i := range w {
		w[i] = word
	}
	return nil
}

// readAsync copies at once: a simulator launch has finished when it returns.
func (m *simMem) readAsync(bytes int64) (asyncRead, error) {
	return simRead(slices.Clone(m.data[:bytes])), nil
}

func (m *simMem) free() error {
	if m.data != nil || m.g != nil {
		m.s.used.Add(-m.bytes)
	}
	m.g, m.data = nil, nil
	return nil
}

// simRead is a copy the simulator made at once.
type simRead []byte

func (r simRead) wait(dst unsafe.Pointer) error {
	copy(unsafe.Slice((*byte)(dst), len(r)), r)
	return nil
}

func (s *simBackend) load(m *Module) (LoadInfo, error) {
	pm, err := s.parsedPTX(m)
	if err != nil {
		return LoadInfo{}, err
	}
	if pm == nil {
		return LoadInfo{}, fmt.Errorf("the module has no PTX")
	}
	return LoadInfo{Module: m.Name, Path: PathPTX, Arch: pm.mod.Target, PTX: pm.provenance(),
		Note: "the simulator executes the PTX of " + pm.kernelNames()}, nil
}

// simKernel is k decoded for the simulator from its module's own PTX,
// decoded on first use and kept on the handle (a launch's common case:
// no lookup).
func (k *Kernel) simKernel() (*sim.PTXKernel, error) {
	k.decode.Do(func() {
		k.simK, k.simKErr = sim.NewPTXKernel(k.pm.mod, k.name)
		if k.simKErr == nil {
			k.simK.SetSource(k.mod.CUDA)
		}
	})
	return k.simK, k.simKErr
}

// otherPTX reports whether the simulator runs PTX other than k's module's
// own: a GPU's (Options.PTXFrom), or, for a module without PTX, its CUDA C
// compiled.
func (s *simBackend) otherPTX(m *Module) bool {
	// With Options.SASSWidths a module's own PTX is parsed and decoded per
	// device too, since its kernels carry this device's widths.
	return s.ptxFrom != nil || m.PTX == "" || s.sassWidths
}

// run runs one kernel without counting its time for Time (the caller
// does: launch per kernel, a graph replay once).
func (s *simBackend) run(ctx context.Context, k *Kernel, c *launchConfig, args []any) (*Launch, string, error) {
	var pk *sim.PTXKernel
	var pm *ptxMod
	var err error
	if s.otherPTX(k.mod) {
		pk, pm, err = s.kernel(k) // another device's PTX, or CUDA C compiled (simptx.go)
	} else {
		pm = k.pm
		pk, err = k.simKernel()
	}
	if err != nil {
		return nil, "ptx", err
	}
	st, tr, err := s.sd.LaunchPTXWith(ctx, pk, c.opts, c.grid, c.block, c.shared, args...)
	if err != nil {
		return nil, "sim.LaunchPTX", err
	}
	return &Launch{Stats: st, Path: PathPTX, PTX: pm.provenance(), Trace: tr}, "", nil
}

func (s *simBackend) launch(ctx context.Context, k *Kernel, c *launchConfig, args []any) (*Launch, string, error) {
	l, call, err := s.run(ctx, k, c, args)
	if err != nil {
		return nil, call, err
	}
	s.noteSeconds(ctx, l.Stats.Time.Seconds)
	return l, "", nil
}

func (s *simBackend) memInfo() (free, total int64, err error) {
	return s.model.MemoryBytes - s.used.Load(), s.model.MemoryBytes, nil
}

// synchronize has nothing to wait for: launches finish before Launch returns.
func (s *simBackend) synchronize() error { return nil }
func (s *simBackend) close() error       { return nil }

// graphBuild keeps the steps; graphLaunch replays them.
func (s *simBackend) graphBuild([]graphOp) (any, error) { return nil, nil }
func (s *simBackend) graphDestroy(any) error            { return nil }

// graphLaunch runs each kernel exactly as Launch runs it, and counts the
// replay once for Time: the kernels' GPU time, or one graph launch's host
// cost, whichever is longer.
func (s *simBackend) graphLaunch(ctx context.Context, g *Graph) (*GraphLaunch, error) {
	gl := &GraphLaunch{Kernels: make([]*Launch, 0, g.kernels), HostSeconds: GraphLaunchSeconds(s.model)}
	for i := range g.ops {
		op := &g.ops[i]
		where := func(err error) error {
			return fmt.Errorf("step %d of %d: %w", i+1, len(g.ops), err)
		}
		switch op.kind {
		case opKernel:
			le := &LaunchError{Call: "Launch", Module: op.k.mod.Name, Kernel: op.k.name, Grid: op.cfg.grid, Block: op.cfg.block, Shared: op.cfg.shared}
			if err := ctx.Err(); err != nil {
				le.Err = err
				return nil, where(le)
			}
			l, call, err := s.run(ctx, op.k, op.cfg, op.args)
			if err != nil {
				le.Call, le.Err = call, err
				return nil, where(le)
			}
			gl.Kernels = append(gl.Kernels, l)
			gl.GPUSeconds += l.Stats.Time.GPUSeconds
		case opCopy:
			if err := op.dst.copyFrom(op.src, op.bytes); err != nil {
				return nil, where(err)
			}
		case opFill:
			if err := op.dst.fill32(op.word, op.words); err != nil {
				return nil, where(err)
			}
		}
	}
	gl.Seconds = max(gl.GPUSeconds, gl.HostSeconds)
	s.noteSeconds(ctx, gl.Seconds)
	return gl, nil
}

// timeCall is one Time call in progress on the simulator: the goroutine
// that made it and the modeled seconds of the launches it counts.
type timeCall struct {
	g    uint64    // the calling goroutine's number (goid)
	secs []float64 // modeled seconds of each counted launch; guarded by simBackend.mu
}

// timeKey is the context key under which TimeContext passes its *timeCall.
type timeKey struct{}

func (s *simBackend) time(ctx context.Context, f func(context.Context) error, _, _ int, _ bool) (Timing, error) {
	tc := &timeCall{g: goid()}
	outer, _ := ctx.Value(timeKey{}).(*timeCall)
	s.mu.Lock()
	for _, c := range s.timeCalls {
		if c.g == tc.g || c == outer {
			s.mu.Unlock()
			return Timing{}, fmt.Errorf("already inside Time on %s; Time calls do not nest", s.name)
		}
	}
	s.timeCalls = append(s.timeCalls, tc)
	s.timers.Add(1)
	s.mu.Unlock()
	err := func() error {
		defer s.endTime(tc) // also when f panics: the panic goes on to the caller
		return f(context.WithValue(ctx, timeKey{}, tc))
	}()
	if err != nil {
		return Timing{}, err
	}
	if len(tc.secs) == 0 {
		return Timing{}, fmt.Errorf("the function launched no kernel on %s from Time's goroutine "+
			"(launches from other goroutines count only with TimeContext's context)", s.name)
	}
	total := 0.0
	for _, x := range tc.secs {
		total += x
	}
	ms := total * 1e3
	return Timing{MeanMs: ms, MinMs: ms, MedianMs: ms, Warmups: 0, Runs: 1, Kind: Modeled,
		Device: s.name, Date: time.Now()}, nil
}

// endTime removes tc from the Time calls in progress.
func (s *simBackend) endTime(tc *timeCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timeCalls = slices.DeleteFunc(s.timeCalls, func(c *timeCall) bool { return c == tc })
	s.timers.Add(-1)
}

// noteSeconds records the modeled seconds of one simulated launch (a
// kernel, or a graph replay) made with ctx on the calling goroutine, for
// every Time call in progress that counts it: the one whose goroutine
// this is, and the one ctx carries (TimeContext).
func (s *simBackend) noteSeconds(ctx context.Context, secs float64) {
	if s.timers.Load() == 0 {
		return // no Time in progress: skip reading the goroutine's number
	}
	carried, _ := ctx.Value(timeKey{}).(*timeCall)
	g := goid()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.timeCalls {
		if c.g == g || c == carried {
			c.secs = append(c.secs, secs)
		}
	}
}

var _ backend = (*simBackend)(nil)

// setWidths gives a decoded kernel the shared access widths of its module's
// SASS when the device was opened with Options.SASSWidths, its loads' loop
// passes as compiled (sim.PTXKernel.SetLoadPasses) and its registers a
// thread (ptxas -v: the occupancy's register limit, SetRegisters): ptxas
// and nvdisasm run once per module, for the model's architecture; where
// they fail (no ptxas on the machine) the PTX's widths stand, registers
// are left out of the occupancy, and the kernel's AccessWidths and the
// modeled time's Occupancy say so.
func (s *simBackend) setWidths(pm *ptxMod, pk *sim.PTXKernel) {
	if !s.sassWidths || pm == nil {
		return
	}
	pm.sassOnce.Do(func() {
		ctx, arch := context.Background(), sim.ArchFor(s.model)
		pm.sass, pm.sassFrom, _ = sim.PtxasSharedWidths(ctx, []byte(pm.src), arch)
		pm.regs, pm.regsFrom, _ = sim.PtxasRegisters(ctx, []byte(pm.src), arch)
	})
	pk.SetSharedWidths(pm.sass, pm.sassFrom)
	pk.SetLoadPasses(pm.sass, pm.sassFrom)
	pk.SetRegisters(pm.regs[pk.Name], pm.regsFrom)
}
