package tiling

import (
	_ "embed"
	"fmt"

	"github.com/warplab/warplab/gpuext"
)

//go:embed tiling.cu
var cudaSource string

//go:embed tiling.ptx
var ptxSource string

// CUDA returns the lesson's CUDA C source, the text students read.
func CUDA() string { return cudaSource }

// PTX returns the PTX generated from CUDA() by scripts/cuda/gen-ptx.sh; its
// first line records the source's sha256.
func PTX() string { return ptxSource }

// Kernel names, as declared extern "C" in tiling.cu.
const (
	KMatmulNaive           = "matmulNaive"
	KMatmulTiled           = "matmulTiled"
	KMatmulTiledNoBounds   = "matmulTiledNoBounds"
	KMatmulTiledNoSync1    = "matmulTiledNoSync1"
	KMatmulTiledNoSync2    = "matmulTiledNoSync2"
	KTransposeNaive        = "transposeNaive"
	KTransposeShared       = "transposeShared"
	KTransposeSharedPadded = "transposeSharedPadded"
	KDenseRowCount         = "denseRowCount"
	KDenseToCSR            = "denseToCSR"
	KSpMVThread            = "spmvCsrThread"
	KSpMVWarp              = "spmvCsrWarp"
	KSpMVWarpShfl          = "spmvCsrWarpShfl"
)

// Coarsenings returns the coarsening factors tiling.cu instantiates.
func Coarsenings() []int { return []int{1, 2, 4, 8} }

// CoarseKernel is the name of the coarsened matmul for factor c (1, 2, 4, 8).
func CoarseKernel(c int) string { return fmt.Sprintf("matmulTiledCoarse%d", c) }

// Module returns the lesson's kernels as one source for both backends: CUDA
// C and its PTX for a GPU, and the same PTX for the simulator, which executes
// it (there is no Go copy of any kernel: what the simulator counts is what
// nvcc emitted). It builds a fresh value each call, so callers may not
// disturb one another.
func Module() *gpuext.Module {
	return gpuext.NewModule("tiling", cudaSource, ptxSource)
}
