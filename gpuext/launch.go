package gpuext

import (
	"context"
	"fmt"
	"math"

	"github.com/warplab/warplab/sim"
)

// Launch is what one kernel launch returns.
type Launch struct {
	// Stats are the simulator's counters and modeled time; nil on a GPU,
	// where Nsight Compute is the instrument.
	Stats *sim.Stats
	// Path is how the simulator ran the kernel: PathPTX (the PTX,
	// executed); "" on a GPU.
	Path LoadPath
	// PTX says which PTX ran on the simulator (compiler release and
	// target, from the PTX's header).
	PTX string
	// Trace holds the memory accesses of the warps Config.Trace chose
	// (simulator); nil when none were asked for, and on a GPU.
	Trace *sim.Trace
}

// LoadInfo says how a module's code reached the device.
type LoadInfo struct {
	Module string
	Path   LoadPath // PathCubin (compiled here by nvcc) or PathPTX (embedded, JIT-compiled by the driver, or executed by the simulator)
	Arch   string   // "sm_90" for a cubin, the PTX target for PTX (also on the simulator)
	PTX    string   // on the simulator: the compiler and target of the PTX it runs
	Cache  string   // the cubin's cache file, if any
	Note   string   // why this path was taken (e.g. nvcc missing, PTXOnly, a compile failure fallen back from)
}

// LaunchError is every error Launch returns: the call that failed, the
// kernel, and the launch configuration, around the cause (a *sim.Fault, a
// CUDA error, a validation message). errors.As finds the cause.
type LaunchError struct {
	Call   string // "Launch" for validation and arguments, else the failing step, e.g. "cuLaunchKernel"
	Module string
	Kernel string
	Grid   sim.Dim3
	Block  sim.Dim3
	Shared int
	Err    error
}

func (e *LaunchError) Error() string {
	return fmt.Sprintf("gpuext: %s %s.%s<<<grid %v, block %v, shared %d B>>>: %v",
		e.Call, e.Module, e.Kernel, e.Grid, e.Block, e.Shared, e.Err)
}

// Unwrap returns the cause.
func (e *LaunchError) Unwrap() error { return e.Err }

// Launch runs kernel k with c.Grid blocks of c.Block threads and c.Shared
// bytes of dynamic shared memory, the CUDA launch k<<<Grid, Block,
// Shared>>>(args...). args are *Buffer[T] values and scalars (int32,
// uint32, int64, uint64, float32, float64) in CUDA parameter order, checked
// against the kernel's PTX parameters; Go's int is refused because its
// size differs from CUDA's int. The configuration is checked against the
// device before anything runs.
//
// On the simulator the kernel has finished when Launch returns, and Stats
// holds its counters; it stops when ctx is done, with a *sim.Fault of Kind
// "cancelled" (a notebook's interrupt, a deadline on a student's kernel).
// On a GPU, Launch returns once the kernel is queued, as in CUDA; a fault
// inside the kernel is reported by the next call that waits (Download,
// Synchronize, Time), and ctx is looked at only before the launch (a
// kernel running there cannot be stopped). A nil ctx is
// context.Background().
func (d *Device) Launch(ctx context.Context, k *Kernel, c Config, args ...any) (*Launch, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	le := &LaunchError{Call: "Launch", Shared: c.Shared}
	if k != nil {
		le.Module, le.Kernel = k.mod.Name, k.name
	}
	var rec *recorder // the Record in progress: a refused launch fails it too
	fail := func(err error) (*Launch, error) {
		le.Err = err
		if rec != nil {
			rec.refuse(d, le)
		}
		return nil, le
	}
	rec, err := d.checkRecording("Launch")
	if err != nil {
		return fail(err)
	}
	if k == nil {
		return fail(fmt.Errorf("nil *Kernel (did Module.Kernel fail?)"))
	}
	lc, err := c.resolve()
	if err != nil {
		return fail(err)
	}
	le.Grid, le.Block = lc.grid, lc.block
	if err := d.lim.validate(lc.grid, lc.block, lc.shared); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	bargs, err := d.launchArgs(k, args)
	if err != nil {
		return fail(err)
	}
	if rec != nil {
		op := graphOp{kind: opKernel, k: k, cfg: lc, args: bargs}
		for _, a := range args {
			if b, ok := a.(bufferArg); ok {
				op.touches = append(op.touches, b.state())
			}
		}
		rec.append(d, op)
		return &Launch{}, nil
	}
	l, call, err := d.be.launch(ctx, k, lc, bargs)
	if err != nil {
		le.Call = call
		return fail(err)
	}
	return l, nil
}

// launchArgs checks args against k's parameters and the device, and gives
// each buffer as its memory's launch argument.
func (d *Device) launchArgs(k *Kernel, args []any) ([]any, error) {
	if k.params != nil {
		if err := checkParamTypes(k.name, k.params, args); err != nil {
			return nil, err
		}
	}
	// Check every argument before asking any backend memory for its
	// launch value, so a launch reads buffer.go once and the backend's
	// file once, not the two in turn for each buffer.
	states := make([]*bufState, len(args))
	for i, a := range args {
		if b, ok := a.(bufferArg); ok {
			if err := d.checkBuf(i, b); err != nil {
				return nil, err
			}
			states[i] = b.state()
			continue
		}
		if _, err := scalarBits(i, a); err != nil {
			return nil, err
		}
	}
	out := make([]any, len(args))
	for i, a := range args {
		if st := states[i]; st != nil {
			out[i] = st.mem.arg()
			continue
		}
		out[i] = a
	}
	return out, nil
}

