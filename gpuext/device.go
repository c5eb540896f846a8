package gpuext

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/warplab/warplab/sim"
)

// ErrNoGPUBackend is returned (wrapped) by Open("gpu") in a program built
// without the `cuda` build tag. Test for it with errors.Is.
var ErrNoGPUBackend = errors.New("this program was built without the GPU backend: " +
	"build it with `go build -tags cuda` (or scripts/cuda/build.sh, which makes bin/warplab-cuda) " +
	"on a machine with the NVIDIA driver, or open \"sim\" or \"auto\" instead")

// Options adjust how a Device loads CUDA code. The zero value is the default:
// use nvcc when it is on PATH, else the embedded PTX.
type Options struct {
	// PTXOnly loads a module's embedded PTX even when nvcc is on PATH, so
	// that both load paths can be exercised on one machine
	// (WARPLAB_PTX_ONLY=1, read by package lab).
	PTXOnly bool
	// NVCC is the nvcc to compile CUDA C with; "" looks for "nvcc" on PATH.
	NVCC string
	// CacheDir holds compiled cubins; "" means os.UserCacheDir()/warplab/cubin.
	CacheDir string

	// PTXFrom names a GPU Device whose code the simulator runs: for each
	// module, the PTX that device loaded, that is the PTX the same nvcc
	// made with the same flags when it loaded a cubin (Options.NVCC), else
	// the module's embedded PTX, which it JIT-compiled. The simulator then
	// executes what the GPU executes, from one compiler, rather than the
	// embedded nvcc-11.8 PTX beside a cubin from a newer nvcc. nil (or a
	// simulator Device) uses the module's embedded PTX. Ignored on a GPU.
	PTXFrom *Device

	// SASSWidths, on the simulator, times shared-memory accesses at the
	// widths ptxas compiles them to for the modeled GPU: each module's PTX
	// goes through ptxas -lineinfo and nvdisasm once, and the word accesses
	// ptxas merged (an unrolled loop's four ld.shared.f32 as one LDS.128)
	// count as the wide access they are (sim.PtxasSharedWidths,
	// PTXKernel.SetSharedWidths). Where the machine has no ptxas the PTX's
	// widths stand, and PTXKernel.AccessWidths says so. The same listing
	// gives the global loads' loop passes as compiled (ptxas unrolls a row
	// loop 4 elements a pass in the PTX to 16: PTXKernel.SetLoadPasses,
	// LoadPasses). Timing only: the results are the same. Ignored on a GPU.
	SASSWidths bool

	// HostFloor, on the simulator, replaces the model's host launch floor
	// (its Constants.HostFloor) with one measured on the host a run is
	// compared with: the floor is the lease's, not the GPU's, so a
	// recorded run beside its own warplab bench launch records is modeled
	// with them (timecheck). The device's name then says so ("simulated
	// NVIDIA H200 with a host floor of 5.53 µs (modeled)"). nil keeps the
	// model's. Ignored on a GPU.
	HostFloor *sim.HostFloor

	// Compile is how a module that has CUDA C and no PTX
	// (Module{Name, CUDA}) is compiled to PTX, by the simulator or for a
	// GPU loading PTX: which nvcc, which caches. The zero value uses nvcc
	// on PATH and the user's cache; package lab fills it from the
	// environment and adds the repository's cache.
	Compile CompileOptions
}

// Device is one place kernels run: a GPU through the CUDA driver API, or the
// simulator. Notebooks and lessons hold a *Device and never ask which.
// A Device is safe for use by several goroutines.
type Device struct {
	kind   Kind
	name   string
	model  sim.Model
	reason string // why auto chose this backend
	driver string // the GPU's driver and driver API version; "" on the simulator
	opts   Options

	be  backend // the simulator or a GPU
	lim limits

	mu     sync.Mutex
	closed bool
	live   map[*bufState]struct{} // buffers not yet freed
	rec    *recorder              // the Record in progress, or nil
}

