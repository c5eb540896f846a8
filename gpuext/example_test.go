package gpuext_test

import (
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// scaleCU is the CUDA form of the example's kernel.
//
// Launch assumptions: one thread per element, 1-D; threads past n idle.
// One warp scales 32 consecutive floats: one 128-byte load, one store.
const scaleCU = `extern "C" __global__ void scale(int n, float a, float *v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = a * v[i];
}
`

// scaleMirror is scale's Go form: arguments bound once, then the body per thread.
func scaleMirror(a sim.Args) (*sim.Kernel, error) {
	n, err := sim.ArgInt(a, 0)
	if err != nil {
		return nil, err
	}
	f, err := sim.ArgF32(a, 1)
	if err != nil {
		return nil, err
	}
	v, err := sim.ArgBuf[float32](a, 2)
	if err != nil {
		return nil, err
	}
	k := sim.NewKernel("scale", false)
	k.Body = func(t *sim.Thread) {
		if i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X; i < n {
			v.St(t, i, f*v.Ld(t, i))
		}
	}
	return k, nil
}

// The notebook pattern: open, upload, launch, download, time.
func Example() {
	dev, err := gpuext.Open("sim:t4") // "auto" in a notebook
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()

	mod := &gpuext.Module{Name: "scale", CUDA: scaleCU, Mirrors: map[string]gpuext.Mirror{"scale": scaleMirror}}
	host := []float32{1, 2, 3, 4}
	v, err := gpuext.Upload(dev, "v", host)
	if err != nil {
		fmt.Println(err)
		return
	}
	launch := func() error {
		_, err := dev.Launch(mod, "scale", sim.Dim1(1), sim.Dim1(256), 0, int32(len(host)), float32(2), v)
		return err
	}
	if err := launch(); err != nil {
		fmt.Println(err)
		return
	}
	if err := v.Download(host); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dev.Name(), host)

	t, err := dev.Time(launch, gpuext.DefaultWarmups, gpuext.DefaultRuns)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Kind, t.MeanMs > 0)

	_, err = dev.Launch(mod, "scale", sim.Dim1(1), sim.Dim1(2048), 0, int32(len(host)), float32(2), v)
	fmt.Println(err)
	// Output:
	// simulated Tesla T4 (modeled) [2 4 6 8]
	// modeled true
	// gpuext: Launch scale.scale<<<grid (1,1,1), block (2048,1,1), shared 0 B>>>: a block of (2048,1,1) is 2048 threads, but Tesla T4 allows at most 1024 threads per block; use fewer threads per block and more blocks (for n items: block sim.Dim1(256), grid sim.Dim1((n+255)/256))
}
