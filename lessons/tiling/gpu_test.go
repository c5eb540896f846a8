package tiling

import (
	"context"
	"os"
	"testing"

	"github.com/warplab/warplab/gpuext"
)

// TestGPU runs the CUDA C forms on a real GPU, when this test binary was
// built with the cuda tag and one answers: every kernel's output must equal
// the same CPU reference the simulator is held to, bit for bit (the
// __fmul_rn/__fadd_rn spelling makes that possible), including the
// bounds-checked tiled kernel at a ragged N. Elsewhere it skips.
func TestGPU(t *testing.T) {
	dev, err := gpuext.Open("gpu")
	if err != nil {
		t.Skipf("no GPU backend or GPU: %v", err)
	}
	defer dev.Close()
	res, err := Run(context.Background(), dev, Options{N: 512, Tile: 16, Coarse: 4, NoDemos: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.WriteText(os.Stdout); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if !r.Correct || !r.BitIdentical || r.TimeKind != gpuext.Measured {
			t.Errorf("%s on %s: correct %v, bit-identical %v, time %s", r.Kernel, dev.Name(), r.Correct, r.BitIdentical, r.TimeKind)
		}
	}
	for _, c := range []struct {
		kernel          string
		n, tile, coarse int
	}{
		{KMatmulTiled, 1000, 16, 1},
		{KMatmulTiled, 1000, 32, 1},
		{KMatmulTiled, 333, 8, 1},
		{KMatmulNaive, 333, 16, 1},
		{CoarseKernel(8), 512, 32, 8},
	} {
		got, want, _, err := launchMatmul(t, dev, c.kernel, c.n, c.tile, c.coarse)
		if err != nil {
			t.Fatalf("%s N=%d TILE=%d: %v", c.kernel, c.n, c.tile, err)
		}
		if ok, i := equal(got, want); !ok {
			t.Errorf("GPU %s N=%d TILE=%d: C[%d] = %v, CPU %v", c.kernel, c.n, c.tile, i, got[i], want[i])
		} else {
			t.Logf("GPU %s N=%d TILE=%d COARSE=%d: bit-identical to the CPU", c.kernel, c.n, c.tile, c.coarse)
		}
	}
}
