package gpuext_test

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/warplab/warplab/gpuext"
)

// A lesson's kernels: CUDA C, and the PTX scripts/cuda/gen-ptx.sh made
// from it, embedded. testdata/kernels.cu holds
//
//	extern "C" __global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
//	    int i = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (i < n) y[i] = a * x[i] + y[i];
//	}
var (
	//go:embed testdata/kernels.cu
	kernelsCU string
	//go:embed testdata/kernels.ptx
	kernelsPTX string
)

// The lesson pattern: open, find the kernel once, upload, launch, check
// against the CPU, time.
func Example() {
	dev, err := gpuext.Open("sim:t4") // "auto" in a notebook
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()

	saxpy, err := gpuext.NewModule("kernels", kernelsCU, kernelsPTX).Kernel("saxpy")
	if err != nil {
		fmt.Println(err)
		return
	}
	hx, hy := []float32{1, 2, 3, 4}, []float32{10, 20, 30, 40}
	x, err := gpuext.Upload(dev, "x", hx)
	if err != nil {
		fmt.Println(err)
		return
	}
	y, err := gpuext.Upload(dev, "y", hy)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	launch := func() error {
		_, err := dev.Launch(ctx, saxpy, gpuext.Config{Grid: 1, Block: 256}, int32(len(hx)), float32(2), x, y)
		return err
	}
	if err := launch(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dev.Name(), gpuext.Check(y, func(i int) float32 { return 2*hx[i] + hy[i] }))

	t, err := dev.Time(launch, gpuext.DefaultWarmups, gpuext.DefaultRuns)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Kind, t.MeanMs > 0)

	_, err = dev.Launch(ctx, saxpy, gpuext.Config{Grid: 1, Block: 2048}, int32(len(hx)), float32(2), x, y)
	fmt.Println(err)
	// Output:
	// simulated Tesla T4 (modeled) <nil>
	// modeled true
	// gpuext: Launch kernels.saxpy<<<grid (1,1,1), block (2048,1,1), shared 0 B>>>: a block of (2048,1,1) is 2048 threads, but Tesla T4 allows at most 1024 threads per block; use fewer threads per block and more blocks (for n items: Config{Grid: (n + 255) / 256, Block: 256})
}
