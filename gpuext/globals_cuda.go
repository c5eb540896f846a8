//go:build cuda

package gpuext

import (
	"fmt"
	"unsafe"

	cu "gorgonia.org/cu"
)

// The GPU's module variables: cuModuleGetGlobal on the loaded module (the
// module is loaded first if no launch has loaded it), then a copy through
// the device's staging, as Upload and Download copy.

func (g *cudaDev) global(m *Module, name string) (cu.DevicePtr, int64, error) {
	var ptr cu.DevicePtr
	var size int64
	err := g.do(func() error {
		cm, err := g.loadLocked(m)
		if err != nil {
			return err
		}
		ptr, size, err = cm.mod.Global(name)
		if err != nil {
			return fmt.Errorf("cuModuleGetGlobal %q: %w (a __device__ or __constant__ variable, by its PTX name)", name, err)
		}
		return nil
	})
	return ptr, size, err
}

func (g *cudaDev) globalSize(m *Module, name string) (int, error) {
	_, size, err := g.global(m, name)
	return int(size), err
}

func (g *cudaDev) globalRW(m *Module, name string, buf []byte, write bool) error {
	ptr, size, err := g.global(m, name)
	if err != nil {
		return err
	}
	if int64(len(buf)) != size {
		return fmt.Errorf("%d bytes for a variable of %d", len(buf), size)
	}
	if write {
		return g.htod(uint64(ptr), unsafe.Pointer(&buf[0]), size)
	}
	return g.dtoh(unsafe.Pointer(&buf[0]), uint64(ptr), size)
}
