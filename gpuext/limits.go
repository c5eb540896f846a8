package gpuext

import (
	"fmt"

	"github.com/warplab/warplab/sim"
)

// limits are what a launch configuration must respect on one device.
type limits struct {
	device             string
	maxThreadsPerBlock int
	maxBlock           sim.Dim3 // per-dimension block limits
	maxGrid            sim.Dim3 // per-dimension grid limits
	sharedPerBlock     int      // bytes of dynamic shared memory a block may ask for
}

// cudaMax* are the limits every GPU since compute capability 3.0 shares.
var (
	cudaMaxBlock = sim.Dim3{X: 1024, Y: 1024, Z: 64}
	cudaMaxGrid  = sim.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535}
)

func simLimits(m sim.Model) limits {
	tpb := 1024
	if m.MaxThreadsPerBlock > 0 && m.MaxThreadsPerBlock < tpb {
		tpb = m.MaxThreadsPerBlock
	}
	return limits{
		device:             m.Name,
		maxThreadsPerBlock: tpb,
		maxBlock:           cudaMaxBlock,
		maxGrid:            cudaMaxGrid,
		sharedPerBlock:     m.SharedPerBlock,
	}
}

// validate explains, in a student's terms, why the hardware would refuse a
// launch configuration, before anything is launched.
func (l limits) validate(grid, block sim.Dim3, sharedBytes int) error {
	for _, s := range []struct {
		what string
		d    sim.Dim3
	}{{"grid", grid}, {"block", block}} {
		if s.d.X < 1 || s.d.Y < 1 || s.d.Z < 1 {
			return fmt.Errorf("%s %v has a dimension below 1, but every grid and block dimension must be at least 1 "+
				"(a struct literal like sim.Dim3{X: n} leaves Y and Z at 0; write an int for one dimension, or sim.Dim2(x, y))", s.what, s.d)
		}
	}
	if n := block.X * block.Y * block.Z; n > l.maxThreadsPerBlock {
		return fmt.Errorf("a block of %v is %d threads, but %s allows at most %d threads per block; "+
			"use fewer threads per block and more blocks (for n items: Config{Grid: (n + 255) / 256, Block: 256})",
			block, n, l.device, l.maxThreadsPerBlock)
	}
	axes := []string{"x", "y", "z"}
	bv := []int{block.X, block.Y, block.Z}
	bm := []int{l.maxBlock.X, l.maxBlock.Y, l.maxBlock.Z}
	gv := []int{grid.X, grid.Y, grid.Z}
	gm := []int{l.maxGrid.X, l.maxGrid.Y, l.maxGrid.Z}
	for i, a := range axes {
		if bv[i] > bm[i] {
			return fmt.Errorf("block %v is %d threads along %s, but a block may be at most %d along %s",
				block, bv[i], a, bm[i], a)
		}
	}
	for i, a := range axes {
		if gv[i] > gm[i] {
			hint := ""
			if i > 0 {
				hint = "; put the large dimension in x, which allows up to 2147483647 blocks"
			}
			return fmt.Errorf("grid %v is %d blocks along %s, but a grid may be at most %d along %s%s",
				grid, gv[i], a, gm[i], a, hint)
		}
	}
	if sharedBytes < 0 {
		return fmt.Errorf("dynamic shared memory of %d bytes is negative", sharedBytes)
	}
	if sharedBytes > l.sharedPerBlock {
		return fmt.Errorf("the launch asks for %d bytes (%s) of dynamic shared memory per block, but a block may use at most %d bytes (%s) on %s; "+
			"use a smaller tile or fewer threads per block",
			sharedBytes, human(int64(sharedBytes)), l.sharedPerBlock, human(int64(l.sharedPerBlock)), l.device)
	}
	return nil
}
