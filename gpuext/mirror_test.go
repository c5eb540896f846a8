package gpuext

import (
	"fmt"

	"github.com/warplab/warplab/sim"
)

// A mirror is a kernel's Go form (the sim.Kernel closure API), which the
// tests run beside the kernel's PTX to check one against the other: the
// package runs only PTX, so this is test machinery. It receives the
// launch's arguments in CUDA parameter order, each *Buffer[T] as its
// *sim.Global[T], binds them once, and returns the per-thread kernel.
type mirror func(args sim.Args) (*sim.Kernel, error)

// launchMirror runs mr on d's simulator with the arguments Launch would
// pass, and returns its counters.
func launchMirror(d *Device, mr mirror, grid, block sim.Dim3, shared int, args ...any) (*sim.Stats, error) {
	s, ok := d.be.(*simBackend)
	if !ok {
		return nil, fmt.Errorf("launchMirror: %s is not the simulator", d.Name())
	}
	sargs := make(sim.Args, len(args))
	for i, a := range args {
		if b, ok := a.(bufferArg); ok {
			if err := d.checkBuf(i, b); err != nil {
				return nil, err
			}
			sargs[i] = b.state().mem.arg()
			continue
		}
		sargs[i] = a
	}
	k, err := mr(sargs)
	if err != nil {
		return nil, err
	}
	return s.sd.Launch(k, grid, block, shared)
}

// kern is m's kernel name, for tests whose module has it; it panics
// otherwise (a test that expects Kernel to fail calls Kernel).
func kern(m *Module, name string) *Kernel { return m.MustKernel(name) }
