package spmv

import (
	_ "embed"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
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

// Module returns the lesson's kernels in both forms for gpuext: the CUDA C
// and its PTX for a GPU, and a Go mirror per kernel for the simulator. The
// default kernels are mirrored as nvcc compiles them (row loop unrolled by
// four, remainder first); the _unroll1 kernels with the loop rolled, where
// the simulator's counters equal Nsight Compute's exactly. Each call builds
// a new Module, so callers never share mutable state.
func Module() *gpuext.Module {
	return &gpuext.Module{
		Name: "spmv",
		CUDA: cudaSource,
		PTX:  ptxSource,
		Mirrors: map[string]gpuext.Mirror{
			KernelThreadPerRow:        rowMirror(KernelThreadPerRow, ThreadPerRow, defaultUnroll),
			KernelWarpPerRow:          rowMirror(KernelWarpPerRow, WarpPerRow, defaultUnroll),
			KernelThreadPerRowUnroll1: rowMirror(KernelThreadPerRowUnroll1, ThreadPerRow, 1),
			KernelWarpPerRowUnroll1:   rowMirror(KernelWarpPerRowUnroll1, WarpPerRow, 1),
			KernelProbe:               probeMirror,
		},
	}
}

type rowKernel func(rowPtr, colIdx *sim.I32, val, x, y *sim.F32, nRows, unroll int) *sim.Kernel

// rowMirror binds the arguments of an SpMV kernel, (rowPtr, colIdx, val, x,
// y, nRows) as in spmv.cu, and builds its mirror with the given unrolling.
func rowMirror(name string, build rowKernel, unroll int) gpuext.Mirror {
	return func(a sim.Args) (*sim.Kernel, error) {
		if len(a) != 6 {
			return nil, fmt.Errorf("%s takes 6 arguments (rowPtr, colIdx, val, x, y, nRows), got %d", name, len(a))
		}
		rowPtr, err := sim.ArgBuf[int32](a, 0)
		if err != nil {
			return nil, err
		}
		colIdx, err := sim.ArgBuf[int32](a, 1)
		if err != nil {
			return nil, err
		}
		val, err := sim.ArgBuf[float32](a, 2)
		if err != nil {
			return nil, err
		}
		x, err := sim.ArgBuf[float32](a, 3)
		if err != nil {
			return nil, err
		}
		y, err := sim.ArgBuf[float32](a, 4)
		if err != nil {
			return nil, err
		}
		nRows, err := sim.ArgInt(a, 5)
		if err != nil {
			return nil, err
		}
		if nRows < 0 || nRows >= rowPtr.Len() {
			return nil, fmt.Errorf("%s: nRows %d does not fit rowPtr of %d entries", name, nRows, rowPtr.Len())
		}
		k := build(rowPtr, colIdx, val, x, y, nRows, unroll)
		k.Name = name
		return k, nil
	}
}

// probeMirror binds (colIdx, val, x, partials, nnz) and builds Probe.
func probeMirror(a sim.Args) (*sim.Kernel, error) {
	if len(a) != 5 {
		return nil, fmt.Errorf("%s takes 5 arguments (colIdx, val, x, partials, nnz), got %d", KernelProbe, len(a))
	}
	colIdx, err := sim.ArgBuf[int32](a, 0)
	if err != nil {
		return nil, err
	}
	val, err := sim.ArgBuf[float32](a, 1)
	if err != nil {
		return nil, err
	}
	x, err := sim.ArgBuf[float32](a, 2)
	if err != nil {
		return nil, err
	}
	partials, err := sim.ArgBuf[float32](a, 3)
	if err != nil {
		return nil, err
	}
	nnz, err := sim.ArgInt(a, 4)
	if err != nil {
		return nil, err
	}
	return Probe(colIdx, val, x, partials, nnz), nil
}
