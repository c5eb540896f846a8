package gpuext

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The simulator runs a kernel from PTX: the same PTX the GPU loads,
// executed warp-wide by sim.LaunchPTX. A Kernel handle carries its
// module's own PTX, parsed once, and decodes its entry once; this file is
// the other source of PTX: another Device's (Options.PTXFrom) or a
// module's CUDA C compiled on first use, parsed once per Module.

// ptxMod is one Module's parsed PTX and decoded kernels.
type ptxMod struct {
	src     string // the PTX text this was parsed from
	cuda    string
	origin  string // where src came from, for Launch.PTX; "" for the module's own PTX
	mod     *ptx.Module
	err     error
	kernels map[string]*sim.PTXKernel

	// sass: the SASS's shared access widths (Options.SASSWidths), read
	// once; nil where ptxas could not give them.
	sassOnce sync.Once
	sass     sim.SASSWidths
	sassFrom string
	// regs: each entry's registers a thread by ptxas -v for the model's
	// architecture, read with the SASS; nil where ptxas could not give them.
	regs     map[string]int
	regsFrom string
}

// kernelNames lists the entries of the PTX, for messages.
func (pm *ptxMod) kernelNames() string {
	if pm == nil || pm.mod == nil || len(pm.mod.Kernels) == 0 {
		return "none"
	}
	names := make([]string, len(pm.mod.Kernels))
	for i, k := range pm.mod.Kernels {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// ptxCache holds the PTX a simulator backend runs for modules whose own
// PTX it does not run: compiled from CUDA C, or taken from Options.PTXFrom.
type ptxCache struct {
	mu   sync.Mutex
	mods map[*Module]*ptxMod
	comp map[*Module]compiledPTX
}

// compiledPTX is a Module's CUDA C compiled by Compile's rules.
type compiledPTX struct {
	cuda, ptx, origin string
	err               error
}

// modulePTX is the PTX the simulator runs for m when it is not m's own,
// and where it came from.
func (s *simBackend) modulePTX(m *Module) (text, origin string, err error) {
	if s.ptxFrom == nil {
		if m.PTX != "" {
			return m.PTX, "", nil // its own, decoded per device (Options.SASSWidths)
		}
		return s.compiled(m)
	}
	text, li, err := s.ptxFrom.loadedPTX(m)
	if err != nil {
		return "", "", fmt.Errorf("the PTX that %s loaded for module %s (Options.PTXFrom): %w", s.ptxFromName, m.Name, err)
	}
	if li.Path == PathCubin {
		return text, fmt.Sprintf("made by nvcc -ptx beside the %s cubin %s loaded", li.Arch, s.ptxFromName), nil
	}
	return text, fmt.Sprintf("the embedded PTX %s JIT-compiled", s.ptxFromName), nil
}

// compiled returns the PTX of a module that has CUDA C and no PTX,
// compiled (or found in a cache) as Compile does, once per source text.
func (s *simBackend) compiled(m *Module) (text, origin string, err error) {
	c := &s.ptx
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.comp[m]; ok && e.cuda == m.CUDA {
		return e.ptx, e.origin, e.err
	}
	cm, info, err := s.compile.Compile(m.Name, m.CUDA)
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

// parsedPTX returns the PTX the simulator runs for m, parsed: m's own
// (parsed once by the Module), or the other PTX, parsed once per backend.
func (s *simBackend) parsedPTX(m *Module) (*ptxMod, error) {
	if !s.otherPTX(m) {
		return m.ownPTX()
	}
	text, origin, err := s.modulePTX(m)
	if err != nil {
		return nil, err
	}
	c := &s.ptx
	c.mu.Lock()
	defer c.mu.Unlock()
	pm := c.mods[m]
	if pm == nil || pm.src != text || pm.cuda != m.CUDA {
		pm = &ptxMod{src: text, cuda: m.CUDA, origin: origin, kernels: map[string]*sim.PTXKernel{}}
		pm.mod, pm.err = ptx.ParseKernels(m.Name+".ptx", text) // a kernel the simulator cannot run fails at its own launch
		if c.mods == nil {
			c.mods = map[*Module]*ptxMod{}
		}
		c.mods[m] = pm
	}
	if pm.err != nil {
		return nil, fmt.Errorf("the simulator cannot read module %s's PTX: %w", m.Name, pm.err)
	}
	return pm, nil
}

// kernel returns k decoded for the simulator from PTX other than its
// module's own (otherPTX), and that PTX. (A module's own PTX is the
// handle's: simKernel, no lookup.)
func (s *simBackend) kernel(k *Kernel) (*sim.PTXKernel, *ptxMod, error) {
	pm, err := s.parsedPTX(k.mod)
	if err != nil {
		return nil, nil, err
	}
	s.ptx.mu.Lock()
	defer s.ptx.mu.Unlock()
	if pk := pm.kernels[k.name]; pk != nil {
		return pk, pm, nil
	}
	found := false
	for _, e := range pm.mod.Kernels {
		found = found || e.Name == k.name
	}
	if !found {
		return nil, nil, fmt.Errorf("module %s's PTX has no kernel %q (its kernels: %s)", k.mod.Name, k.name, pm.kernelNames())
	}
	pk, err := sim.NewPTXKernel(pm.mod, k.name)
	if err != nil {
		return nil, nil, err
	}
	pk.SetSource(k.mod.CUDA)
	s.setWidths(pm, pk)
	pm.kernels[k.name] = pk
	return pk, pm, nil
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
	s, ok := d.be.(*simBackend)
	if !ok {
		return "", "", fmt.Errorf("gpuext: SimPTXSource: %s is a GPU; ask the simulator Device that runs its PTX (Options.PTXFrom)", d.name)
	}
	if m == nil {
		return "", "", fmt.Errorf("gpuext: SimPTXSource: nil module")
	}
	pm, err := s.parsedPTX(m)
	if err == nil && pm == nil {
		err = fmt.Errorf("the module has no PTX")
	}
	if err != nil {
		return "", "", fmt.Errorf("gpuext: SimPTXSource module %s: %w", m.Name, err)
	}
	return pm.src, pm.provenance(), nil
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