// Open returns the device named by spec:
//
//	"auto"                     the GPU when this build has the GPU backend and a
//	                           device answers, otherwise the simulated H200
//	"gpu", "gpu:N"             GPU 0 or GPU N (needs the `cuda` build tag)
//	"sim"                      the simulator modelling an NVIDIA H200
//	"sim:t4|a100|h100|h200"    the simulator modelling that GPU
//
// The empty spec means "auto". Open uses the zero Options; OpenWith takes
// them explicitly (package lab reads them from the environment, once, for
// a notebook or the command line).
func Open(spec string) (*Device, error) { return OpenWith(spec, Options{}) }

// OpenWith is Open with explicit Options.
func OpenWith(spec string, opts Options) (*Device, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	kind, arg, hasArg := strings.Cut(s, ":")
	switch {
	case s == "" || s == "auto":
		if !gpuBuilt {
			d, err := openSim("h200", opts)
			if err == nil {
				d.reason = "auto: this build has no GPU backend (build tag cuda), so the simulator runs the kernels"
			}
			return d, err
		}
		d, gerr := openGPU(0, opts)
		if gerr == nil {
			d.reason = "auto: GPU 0 answered"
			return d, nil
		}
		d, err := openSim("h200", opts)
		if err == nil {
			d.reason = "auto: no usable GPU (" + gerr.Error() + "), so the simulator runs the kernels"
		}
		return d, err
	case kind == "gpu":
		ordinal := 0
		if hasArg {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("gpuext: Open(%q): %q is not a GPU number (write \"gpu\" or \"gpu:0\", \"gpu:1\", ...)", spec, arg)
			}
			ordinal = n
		}
		if !gpuBuilt {
			return nil, fmt.Errorf("gpuext: Open(%q): %w", spec, ErrNoGPUBackend)
		}
		d, err := openGPU(ordinal, opts)
		if err != nil {
			return nil, fmt.Errorf("gpuext: Open(%q): %w", spec, err)
		}
		return d, nil
	case kind == "sim":
		key := "h200"
		if hasArg {
			key = arg
		}
		d, err := openSim(key, opts)
		if err != nil {
			return nil, fmt.Errorf("gpuext: Open(%q): %w", spec, err)
		}
		return d, nil
	}
	return nil, fmt.Errorf("gpuext: Open(%q): unknown device; use \"auto\", \"gpu\", \"gpu:N\", \"sim\" or \"sim:%s\"",
		spec, strings.Join(modelKeys(), "|"))
}

func modelKeys() []string {
	var keys []string
	for _, m := range sim.Models() {
		keys = append(keys, m.Key)
	}
	return keys
}

func openSim(key string, opts Options) (*Device, error) {
	m, err := sim.ModelByKey(key)
	if err != nil {
		return nil, err
	}
	name := "simulated " + m.Name + " (modeled)"
	if opts.HostFloor != nil {
		m.HostFloor = *opts.HostFloor
		// Say so wherever the device is named: its times at the floor
		// are that host's, not the model's.
		name = fmt.Sprintf("simulated %s with a host floor of %.2f µs (modeled)", m.Name, m.TimedLaunch*1e6)
	}
	be := &simBackend{sd: sim.NewDevice(m), model: m, name: name, compile: opts.Compile, sassWidths: opts.SASSWidths}
	if src := opts.PTXFrom; src != nil {
		if l, ok := src.be.(ptxLoader); ok {
			be.ptxFrom, be.ptxFromName = l, src.name
		}
	}
	return &Device{
		kind:  Sim,
		name:  name,
		model: m,
		opts:  opts,
		be:    be,
		lim:   simLimits(m),
		live:  make(map[*bufState]struct{}),
	}, nil
}

// Kind is the device's backend, GPU or Sim.
func (d *Device) Kind() Kind { return d.kind }

// Name is the GPU's name ("NVIDIA H200"), or for the simulator the model it
// simulates, marked as such ("simulated NVIDIA H200 (modeled)").
func (d *Device) Name() string { return d.name }

