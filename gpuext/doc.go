// Package gpuext runs CUDA C kernels from Go, on a real GPU through the CUDA
// driver API (gorgonia.org/cu, in programs built with the `cuda` build tag)
// or on warplab's SIMT simulator (package sim), which executes the same PTX
// warp by warp, counts what every warp did and models the time it would
// take. Notebooks and lessons hold a *Device and never ask which.
//
// # A first kernel
//
// A kernel is CUDA C, written once:
//
//	const saxpyCU = `
//	extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
//	    int i = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (i < n) y[i] = a * x[i] + y[i];
//	}`
//
// and a notebook cell compiles it, launches it and checks it against the CPU:
//
//	d := gpuext.Must(gpuext.Open("auto")) // the GPU if this build has one, else a simulated H200
//	saxpy := gpuext.Must(lab.CompileKernel("saxpy", saxpyCU)) // or gpuext.CompileKernel: no repository cache
//	x, y := gpuext.Must(gpuext.Upload(d, "x", hx)), gpuext.Must(gpuext.Upload(d, "y", hy))
//	l := gpuext.Must(d.Launch(ctx, saxpy, gpuext.Config{Grid: n / 256, Block: 256}, int32(n), float32(2.5), x, y))
//	err := gpuext.Check(y, func(i int) float32 { return 2.5*hx[i] + hy[i] })
//
// CompileKernel is Compile and Module.Kernel: nvcc turns the CUDA C into PTX
// (from the user's cache or this machine's nvcc; the Module's Compiled says
// which), and the Kernel handle is found and checked once. Package lab, the
// notebook's set-up, does the same with the environment's settings read
// once and the repository's PTX cache given as CompileOptions.Repo, so that
// shipped notebooks run where there is no nvcc; gpuext itself reads no
// environment variable and imports no cache. Device.Launch is CUDA's saxpy<<<Grid, Block, Shared>>>(args...):
// Config's Grid and Block take an int for one dimension or a sim.Dim3.
// On the simulator the returned Launch holds the counters; Launch.Lines
// gives them per line of the CUDA C (requests, sectors per request, bank
// conflicts, active lanes) and Launch.LinesTable as a table. Check
// downloads a buffer and names the first element that differs from the
// CPU's value.
//
// # Lessons
//
// A lesson embeds its CUDA C and the PTX scripts/cuda/gen-ptx.sh made from
// it, and takes each kernel's handle once:
//
//	mod := gpuext.NewModule("spmv", spmvCU, spmvPTX) // //go:embed spmv.cu, spmv.ptx
//	k, err := mod.Kernel("spmvCsrThreadPerRow")
//
// Arguments follow the kernel's parameter list: a *Buffer[T] for a T*
// parameter, and int32, uint32, int64, uint64, float32 or float64 for
// scalars, each checked against the PTX parameter's type (ArgTypeError).
// Go's int is refused, because CUDA's int is 32 bits and Go's is 64.
//
// Launch configurations are checked before anything runs (threads per
// block, each grid and block dimension, dynamic shared memory) and refused
// with a message that says what to change. Every error names the failing
// call, the kernel and its launch configuration (see LaunchError); a kernel
// fault on the simulator is a *sim.Fault inside it, naming the CUDA line,
// thread and block. A launch stops when its context is done (on the
// simulator also while it runs: InterruptContext ties it to a notebook's
// stop button), and Config.MaxInstructions bounds a kernel that never ends.
//
// Time measures a launch sequence with CUDA events on a GPU ("measured") and
// sums modeled kernel times on the simulator ("modeled"); the label always
// says which.
//
// # Copies, graphs and load paths
//
// Download waits for every kernel queued before it. A loop that needs one
// value per iteration on the host (a residual norm) can instead queue the
// copy with Buffer.ReadAsync, queue more kernels, and only then call
// Pending.Wait, so the GPU is not left idle while the host waits. On a GPU
// the copy goes to pinned host memory on the default stream (the one
// Launch uses) with an event after it; on the simulator it is made at once.
// Buffer.CopyFromBuffer copies a buffer into another on the same device
// (cuMemcpyDtoD on a GPU, ordered with the launches around it).
//
// Device.Record records a sequence of launches, copies and fills once, and
// Graph.Launch replays it with one host call (a CUDA graph), so a solver's
// iteration pays one launch's host cost instead of one per kernel. On the
// simulator a replay runs each kernel exactly as Launch does, and Time
// counts it once: the kernels' GPU time or one graph launch's host cost
// (GraphLaunchSeconds), whichever is longer.
//
// On a GPU, a module is loaded once per content: compiled by nvcc for the
// exact GPU when nvcc is on PATH (cached under os.UserCacheDir()/warplab/cubin),
// else its embedded PTX, which the driver compiles; Options.PTXOnly forces
// the PTX. Device.Load says which path was taken. Options.PTXFrom names a
// GPU Device whose PTX the simulator runs (the PTX nvcc made beside the
// cubin that GPU loaded, or the embedded PTX it JIT-compiled), so that the
// GPU and the simulator run code from one compiler: `warplab selftest
// --backend gpu` checks them against each other kernel by kernel.
//
// # Structure
//
// Device sits over a small backend interface, as database/sql sits over
// its driver: the Device checks configurations and arguments, tracks
// buffers, records graphs and names errors; a backend (sim_backend.go, or
// gpu_cuda.go with the cuda tag) only moves bytes, runs kernels and times
// them. See README.md for building with the GPU backend.
package gpuext