// checkBuf verifies that argument i is a live buffer of d.
func (d *Device) checkBuf(i int, b bufferArg) error {
	if err := b.use(fmt.Sprintf("argument %d", i)); err != nil {
		return err
	}
	if st := b.state(); st.dev != d {
		if st.dev.name == d.name {
			return fmt.Errorf("argument %d: buffer %s belongs to device %s opened by another Open, not the *Device launching (they share the name)", i, st, d.name)
		}
		return fmt.Errorf("argument %d: buffer %s belongs to device %s, not %s", i, st, st.dev.name, d.name)
	}
	return nil
}

// scalarBits is a scalar argument's bit pattern, zero-extended to 64 bits.
func scalarBits(i int, a any) (uint64, error) {
	switch v := a.(type) {
	case int32:
		return uint64(uint32(v)), nil
	case uint32:
		return uint64(v), nil
	case int64:
		return uint64(v), nil
	case uint64:
		return v, nil
	case float32:
		return uint64(math.Float32bits(v)), nil
	case float64:
		return math.Float64bits(v), nil
	case devPtr:
		return uint64(v), nil
	case int, uint:
		return 0, fmt.Errorf("argument %d is a Go %T (%v); say which CUDA type it is: int32(%v) for an int parameter, int64(%v) for a long long or size_t",
			i, a, a, a, a)
	case nil:
		return 0, fmt.Errorf("argument %d is nil (a buffer that failed to allocate?)", i)
	}
	return 0, fmt.Errorf("argument %d has type %T; a kernel takes *gpuext.Buffer[T] and int32, uint32, int64, uint64, float32 or float64 scalars", i, a)
}

// Load prepares m on d ahead of its first Launch and says how: on a GPU it
// compiles the CUDA C with nvcc for this exact GPU when nvcc is on PATH
// (cubin, cached), else it loads the embedded PTX; the simulator parses
// the PTX it will run. Launch loads on first use, so calling Load is
// optional; it is how a notebook shows which path ran.
func (d *Device) Load(m *Module) (LoadInfo, error) {
	if err := d.check("Load"); err != nil {
		return LoadInfo{}, err
	}
	if m == nil {
		return LoadInfo{}, fmt.Errorf("gpuext: Load: nil module")
	}
	li, err := d.be.load(m)
	if err != nil {
		return LoadInfo{}, fmt.Errorf("gpuext: Load module %s: %w", m.Name, err)
	}
	return li, nil
}

// Config is how a kernel is launched, CUDA's <<<Grid, Block, Shared>>>
// and the simulator's options.
type Config struct {
	// Grid and Block are the grid's blocks and a block's threads: an int
	// (or int32, int64) for one dimension, or a sim.Dim3. Each dimension
	// must be at least 1.
	Grid, Block any
	// Shared is the bytes of dynamic shared memory per block.
	Shared int

	// The rest act on the simulator, which a GPU ignores.

	// Trace chooses warps (at most sim.MaxTraceWarps) whose global and
	// shared memory instructions Launch.Trace records: for each, which
	// lane touched which address, so plots.AccessMap can draw lanes
	// against 32-byte sectors or shared-memory banks.
	Trace []sim.WarpRef
	// TraceEvents bounds the memory instructions kept per traced warp;
	// 0 means sim.DefaultTraceEvents.
	TraceEvents int
	// MaxInstructions bounds each warp's issued instructions; a warp past
	// it stops the launch with a *sim.Fault of Kind "runaway warp" (a loop
	// that never ends). 0 keeps the simulator's limit, 2^31 per warp.
	MaxInstructions int64
	// SampleStride, above 1, makes a simulated launch timing only: one
	// block in every SampleStride runs and the counters and modeled time
	// stand for the whole grid (sim.PTXOptions.SampleStride); the outputs
	// are partial. The time model's sweep uses it for grids too large to
	// simulate whole; a GPU ignores it.
	SampleStride int
	// SampleKeep, with SampleStride, names blocks that also run and stand
	// for themselves in the modeled schedule (sim.PTXOptions.SampleKeep):
	// the blocks the caller knows to be heavy, such as an SpMV's longest
	// rows'. Ignored on a GPU.
	SampleKeep []int
}

// launchConfig is a Config with its dimensions resolved.
type launchConfig struct {
	grid, block sim.Dim3
	shared      int
	opts        sim.PTXOptions
}

// dim3 reads a Grid or Block value.
func dim3(what string, v any) (sim.Dim3, error) {
	switch d := v.(type) {
	case sim.Dim3:
		return d, nil
	case int:
		return sim.Dim3{X: d, Y: 1, Z: 1}, nil
	case int32:
		return sim.Dim3{X: int(d), Y: 1, Z: 1}, nil
	case int64:
		if d > 1<<31-1 {
			return sim.Dim3{}, fmt.Errorf("Config.%s %d is past any GPU's limit", what, d)
		}
		return sim.Dim3{X: int(d), Y: 1, Z: 1}, nil
	case nil:
		return sim.Dim3{}, fmt.Errorf("Config.%s is not set; give an int (one dimension) or a sim.Dim3", what)
	}
	return sim.Dim3{}, fmt.Errorf("Config.%s is a %T; give an int (one dimension) or a sim.Dim3", what, v)
}

// resolve checks the dimensions' types; limits.validate checks their sizes.
func (c Config) resolve() (*launchConfig, error) {
	g, err := dim3("Grid", c.Grid)
	if err != nil {
		return nil, err
	}
	b, err := dim3("Block", c.Block)
	if err != nil {
		return nil, err
	}
	return &launchConfig{grid: g, block: b, shared: c.Shared,
		opts: sim.PTXOptions{MaxInstructions: c.MaxInstructions, Trace: c.Trace, TraceEvents: c.TraceEvents, SampleStride: c.SampleStride, SampleKeep: c.SampleKeep}}, nil
}
