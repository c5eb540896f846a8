package gpuext

import (
	"fmt"
	"unsafe"

	"github.com/warplab/warplab/sim"
)

// A module's __device__ and __constant__ variables, read and written from
// Go between launches: cudaMemcpyFromSymbol and cudaMemcpyToSymbol. On
// the simulator they are the module's variables on the simulated device
// (sim.Device.ModuleGlobal), which keep their values from launch to
// launch; on a GPU, the loaded module's (cuModuleGetGlobal). Variables are
// named as the PTX names them: unmangled at namespace scope and in
// extern "C".

// globalBackend is what a backend provides for module variables
// (issue 28; an interface of its own so that the backends that have it
// need no change elsewhere).
type globalBackend interface {
	// globalRW reads the variable's bytes into dst (write false) or writes
	// src's bytes to it (write true); buf must be the variable's size.
	globalRW(m *Module, name string, buf []byte, write bool) error
	// globalSize is the variable's size in bytes.
	globalSize(m *Module, name string) (int, error)
}

// ReadGlobal returns module m's variable name as elements of T
// (cudaMemcpyFromSymbol): a __device__ int counter as a []int32 of 1.
func ReadGlobal[T sim.Elem](d *Device, m *Module, name string) ([]T, error) {
	gb, err := d.globals("ReadGlobal", m)
	if err != nil {
		return nil, err
	}
	size, err := gb.globalSize(m, name)
	if err != nil {
		return nil, fmt.Errorf("gpuext: ReadGlobal %s.%s: %w", m.Name, name, err)
	}
	es := int(elemSize[T]())
	if size%es != 0 {
		return nil, fmt.Errorf("gpuext: ReadGlobal %s.%s: the variable is %d bytes, not a whole number of %d-byte elements", m.Name, name, size, es)
	}
	out := make([]T, size/es)
	if size == 0 {
		return out, nil
	}
	if err := gb.globalRW(m, name, unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), size), false); err != nil {
		return nil, fmt.Errorf("gpuext: ReadGlobal %s.%s: %w", m.Name, name, err)
	}
	return out, nil
}

// WriteGlobal sets module m's variable name to v (cudaMemcpyToSymbol): a
// __constant__ float filter[5] from a []float32 of 5. v must fill the
// variable exactly.
func WriteGlobal[T sim.Elem](d *Device, m *Module, name string, v []T) error {
	gb, err := d.globals("WriteGlobal", m)
	if err != nil {
		return err
	}
	size, err := gb.globalSize(m, name)
	if err != nil {
		return fmt.Errorf("gpuext: WriteGlobal %s.%s: %w", m.Name, name, err)
	}
	bytes := len(v) * int(elemSize[T]())
	if bytes != size {
		return fmt.Errorf("gpuext: WriteGlobal %s.%s: %d bytes for a variable of %d", m.Name, name, bytes, size)
	}
	if size == 0 {
		return nil
	}
	if err := gb.globalRW(m, name, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), size), true); err != nil {
		return fmt.Errorf("gpuext: WriteGlobal %s.%s: %w", m.Name, name, err)
	}
	return nil
}

// globals checks d and m and returns d's backend's module variables.
func (d *Device) globals(call string, m *Module) (globalBackend, error) {
	if err := d.check(call); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("gpuext: %s: nil module", call)
	}
	gb, ok := d.be.(globalBackend)
	if !ok {
		return nil, fmt.Errorf("gpuext: %s: this backend has no module variables", call)
	}
	return gb, nil
}

// The simulator's module variables: the parsed PTX's, on the simulated
// device.
func (s *simBackend) simGlobal(m *Module, name string) ([]byte, error) {
	pm, err := s.parsedPTX(m)
	if err != nil {
		return nil, err
	}
	if pm == nil || pm.mod == nil {
		return nil, fmt.Errorf("module %s has no PTX", m.Name)
	}
	return s.sd.ModuleGlobal(pm.mod, name)
}

func (s *simBackend) globalSize(m *Module, name string) (int, error) {
	b, err := s.simGlobal(m, name)
	return len(b), err
}

func (s *simBackend) globalRW(m *Module, name string, buf []byte, write bool) error {
	b, err := s.simGlobal(m, name)
	if err != nil {
		return err
	}
	if write {
		copy(b, buf)
	} else {
		copy(buf, b)
	}
	return nil
}
