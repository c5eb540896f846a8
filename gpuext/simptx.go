package gpuext

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The simulator runs a kernel from its module's PTX when the module has no
// Go mirror for it: the same PTX the GPU loads, executed warp-wide by
// sim.LaunchPTX. The PTX is parsed once per Module (and again only if the
// Module's PTX text changes), each kernel decoded once.

// ptxMod is one Module's parsed PTX and decoded kernels.
type ptxMod struct {
	src     string // the PTX text this was parsed from
	cuda    string
	origin  string // where src came from, for Launch.PTX; "" for the module's own PTX
	mod     *ptx.Module
	err     error
	kernels map[string]*sim.PTXKernel
}

// modulePTX is the PTX the simulator runs for m, and where it came from
// ("" for m's own): with Options.PTXFrom naming a GPU Device, the PTX that
// device loaded for m (loading m there if it has not yet), so that the
// simulator and the GPU run code from one nvcc; else m.PTX.
func (d *Device) modulePTX(m *Module) (text, origin string, err error) {
	src := d.opts.PTXFrom
	if src == nil || src.gpu == nil || d.gpu != nil {
		if m.PTX == "" && m.CUDA != "" {
			return d.ptx.compiled(m)
		}
		return m.PTX, "", nil
	}
	if err := src.check("the simulator's Options.PTXFrom"); err != nil {
		return "", "", err
	}
	text, li, err := src.gpu.loadedPTX(m)
	if err != nil {
		return "", "", fmt.Errorf("the PTX that %s loaded for module %s (Options.PTXFrom): %w", src.name, m.Name, err)
	}
	if li.Path == "cubin" {
		return text, fmt.Sprintf("made by nvcc -ptx beside the %s cubin %s loaded", li.Arch, src.name), nil
	}
	return text, fmt.Sprintf("the embedded PTX %s JIT-compiled", src.name), nil
}

// ptxCache holds the parsed PTX of the modules a Device has run, and the
// PTX CompileCUDA made for modules that came with CUDA C only.
type ptxCache struct {
	mu   sync.Mutex
	mods map[*Module]*ptxMod
	comp map[*Module]compiledPTX
}

// compiledPTX is a Module's CUDA C compiled by CompileCUDA's rules.
type compiledPTX struct {
	cuda, ptx, origin string
	err               error
}

// compiled returns the PTX of a module that has CUDA C and no PTX,
// compiled (or found in a cache) as CompileCUDA does, once per source
// text: a Module{Name, CUDA} runs on the simulator without a separate
// CompileCUDA call.
func (c *ptxCache) compiled(m *Module) (text, origin string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.comp[m]; ok && e.cuda == m.CUDA {
		return e.ptx, e.origin, e.err
	}
	cm, info, err := CompileOptionsFromEnv().Compile(m.Name, m.CUDA)
	e := compiledPTX{cuda: m.CUDA, err: err}
	if err == nil {
		e.ptx, e.origin = cm.PTX, "compiled from the module's CUDA C: "+info.String()
	}
	if c.comp == nil {
		c.comp = map[*Module]compiledPTX{}
	}
	c.comp[m] = e
	return e.ptx, e.origin, e.err
}

// simPTX returns m's parsed PTX, parsing it on first use.
func (d *Device) simPTX(m *Module) (*ptxMod, error) {
	text, origin, err := d.modulePTX(m)
	if err != nil {
		return nil, err
	}
	c := &d.ptx
	c.mu.Lock()
	defer c.mu.Unlock()
	pm := c.mods[m]
	if pm == nil || pm.src != text || pm.cuda != m.CUDA {
		pm = &ptxMod{src: text, cuda: m.CUDA, origin: origin, kernels: map[string]*sim.PTXKernel{}}
		name := m.Name + ".ptx"
		pm.mod, pm.err = ptx.Parse(name, text)
		if c.mods == nil {
			c.mods = map[*Module]*ptxMod{}
		}
		c.mods[m] = pm
	}
	return pm, pm.err
}

// simKernel returns kernel name of m decoded for the simulator.
func (d *Device) simKernel(m *Module, name string) (*sim.PTXKernel, *ptxMod, error) {
	pm, err := d.simPTX(m)
	if err != nil {
		if m.PTX == "" && m.CUDA != "" && pm == nil {
			return nil, nil, err // CompileCUDA's error: nvcc's messages, or no nvcc
		}
		return nil, nil, fmt.Errorf("the simulator cannot read module %s's PTX: %w", m.Name, err)
	}
	d.ptx.mu.Lock()
	defer d.ptx.mu.Unlock()
	if k := pm.kernels[name]; k != nil {
		return k, pm, nil
	}
	k, err := sim.NewPTXKernel(pm.mod, name)
	if err != nil {
		return nil, nil, err
	}
	k.SetSource(m.CUDA)
	pm.kernels[name] = k
	return k, pm, nil
}

