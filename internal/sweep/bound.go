package sweep

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

func newBound(desc string) *bound {
	return &bound{desc: desc, config: map[string]string{}, kernels: map[string]*gpuext.Kernel{},
		launch: map[string]func(context.Context) (*gpuext.Launch, error){},
		verify: map[string]func() (string, error){}, reset: map[string]func() error{}, keep: map[string][]int{}}
}

// add registers kernel's launch and its check.
func (b *bound) add(kernel, config string, launch func(context.Context) (*gpuext.Launch, error), verify func() (string, error)) {
	b.config[kernel] = config
	b.launch[kernel] = launch
	b.verify[kernel] = verify
}

// upload copies src to a new device buffer that b frees.
func upload[T sim.Elem](b *bound, dev *gpuext.Device, name string, src []T) (*gpuext.Buffer[T], error) {
	buf, err := gpuext.Upload(dev, name, src)
	if err != nil {
		b.release()
		return nil, err
	}
	b.free = append(b.free, buf.Free)
	return buf, nil
}

// alloc allocates a zeroed device buffer that b frees.
func alloc[T sim.Elem](b *bound, dev *gpuext.Device, name string, n int) (*gpuext.Buffer[T], error) {
	buf, err := gpuext.Alloc[T](dev, name, n)
	if err != nil {
		b.release()
		return nil, err
	}
	b.free = append(b.free, buf.Free)
	if err := buf.Fill(0); err != nil {
		b.release()
		return nil, err
	}
	return buf, nil
}

// launchConfig says how a kernel was launched.
func launchConfig(grid, block sim.Dim3, shared int) string {
	return fmt.Sprintf("grid %dx%dx%d, block %dx%dx%d, %d B dynamic shared", grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, shared)
}

// launchOn launches kernel name of m on dev. The kernel's handle is looked
// up once, at its first launch (the checked one, before any timing), so the
// timed launches pay no lookup.
func (b *bound) launchOn(ctx context.Context, dev *gpuext.Device, m *gpuext.Module, name string, grid, block sim.Dim3, shared int, args ...any) (*gpuext.Launch, error) {
	k := b.kernels[m.Name+"."+name]
	if k == nil {
		var err error
		if k, err = m.Kernel(name); err != nil {
			return nil, err
		}
		b.kernels[m.Name+"."+name] = k
	}
	return dev.Launch(ctx, k, gpuext.Config{Grid: grid, Block: block, Shared: shared, SampleStride: b.stride, SampleKeep: b.keep[name]}, args...)
}
