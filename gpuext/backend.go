package gpuext

import (
	"context"
	"unsafe"
)

// A Device sits over one backend, as database/sql's DB sits over a
// driver: the Device does everything that is the same on every backend
// (checking a launch configuration and its arguments, naming errors,
// tracking buffers, recording graphs), and the backend only moves bytes and
// runs kernels. Two implement it: the simulator (sim_backend.go) and CUDA
// (gpu_cuda.go, built with the `cuda` tag, the only files that may import
// gorgonia.org/cu: that package's init calls cuInit and exits the process
// when no GPU answers, so an untagged program must never link it).
type backend interface {
	// alloc returns bytes of zeroed device memory for a buffer named
	// name. newSim makes the simulator's typed memory for it (a
	// *sim.Global[T]); other backends ignore it.
	alloc(name string, bytes int64, newSim simAlloc) (mem, error)
	// load prepares m and says how its code reached the device.
	load(m *Module) (LoadInfo, error)
	// launch runs (simulator) or queues (GPU) one kernel. args are the
	// arguments as mem.arg and the checked scalars give them. On an
	// error, call names the failing step for LaunchError.Call.
	launch(ctx context.Context, k *Kernel, c *launchConfig, args []any) (l *Launch, call string, err error)
	// time times f (Device.Time): measured on a GPU, modeled on the
	// simulator. once is TimeOnce.
	time(ctx context.Context, f func(context.Context) error, warmups, runs int, once bool) (Timing, error)
	// graphBuild makes a replayable graph of the recorded steps;
	// graphLaunch replays g once; graphDestroy frees what graphBuild made.
	graphBuild(ops []graphOp) (any, error)
	graphLaunch(ctx context.Context, g *Graph) (*GraphLaunch, error)
	graphDestroy(exec any) error
	memInfo() (free, total int64, err error)
	synchronize() error
	close() error
}

// mem is one buffer's device memory on a backend.
type mem interface {
	// arg is what a launch passes for the buffer: the *sim.Global[T] on
	// the simulator, the device address (a devPtr) on a GPU.
	arg() any
	// alive fails when the memory went with a GPU context that a kernel
	// fault destroyed (wrapping ErrDiedWithContext).
	alive() error
	// write copies bytes from the host to the memory at byte offset off.
	write(off int64, src unsafe.Pointer, bytes int64) error
	read(dst unsafe.Pointer, bytes int64) error
	// copyFrom queues a device-to-device copy from src, a mem of the same
	// backend (Buffer.CopyFromBuffer).
	copyFrom(src mem, bytes int64) error
	// fill32 sets words 32-bit words to word.
	fill32(word uint32, words int64) error
	// readAsync queues a copy to the host after the work queued so far
	// and returns without waiting (Buffer.ReadAsync).
	readAsync(bytes int64) (asyncRead, error)
	free() error
}

// devPtr is a buffer's device address as a GPU launch receives it: a type
// of its own, so that a uint64 scalar argument is never taken for one.
type devPtr uint64

// ptxLoader is implemented by a backend that can say which PTX it loaded
// for a module (the CUDA backend): the simulator runs that PTX with
// Options.PTXFrom, as database/sql's drivers implement optional interfaces.
type ptxLoader interface {
	loadedPTX(m *Module) (ptx string, li LoadInfo, err error)
}
