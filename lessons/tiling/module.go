package tiling

import (
	_ "embed"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
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

// Module returns the lesson's kernels in both forms: CUDA C and PTX for a GPU,
// a Go mirror of every kernel for the simulator. It builds a fresh value each
// call, so callers may not disturb one another.
func Module() *gpuext.Module {
	m := &gpuext.Module{Name: "tiling", CUDA: cudaSource, PTX: ptxSource, Mirrors: map[string]gpuext.Mirror{}}
	matmul := func(name string, mk func(A, B, C *sim.F32, N int) *sim.Kernel) {
		m.Mirrors[name] = func(a sim.Args) (*sim.Kernel, error) {
			A, B, C, N, err := bindMatmul(a)
			if err != nil {
				return nil, argError(name, err)
			}
			return mk(A, B, C, N), nil
		}
	}
	matmul(KMatmulNaive, matmulNaive)
	for _, v := range []struct {
		name                 string
		bounds, sync1, sync2 bool
	}{
		{KMatmulTiled, true, true, true},
		{KMatmulTiledNoBounds, false, true, true},
		{KMatmulTiledNoSync1, true, false, true},
		{KMatmulTiledNoSync2, true, true, false},
	} {
		matmul(v.name, func(A, B, C *sim.F32, N int) *sim.Kernel {
			return matmulTiled(v.name, A, B, C, N, v.bounds, v.sync1, v.sync2)
		})
	}
	for _, c := range Coarsenings() {
		name := CoarseKernel(c)
		matmul(name, func(A, B, C *sim.F32, N int) *sim.Kernel {
			return matmulTiledCoarse(name, A, B, C, N, c)
		})
	}
	transpose := func(name string, mk func(a, c *sim.F32, m int) *sim.Kernel) {
		m.Mirrors[name] = func(args sim.Args) (*sim.Kernel, error) {
			a, err := sim.ArgBuf[float32](args, 0)
			if err != nil {
				return nil, argError(name, err)
			}
			c, err := sim.ArgBuf[float32](args, 1)
			if err != nil {
				return nil, argError(name, err)
			}
			n, err := sim.ArgInt(args, 2)
			if err != nil {
				return nil, argError(name, err)
			}
			return mk(a, c, n), nil
		}
	}
	transpose(KTransposeNaive, transposeNaive)
	transpose(KTransposeShared, func(a, c *sim.F32, n int) *sim.Kernel { return transposeShared(KTransposeShared, a, c, n, 0) })
	transpose(KTransposeSharedPadded, func(a, c *sim.F32, n int) *sim.Kernel {
		return transposeShared(KTransposeSharedPadded, a, c, n, 1)
	})
	m.Mirrors[KDenseRowCount] = func(args sim.Args) (*sim.Kernel, error) {
		M, err := sim.ArgBuf[float32](args, 0)
		if err != nil {
			return nil, argError(KDenseRowCount, err)
		}
		rows, cols, err := bindRowsCols(args)
		if err != nil {
			return nil, argError(KDenseRowCount, err)
		}
		counts, err := sim.ArgBuf[int32](args, 3)
		if err != nil {
			return nil, argError(KDenseRowCount, err)
		}
		return denseRowCount(M, rows, cols, counts), nil
	}
	m.Mirrors[KDenseToCSR] = func(args sim.Args) (*sim.Kernel, error) {
		M, err := sim.ArgBuf[float32](args, 0)
		if err != nil {
			return nil, argError(KDenseToCSR, err)
		}
		rows, cols, err := bindRowsCols(args)
		if err != nil {
			return nil, argError(KDenseToCSR, err)
		}
		rowPtr, err := sim.ArgBuf[int32](args, 3)
		if err != nil {
			return nil, argError(KDenseToCSR, err)
		}
		colIndex, err := sim.ArgBuf[int32](args, 4)
		if err != nil {
			return nil, argError(KDenseToCSR, err)
		}
		data, err := sim.ArgBuf[float32](args, 5)
		if err != nil {
			return nil, argError(KDenseToCSR, err)
		}
		return denseToCSR(M, rows, cols, rowPtr, colIndex, data), nil
	}
	for name, mk := range map[string]func(csrArgs) *sim.Kernel{
		KSpMVThread: spmvCsrThread, KSpMVWarp: spmvCsrWarp, KSpMVWarpShfl: spmvCsrWarpShfl,
	} {
		m.Mirrors[name] = func(args sim.Args) (*sim.Kernel, error) {
			a, err := bindCSR(args)
			if err != nil {
				return nil, argError(name, err)
			}
			return mk(a), nil
		}
	}
	return m
}

// bindMatmul reads (A, B, C, N), the parameters of every matmul kernel.
func bindMatmul(a sim.Args) (A, B, C *sim.F32, N int, err error) {
	if A, err = sim.ArgBuf[float32](a, 0); err != nil {
		return
	}
	if B, err = sim.ArgBuf[float32](a, 1); err != nil {
		return
	}
	if C, err = sim.ArgBuf[float32](a, 2); err != nil {
		return
	}
	N, err = sim.ArgInt(a, 3)
	return
}

func bindRowsCols(a sim.Args) (rows, cols int, err error) {
	if rows, err = sim.ArgInt(a, 1); err != nil {
		return
	}
	cols, err = sim.ArgInt(a, 2)
	return
}

// bindCSR reads (data, colIndex, rowPtr, x, y, numRows).
func bindCSR(a sim.Args) (c csrArgs, err error) {
	if c.data, err = sim.ArgBuf[float32](a, 0); err != nil {
		return
	}
	if c.colIndex, err = sim.ArgBuf[int32](a, 1); err != nil {
		return
	}
	if c.rowPtr, err = sim.ArgBuf[int32](a, 2); err != nil {
		return
	}
	if c.x, err = sim.ArgBuf[float32](a, 3); err != nil {
		return
	}
	if c.y, err = sim.ArgBuf[float32](a, 4); err != nil {
		return
	}
	c.numRows, err = sim.ArgInt(a, 5)
	return
}