// TimedFrom says, for the simulator, which code its modeled times follow:
// "the PTX" (the default), or with Options.SASSWidths the SASS ptxas
// compiles for the modeled GPU, or the PTX with the reason the SASS could
// not be had. "" on a GPU, whose times are measured.
func (d *Device) TimedFrom() string {
	switch {
	case d.kind != Sim:
		return ""
	case !d.opts.SASSWidths:
		return "the PTX"
	case sim.Ptxas() == "":
		return "the PTX (no ptxas on this machine for the SASS; scripts/setup.sh --nvcc installs it)"
	}
	return "ptxas's SASS for " + sim.ArchFor(d.model) + " (loads a loop pass, shared access widths, registers; the PTX where ptxas refuses a module)"
}

// Reason says why Open("auto") chose this backend; "" for an explicit spec.
func (d *Device) Reason() string { return d.reason }

// Driver names the GPU's driver (kernel module version and the CUDA
// version its driver API reports), as recorded timings do; "" on the
// simulator.
func (d *Device) Driver() string { return d.driver }

// ComputeCapability is the device's (or the simulated model's) compute
// capability, e.g. 9, 0 for an H200.
func (d *Device) ComputeCapability() (major, minor int) { return d.model.CCMajor, d.model.CCMinor }

// SMs is the number of streaming multiprocessors.
func (d *Device) SMs() int { return d.model.SMs }

// MemoryBytes is the device's global memory size.
func (d *Device) MemoryBytes() int64 { return d.model.MemoryBytes }

// Model is the simulator model of this device: the simulated model itself,
// or on a GPU the model whose name matches the GPU's, else one built from
// the GPU's attributes. Lessons use it to predict what the GPU measures.
func (d *Device) Model() sim.Model { return d.model }

// MemInfo reports free and total device memory. On the simulator, total is
// the model's memory and free is what the buffers of this Device leave.
func (d *Device) MemInfo() (free, total int64, err error) {
	if err := d.check("MemInfo"); err != nil {
		return 0, 0, err
	}
	free, total, err = d.be.memInfo()
	if err != nil {
		return 0, 0, fmt.Errorf("gpuext: MemInfo: %w", err)
	}
	return free, total, nil
}

// Synchronize waits for every launch and copy issued so far to finish, and
// reports an error a kernel raised asynchronously. A no-op on the simulator,
// whose launches finish before Launch returns.
func (d *Device) Synchronize() error {
	if err := d.check("Synchronize"); err != nil {
		return err
	}
	if err := d.notRecording("Synchronize"); err != nil {
		return err
	}
	if err := d.be.synchronize(); err != nil {
		return fmt.Errorf("gpuext: Synchronize: %w", err)
	}
	return nil
}

// Close frees every buffer and module the device gave out and releases the
// device. Buffers used after Close return an error. Close is idempotent.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	live := d.live
	d.live = nil
	d.mu.Unlock()

	var errs []error
	for st := range live {
		if err := st.release(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := d.be.close(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("gpuext: Close %s: %w", d.name, err)
	}
	return nil
}

// checkRecording is check and recording under one lock, for Launch: the
// recorder of a Record in progress (nil when none), or why d cannot
// launch. (One call, so that a launch's path visits this file once.)
func (d *Device) checkRecording(call string) (*recorder, error) {
	if d == nil {
		return nil, fmt.Errorf("gpuext: %s on a nil *Device (did Open fail?)", call)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("gpuext: %s: device %s is closed", call, d.name)
	}
	return d.rec, nil
}

// check fails when d is nil or closed.
func (d *Device) check(call string) error {
	if d == nil {
		return fmt.Errorf("gpuext: %s on a nil *Device (did Open fail?)", call)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("gpuext: %s: device %s is closed", call, d.name)
	}
	return nil
}

// GPUBackend reports whether this program was built with the GPU backend
// (build tag cuda). Without it, Open("gpu") fails with ErrNoGPUBackend.
func GPUBackend() bool { return gpuBuilt }

// CUDAHeaderVersion is the CUDA_VERSION of the cuda.h the GPU backend was
// compiled against (11080 for CUDA 11.8, 13000 for 13.0), or 0 without the
// backend. The driver a program runs on may be newer than its header (the
// driver API keeps old entry points), never older than what it calls; the
// self-test prints both, so a recorded run says which header it was built with.
func CUDAHeaderVersion() int { return cudaHeaderVersion }
