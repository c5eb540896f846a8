package spmv

import (
	_ "embed"

	"github.com/warplab/warplab/gpuext"
)

// The CUDA C students read, and the PTX scripts/cuda/gen-ptx.sh generated
// from it (nvcc 11.8, compute_75; its first line records spmv.cu's sha256,
// and TestPTXMatchesSource fails when the two drift apart).
var (
	//go:embed spmv.cu
	cudaSource string
	//go:embed spmv.ptx
	ptxSource string
)

// The kernels of spmv.cu, by the names cuModuleGetFunction looks up (they
// are extern "C", so these are also their PTX entry names).
const (
	KernelThreadPerRow        = "spmvCsrThreadPerRow"
	KernelWarpPerRow          = "spmvCsrWarpPerRow"
	KernelProbe               = "probeNonzeroStream"
	KernelThreadPerRowUnroll1 = "spmvCsrThreadPerRow_unroll1"
	KernelWarpPerRowUnroll1   = "spmvCsrWarpPerRow_unroll1"
)

// Launch shapes the lesson uses, the seed's: 256 threads (8 warps) a block,
// so warp per row covers 8 rows a block; the probe runs 8 blocks per SM.
const (
	ThreadsPerBlock   = 256
	WarpSize          = 32
	ProbeBlocksPerSM  = 8
	SeedProbeBlocks   = 320 // the seed's grid: 8 blocks per SM of a T4's 40 SMs
	seedProbeSMs      = 40
	defaultUnroll     = 4
	defaultRows       = 1 << 19
	expectedTolerance = 1e-5
)

// KernelNames lists every kernel of the module, in the order selftest runs
// them.
func KernelNames() []string {
	return []string{KernelProbe, KernelThreadPerRow, KernelWarpPerRow, KernelThreadPerRowUnroll1, KernelWarpPerRowUnroll1}
}

// Source returns spmv.cu and spmv.ptx as embedded, for notebooks that show
// the kernels and for the provenance test.
func Source() (cuda, ptx string) { return cudaSource, ptxSource }

// Module returns the lesson's kernels for gpuext: the CUDA C and its PTX.
// A GPU runs the CUDA C (a cubin when nvcc is on PATH) or the PTX; the
// simulator executes the PTX, the code nvcc emitted, so the counters follow
// the compiled control flow: the default kernels as nvcc unrolled their row
// loops (by four, remainder first), the _unroll1 kernels with the loop
// rolled, where the simulator's counters equal Nsight Compute's exactly.
// There is no Go form of these kernels and no hand instruction count. Each
// call builds a new Module, so callers never share mutable state.
func Module() *gpuext.Module {
	return gpuext.NewModule("spmv", cudaSource, ptxSource)
}