// hasPTXKernel reports whether m's PTX has an entry called name (false
// when the PTX does not parse).
func (d *Device) hasPTXKernel(m *Module, name string) bool {
	if !d.hasPTXSource(m) {
		return false
	}
	pm, err := d.simPTX(m)
	if err != nil {
		return true // let the launch report the parse error
	}
	for _, k := range pm.mod.Kernels {
		if k.Name == name {
			return true
		}
	}
	return false
}

// SimPTXSource returns the PTX text the simulator runs for m, and which
// PTX it is (compiler, target, and with Options.PTXFrom where it came from),
// so that a caller can read what ran: the self-test looks in it for
// instructions whose results may differ from the GPU's (float atomics,
// .approx). It fails on a GPU Device, and when the simulator cannot read
// the PTX.
func (d *Device) SimPTXSource(m *Module) (text, provenance string, err error) {
	if err := d.check("SimPTXSource"); err != nil {
		return "", "", err
	}
	if d.gpu != nil {
		return "", "", fmt.Errorf("gpuext: SimPTXSource: %s is a GPU; ask the simulator Device that runs its PTX (Options.PTXFrom)", d.name)
	}
	if m == nil || !d.hasPTXSource(m) {
		return "", "", fmt.Errorf("gpuext: SimPTXSource: the simulator has no PTX for this module")
	}
	pm, err := d.simPTX(m)
	if err != nil {
		return "", "", fmt.Errorf("gpuext: SimPTXSource module %s: %w", m.Name, err)
	}
	return pm.src, pm.provenance(), nil
}

// hasPTXSource reports whether the simulator has PTX for m: its own, or
// a GPU Device's through Options.PTXFrom.
func (d *Device) hasPTXSource(m *Module) bool {
	return m.PTX != "" || m.CUDA != "" || (d.opts.PTXFrom != nil && d.opts.PTXFrom.gpu != nil && d.gpu == nil)
}

// ptxKernelNames lists the entries of m's PTX, for messages.
func (d *Device) ptxKernelNames(m *Module) string {
	pm, err := d.simPTX(m)
	if err != nil || len(pm.mod.Kernels) == 0 {
		return "none"
	}
	names := make([]string, len(pm.mod.Kernels))
	for i, k := range pm.mod.Kernels {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// launchPTX runs kernel name of m on the simulator from its PTX.
func (d *Device) launchPTX(ctx context.Context, o LaunchOptions, m *Module, name string, grid, block sim.Dim3, sharedBytes int, sargs sim.Args) (*Launch, string, error) {
	k, pm, err := d.simKernel(m, name)
	if err != nil {
		return nil, "ptx", err
	}
	po := sim.PTXOptions{MaxInstructions: o.MaxInstructions, Trace: o.Trace, TraceEvents: o.TraceEvents}
	st, tr, err := d.sim.LaunchPTXWith(ctx, k, po, grid, block, sharedBytes, sargs...)
	if err != nil {
		return nil, "sim.LaunchPTX", err
	}
	return &Launch{Stats: st, Path: "ptx", PTX: pm.provenance(), Trace: tr}, "", nil
}

// provenance is ptxProvenance, plus where the PTX came from when it is
// not the module's own (Options.PTXFrom).
func (pm *ptxMod) provenance() string {
	if pm.origin == "" {
		return ptxProvenance(pm.mod)
	}
	return ptxProvenance(pm.mod) + "; " + pm.origin
}

var ptxReleaseRE = regexp.MustCompile(`release ([0-9]+\.[0-9]+), (V[0-9.]+)`)

// ptxProvenance says which PTX ran: compiler release and target, e.g.
// "nvcc 11.8 (V11.8.89), .target sm_75, PTX ISA 7.8".
func ptxProvenance(m *ptx.Module) string {
	comp := "compiler unknown"
	if mm := ptxReleaseRE.FindStringSubmatch(m.Compiler); mm != nil {
		comp = fmt.Sprintf("nvcc %s (%s)", mm[1], mm[2])
	} else if m.Compiler != "" {
		comp = m.Compiler
	}
	return fmt.Sprintf("%s, .target %s, PTX ISA %s", comp, m.Target, m.Version)
}
