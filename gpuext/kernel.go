package gpuext

import (
	"fmt"
	"sync"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// Module is CUDA C and the PTX nvcc made from it: a lesson's embedded .cu
// and .ptx, or a notebook's source compiled by Compile. Kernels must be
// declared extern "C" so that their names are not C++-mangled. A module
// may leave PTX empty: the simulator, and a GPU loading PTX, then compile
// its CUDA C by Compile's rules. Make modules with NewModule, which keeps
// the parsed PTX for every Kernel call; a Module literal works too, parsing
// its PTX at each Kernel call. A Module's fields must not change once a
// Kernel has been taken from it.
type Module struct {
	Name string
	CUDA string // CUDA C source (embedded .cu)
	PTX  string // PTX generated from it (embedded .ptx)
	// Compiled says where Compile found or made the PTX (which cache,
	// which nvcc); zero for a module built from embedded files.
	Compiled CompileInfo

	parsed *moduleCache // nil for a Module literal
}

// moduleCache is a Module's PTX, parsed once, and the Kernel handles
// taken from it, so that Kernel(name) is a map lookup after the first call.
type moduleCache struct {
	once sync.Once
	pm   *ptxMod
	err  error

	mu      sync.Mutex
	kernels map[string]*Kernel
}

// NewModule returns the module of CUDA C source cuda and the PTX made
// from it, named name (the name errors and counters use).
func NewModule(name, cuda, ptxText string) *Module {
	return &Module{Name: name, CUDA: cuda, PTX: ptxText, parsed: &moduleCache{}}
}

// ownPTX parses m's own PTX (nil, nil when it has none).
func (m *Module) ownPTX() (*ptxMod, error) {
	if m.PTX == "" {
		return nil, nil
	}
	parse := func() (*ptxMod, error) {
		pm := &ptxMod{src: m.PTX, cuda: m.CUDA, kernels: map[string]*sim.PTXKernel{}}
		pm.mod, pm.err = ptx.ParseKernels(m.Name+".ptx", m.PTX) // a kernel the simulator cannot run fails at its own launch
		if pm.err != nil {
			return nil, fmt.Errorf("module %s: the PTX does not parse: %w", m.Name, pm.err)
		}
		return pm, nil
	}
	if m.parsed == nil {
		return parse()
	}
	m.parsed.once.Do(func() { m.parsed.pm, m.parsed.err = parse() })
	return m.parsed.pm, m.parsed.err
}

// Kernel is one kernel of a Module, found and checked once: Module.Kernel
// makes sure the module's PTX has an entry of that name and reads its
// parameter list, so each Device.Launch checks its arguments against it
// without looking the kernel up again. A Kernel is safe for use by several
// goroutines and on several Devices.
type Kernel struct {
	mod    *Module
	name   string
	params []ptx.Param // nil when the module has no PTX to read them from
	pm     *ptxMod     // the module's own PTX, parsed; nil without PTX

	decode  sync.Once // the simulator's decoded form of pm's entry
	simK    *sim.PTXKernel
	simKErr error
}

// Kernel returns the handle of kernel name of m. It fails when m's PTX
// does not parse or has no such entry, naming the entries it has. A
// module with CUDA C and no PTX is compiled at its first launch, and a
// missing kernel is reported then. A module made by NewModule (or
// Compile) returns the same handle for a name every time.
func (m *Module) Kernel(name string) (*Kernel, error) {
	if m == nil {
		return nil, fmt.Errorf("gpuext: Kernel(%q) of a nil *Module", name)
	}
	c := m.parsed
	if c == nil {
		return m.newKernel(name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := c.kernels[name]; k != nil {
		return k, nil
	}
	k, err := m.newKernel(name)
	if err != nil {
		return nil, err
	}
	if c.kernels == nil {
		c.kernels = map[string]*Kernel{}
	}
	c.kernels[name] = k
	return k, nil
}

// newKernel finds and checks kernel name of m.
func (m *Module) newKernel(name string) (*Kernel, error) {
	pm, err := m.ownPTX()
	if err != nil {
		return nil, fmt.Errorf("gpuext: Kernel(%q): %w", name, err)
	}
	k := &Kernel{mod: m, name: name, pm: pm}
	if pm == nil {
		if m.CUDA == "" {
			return nil, fmt.Errorf("gpuext: Kernel(%q): module %s has neither CUDA C nor PTX", name, m.Name)
		}
		return k, nil
	}
	for _, e := range pm.mod.Kernels {
		if e.Name == name {
			k.params = e.Params
			return k, nil
		}
	}
	return nil, fmt.Errorf("gpuext: Kernel(%q): module %s has no such kernel (its kernels: %s); declare it extern \"C\" __global__ so that C++ does not mangle its name",
		name, m.Name, pm.kernelNames())
}

// MustKernel is Kernel for a module known to have the kernel (a lesson's
// own, whose PTX is checked by its tests): it panics on an error.
func (m *Module) MustKernel(name string) *Kernel {
	k, err := m.Kernel(name)
	if err != nil {
		panic(err)
	}
	return k
}

// Name is the kernel's name.
func (k *Kernel) Name() string { return k.name }

// Module is the module the kernel belongs to.
func (k *Kernel) Module() *Module { return k.mod }

// String is "module.kernel".
func (k *Kernel) String() string {
	if k == nil {
		return "<nil kernel>"
	}
	return k.mod.Name + "." + k.name
}
