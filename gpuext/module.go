package gpuext

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/warplab/warplab/sim"
)

// Mirror is a kernel's Go form for the simulator. It receives the launch's
// arguments in CUDA parameter order — each *Buffer[T] converted to its
// *sim.Global[T], scalars as given — binds them once (sim.ArgBuf, sim.ArgInt,
// ...), and returns the per-thread kernel. Binding once per launch keeps
// reflection and type switches out of the per-thread body.
type Mirror func(args sim.Args) (*sim.Kernel, error)

// Module is a lesson's kernels in both forms: the CUDA C students read, the
// PTX generated from it, and a Go mirror per kernel. Kernels must be declared
// extern "C" so that their names are not C++-mangled. A student's module may
// leave PTX empty: the simulator, and a GPU loading PTX, then compile its CUDA
// C by CompileCUDA's rules (the repository's cache, the user's, or nvcc).
type Module struct {
	Name    string
	CUDA    string            // CUDA C source (embedded .cu)
	PTX     string            // PTX generated from it (embedded .ptx)
	Mirrors map[string]Mirror // kernel name -> Go mirror for the simulator
}

// Launch is what one kernel launch returns.
type Launch struct {
	// Stats are the simulator's counters and modeled time; nil on a GPU,
	// where Nsight Compute is the instrument.
	Stats *sim.Stats
	// Path is how the simulator ran the kernel: "mirror" (its Go mirror)
	// or "ptx" (the module's PTX, executed); "" on a GPU.
	Path string
	// PTX says which PTX ran on the simulator (compiler release and
	// target, from the PTX's header), when Path is "ptx".
	PTX string
	// Trace holds the memory accesses of the warps LaunchOptions.Trace
	// chose (simulator, PTX path); nil when none were asked for, and on a
	// GPU.
	Trace *sim.Trace
}

