// Package gpuext is the one helper warplab's notebooks and lessons call to
// run a kernel, so that they never care where it runs: on a real GPU through
// the CUDA driver API (gorgonia.org/cu, in programs built with the `cuda`
// build tag), or on warplab's SIMT simulator (package sim), which also
// counts what every warp did and models the time it would take.
//
// A lesson hands over a Module: its CUDA C source, the PTX generated from it
// by scripts/cuda/gen-ptx.sh, and a Go mirror of each kernel. Launch runs the
// CUDA form on a GPU and the mirror on the simulator, with the same
// arguments, and on the simulator returns the counters (sim.Stats). Time
// measures a launch sequence with CUDA events on a GPU ("measured") and sums
// modeled kernel times on the simulator ("modeled"); the label always says
// which.
//
// A notebook cell, start to finish (scale.cu holds
// `extern "C" __global__ void scale(int n, float a, float *v)`):
//
//	dev, err := gpuext.Open("auto") // the GPU if this build has one, else a simulated H200
//	if err != nil {
//		return err
//	}
//	defer dev.Close() // frees every buffer and module
//	fmt.Println(dev.Name(), dev.Reason())
//
//	mod := &gpuext.Module{
//		Name: "scale",
//		CUDA: scaleCU,  // //go:embed scale.cu
//		PTX:  scalePTX, // //go:embed scale.ptx
//		Mirrors: map[string]gpuext.Mirror{"scale": func(a sim.Args) (*sim.Kernel, error) {
//			n, err := sim.ArgInt(a, 0) // bind the arguments once per launch
//			if err != nil {
//				return nil, err
//			}
//			f, err := sim.ArgF32(a, 1)
//			if err != nil {
//				return nil, err
//			}
//			v, err := sim.ArgBuf[float32](a, 2)
//			if err != nil {
//				return nil, err
//			}
//			k := sim.NewKernel("scale", false)
//			k.Body = func(t *sim.Thread) { // one thread, as in scale.cu
//				if i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X; i < n {
//					v.St(t, i, f*v.Ld(t, i))
//				}
//			}
//			return k, nil
//		}},
//	}
//
//	host := []float32{1, 2, 3, 4}
//	v, err := gpuext.Upload(dev, "v", host)
//	if err != nil {
//		return err
//	}
//	launch := func() error {
//		_, err := dev.Launch(mod, "scale", sim.Dim1(1), sim.Dim1(256), 0, int32(len(host)), float32(2), v)
//		return err
//	}
//	if err := launch(); err != nil {
//		return err // names the call, the kernel and <<<grid, block, shared>>>
//	}
//	if err := v.Download(host); err != nil { // host is now 2, 4, 6, 8
//		return err
//	}
//	t, err := dev.Time(launch, gpuext.DefaultWarmups, gpuext.DefaultRuns)
//	if err != nil {
//		return err
//	}
//	fmt.Println(t) // "... ms (modeled, simulated NVIDIA H200 (modeled))" or "... (measured on NVIDIA H200, driver ..., date)"
//
// Arguments follow the kernel's parameter list: a *Buffer[T] for a T*
// parameter, and int32, uint32, int64, uint64, float32 or float64 for
// scalars. Go's int is refused, because CUDA's int is 32 bits and Go's is 64.
//
// Launch configurations are checked before anything runs (threads per
// block, each grid and block dimension, dynamic shared memory) and refused
// with a message that says what to change. Every error names the failing
// call, the kernel and its launch configuration (see LaunchError); a kernel
// fault on the simulator is a *sim.Fault inside it.
//
// Download waits for every kernel queued before it. A loop that needs one
// value per iteration on the host (a residual norm) can instead queue the
// copy with Buffer.ReadAsync, queue more kernels, and only then call
// Pending.Wait, so the GPU is not left idle while the host waits:
//
//	pend, err := rtrans.ReadAsync(1) // after the kernels queued so far
//	if err != nil {
//		return err
//	}
//	// ... launch the next kernels ...
//	v, err := pend.Wait() // v[0] is rtrans as the earlier kernels left it
//
// On a GPU the copy goes to pinned host memory on the default stream (the
// one Launch uses) with an event after it; on the simulator it is made at
// once.
//
// Buffer.CopyFromBuffer copies a buffer into another on the same device
// (cuMemcpyDtoD on a GPU, ordered with the launches around it), so a value
// that stays on the device never crosses to the host.
//
// Device.Record records a sequence of launches, copies and fills once, and
// Graph.Launch replays it with one host call (a CUDA graph), so a solver's
// iteration pays one launch's host cost instead of one per kernel:
//
//	g, err := dev.Record(func() error { return iteration() }) // nothing runs yet
//	if err != nil {
//		return err
//	}
//	defer g.Close()
//	for it := 0; it < iters; it++ {
//		if _, err := g.Launch(); err != nil {
//			return err
//		}
//	}
//
// On the simulator a replay runs each kernel exactly as Launch does, and
// Time counts it once: the kernels' GPU time or one graph launch's host
// cost (GraphLaunchSeconds), whichever is longer.
//
// On a GPU, a module is loaded once per content: compiled by nvcc for the
// exact GPU when nvcc is on PATH (cached under os.UserCacheDir()/warplab/cubin),
// else its embedded PTX, which the driver compiles; WARPLAB_PTX_ONLY=1 forces
// the PTX. Device.Load says which path was taken. See README.md for building
// with the GPU backend.
//
// On the simulator a kernel without a Go mirror runs from the module's PTX
// (sim.LaunchPTX), and Launch.PTX names that PTX's compiler and target.
// Two options change which code the simulator runs, so that it can be
// checked against a GPU kernel by kernel (`warplab selftest --backend gpu`
// sets both): Options.SimPTX (WARPLAB_SIM_PTX=1) runs every kernel from PTX,
// also one with a mirror; Options.PTXFrom names a GPU Device whose PTX to
// run, the PTX nvcc made beside the cubin that GPU loaded (same nvcc, same
// flags, cached with the cubin) or the embedded PTX it JIT-compiled, so the
// GPU and the simulator run code from one compiler.
package gpuext