// LoadInfo says how a module's code reached the device.
type LoadInfo struct {
	Module string
	Path   string // "cubin" (compiled here by nvcc), "ptx" (embedded, JIT-compiled by the driver) or "mirror" (simulator)
	Arch   string // "sm_90" for a cubin, the PTX target for PTX (also on the simulator), "" for mirrors
	PTX    string // on the simulator with Path "ptx": the compiler and target of the PTX it runs
	Cache  string // the cubin's cache file, if any
	Note   string // why this path was taken (e.g. nvcc missing, PTXOnly, a compile failure fallen back from)
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

// Launch runs kernel name of m with grid blocks of block threads and
// sharedBytes of dynamic shared memory: the CUDA form on a GPU, the mirror
// on the simulator. args are *Buffer[T] values and scalars (int32, uint32,
// int64, uint64, float32, float64) in CUDA parameter order; Go's int is
// refused because its size differs from CUDA's int. The configuration is
// checked against the device before anything runs.
//
// On the simulator the kernel has finished when Launch returns, and Stats
// holds its counters. On a GPU, Launch returns once the kernel is queued, as
// in CUDA; a fault inside the kernel is reported by the next call that
// waits (Download, Synchronize, Time).
func (d *Device) Launch(m *Module, name string, grid, block sim.Dim3, sharedBytes int, args ...any) (*Launch, error) {
	return d.LaunchContext(context.Background(), m, name, grid, block, sharedBytes, args...)
}

// LaunchContext is Launch that gives up when ctx is done: before the launch
// on a GPU (a kernel already running there cannot be stopped), and also
// while it runs on the simulator, which returns a *sim.Fault of Kind
// "cancelled" (a notebook's interrupt, or a deadline on a student's kernel).
func (d *Device) LaunchContext(ctx context.Context, m *Module, name string, grid, block sim.Dim3, sharedBytes int, args ...any) (*Launch, error) {
	return d.LaunchWith(ctx, LaunchOptions{}, m, name, grid, block, sharedBytes, args...)
}

// LaunchWith is LaunchContext with LaunchOptions: warps to trace and an
// instruction limit, both for the simulator's PTX path.
func (d *Device) LaunchWith(ctx context.Context, o LaunchOptions, m *Module, name string, grid, block sim.Dim3, sharedBytes int, args ...any) (*Launch, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	le := &LaunchError{Call: "Launch", Kernel: name, Grid: grid, Block: block, Shared: sharedBytes}
	if m != nil {
		le.Module = m.Name
	}
	var rec *recorder // the Record in progress: a refused launch fails it too
	fail := func(err error) (*Launch, error) {
		le.Err = err
		if rec != nil {
			rec.refuse(d, le)
		}
		return nil, le
	}
	if err := d.check("Launch"); err != nil {
		return fail(err)
	}
	rec = d.recording()
	if m == nil {
		return fail(fmt.Errorf("nil module"))
	}
	if err := d.lim.validate(grid, block, sharedBytes); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if rec != nil {
		return d.recordLaunch(rec, o, m, name, grid, block, sharedBytes, args, le, fail)
	}
	if d.gpu != nil {
		params, err := d.gpuParams(args)
		if err != nil {
			return fail(err)
		}
		if call, err := d.gpu.launch(m, name, grid, block, sharedBytes, params); err != nil {
			le.Call = call
			return fail(err)
		}
		return &Launch{}, nil
	}
	l, err := d.simRun(ctx, o, m, name, grid, block, sharedBytes, args, le)
	if err != nil {
		return nil, err
	}
	d.noteSeconds(ctx, l.Stats.Time.Seconds)
	return l, nil
}

// simResolve decides how the simulator runs kernel name of m — its Go
// mirror (returned) or its PTX (mirror nil) — and converts the arguments.
// On an error, call names the step for LaunchError.Call.
func (d *Device) simResolve(o LaunchOptions, m *Module, name string, args []any) (mirror Mirror, sargs sim.Args, call string, err error) {
	call = "Launch"
	mirror, ok := m.Mirrors[name]
	if !ok || mirror == nil || d.opts.SimPTX {
		if !d.hasPTXKernel(m, name) {
			msg := fmt.Sprintf("module %s has no Go mirror for kernel %q, so the simulator cannot run it (mirrors: %s)", m.Name, name, mirrorNames(m))
			if d.opts.SimPTX {
				msg = fmt.Sprintf("Options.SimPTX asks the simulator to run kernel %q of module %s from its PTX", name, m.Name)
			}
			if d.hasPTXSource(m) {
				msg += fmt.Sprintf(", and its PTX has no such kernel (PTX kernels: %s)", d.ptxKernelNames(m))
			}
			return nil, nil, call, fmt.Errorf("%s", msg)
		}
		sargs, err := d.simArgs(args)
		if err != nil {
			return nil, nil, call, err
		}
		// The PTX says each parameter's type: a float for an int is a
		// type mismatch here, not a kernel that reads the float's bits.
		// A kernel that does not decode is left to launchPTX to report.
		if k, _, kerr := d.simKernel(m, name); kerr == nil {
			if err := checkParamTypes(name, k.Params(), args); err != nil {
				return nil, nil, call, err
			}
		}
		return nil, sargs, call, nil
	}
	if len(o.Trace) > 0 || o.MaxInstructions > 0 {
		return nil, nil, call, fmt.Errorf("LaunchOptions (Trace, MaxInstructions) need the PTX path, and kernel %q runs its Go mirror; open the device with Options.SimPTX", name)
	}
	sargs, err = d.simArgs(args)
	if err != nil {
		return nil, nil, call, err
	}
	return mirror, sargs, call, nil
}

// simRun runs one kernel on the simulator, as Launch does, without
// counting its time for Time (the caller does: Launch per kernel, a graph
// replay once). Its errors are le with the cause filled in.
func (d *Device) simRun(ctx context.Context, o LaunchOptions, m *Module, name string, grid, block sim.Dim3, sharedBytes int, args []any, le *LaunchError) (*Launch, error) {
	fail := func(err error) (*Launch, error) { le.Err = err; return nil, le }
	mirror, sargs, call, err := d.simResolve(o, m, name, args)
	if err != nil {
		le.Call = call
		return fail(err)
	}
	if mirror == nil {
		l, call, err := d.launchPTX(ctx, o, m, name, grid, block, sharedBytes, sargs)
		if err != nil {
			le.Call = call
			return fail(err)
		}
		return l, nil
	}
	k, err := mirror(sargs)
	if err != nil {
		le.Call = "mirror"
		return fail(err)
	}
	if k == nil {
		le.Call = "mirror"
		return fail(fmt.Errorf("the mirror returned no kernel"))
	}
	st, err := d.sim.LaunchContext(ctx, k, grid, block, sharedBytes)
	if err != nil {
		le.Call = "sim.Launch"
		return fail(err)
	}
	return &Launch{Stats: st, Path: "mirror"}, nil
}

func mirrorNames(m *Module) string {
	if len(m.Mirrors) == 0 {
		return "none"
	}
	names := make([]string, 0, len(m.Mirrors))
	for n := range m.Mirrors {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
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

// simArgs converts buffers to their *sim.Global[T] and checks scalars.
func (d *Device) simArgs(args []any) (sim.Args, error) {
	out := make(sim.Args, len(args))
	for i, a := range args {
		if b, ok := a.(bufferArg); ok {
			if err := d.checkBuf(i, b); err != nil {
				return nil, err
			}
			out[i] = b.simArg()
			continue
		}
		if _, err := scalarBits(i, a); err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// gpuParams turns arguments into the 8-byte slots cuLaunchKernel reads from:
// a device address, or a scalar's bits in the low bytes (little endian), so
// that the driver, which copies each parameter's own size, sees the value.
func (d *Device) gpuParams(args []any) ([]uint64, error) {
	out := make([]uint64, len(args))
	for i, a := range args {
		if b, ok := a.(bufferArg); ok {
			if err := d.checkBuf(i, b); err != nil {
				return nil, err
			}
			out[i] = b.devPtr()
			continue
		}
		v, err := scalarBits(i, a)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
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
// (cubin, cached), else it loads the embedded PTX. Launch loads on first use,
// so calling Load is optional; it is how a notebook shows which path ran.
func (d *Device) Load(m *Module) (LoadInfo, error) {
	if err := d.check("Load"); err != nil {
		return LoadInfo{}, err
	}
	if m == nil {
		return LoadInfo{}, fmt.Errorf("gpuext: Load: nil module")
	}
	if d.gpu != nil {
		li, err := d.gpu.load(m)
		if err != nil {
			return LoadInfo{}, fmt.Errorf("gpuext: Load module %s: %w", m.Name, err)
		}
		return li, nil
	}
	return d.simLoadInfo(m)
}

// simLoadInfo says how the simulator will run m's kernels: each kernel's
// Go mirror where it has one ("mirror"), else its PTX ("ptx", with the
// PTX's compiler and target). The PTX is parsed here, so a module whose
// PTX the simulator cannot read fails at Load.
func (d *Device) simLoadInfo(m *Module) (LoadInfo, error) {
	li := LoadInfo{Module: m.Name, Path: "mirror", Note: "the simulator runs each kernel's Go mirror (kernels: " + mirrorNames(m) + ")"}
	if !d.hasPTXSource(m) {
		return li, nil
	}
	pm, err := d.simPTX(m)
	if err != nil {
		if len(m.Mirrors) > 0 && !d.opts.SimPTX {
			// The mirrors still run; a kernel without one will report
			// the PTX error when launched.
			li.Note += "; the simulator cannot read the module's PTX: " + err.Error()
			return li, nil
		}
		return LoadInfo{}, fmt.Errorf("gpuext: Load module %s: the simulator cannot read its PTX: %w", m.Name, err)
	}
	var fromPTX []string
	for _, k := range pm.mod.Kernels {
		if mr, ok := m.Mirrors[k.Name]; !ok || mr == nil || d.opts.SimPTX {
			fromPTX = append(fromPTX, k.Name)
		}
	}
	if len(fromPTX) == 0 {
		return li, nil
	}
	li.Path, li.Arch, li.PTX = "ptx", pm.mod.Target, pm.provenance()
	li.Note = "the simulator executes the PTX of " + strings.Join(fromPTX, ", ")
	switch {
	case d.opts.SimPTX:
		li.Note += " (Options.SimPTX: also the kernels with a Go mirror)"
	case len(m.Mirrors) > 0:
		li.Note += "; Go mirrors: " + mirrorNames(m)
	}
	return li, nil
}
