package sweep

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/cg"
	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/lessons/tiling"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sparse"
	"github.com/warplab/warplab/sparse/gen"
)

// The tiling lesson's launch shapes the sweep uses: its default TILE for
// the products and its transpose tile.
const (
	MatmulTile    = 16
	MatmulCoarse  = 4
	TransposeTile = 32
)

// squarePair is two random n x n matrices.
type squarePair struct{ a, b []float32 }

func matmulFamily() Family {
	f := Family{Name: "matmul", Doc: "the tiling lesson's products: naive, tiled (TILE 16) and tiled with 4 outputs a thread, N x N"}
	kernels := []string{tiling.KMatmulNaive, tiling.KMatmulTiled, tiling.CoarseKernel(MatmulCoarse)}
	for i, n := range tilingN {
		f.Inputs = append(f.Inputs, Input{
			Family: f.Name, Name: fmt.Sprintf("N=%d", n), Size: n, SizeUnit: "N", Rank: i, Kernels: kernels,
			Work: 3 * 10 * float64(n) * float64(n) * float64(n),
			prepare: func(context.Context) (any, error) {
				return squarePair{randFloats(n*n, 1, -1, 1), randFloats(n*n, 2, -1, 1)}, nil
			},
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindMatmul(dev, n, data.(squarePair))
			},
		})
	}
	return f
}

func bindMatmul(dev *gpuext.Device, n int, p squarePair) (*bound, error) {
	b := newBound(fmt.Sprintf("%dx%d float32 matrices, values in [-1, 1), seeds 1 and 2", n, n))
	A, err := upload(b, dev, "A", p.a)
	if err != nil {
		return nil, err
	}
	B, err := upload(b, dev, "B", p.b)
	if err != nil {
		return nil, err
	}
	C, err := alloc[float32](b, dev, "C", n*n)
	if err != nil {
		return nil, err
	}
	m := tiling.Module()
	for _, k := range []struct {
		name   string
		coarse int
	}{{tiling.KMatmulNaive, 1}, {tiling.KMatmulTiled, 1}, {tiling.CoarseKernel(MatmulCoarse), MatmulCoarse}} {
		grid := sim.Dim2((n+MatmulTile*k.coarse-1)/(MatmulTile*k.coarse), (n+MatmulTile-1)/MatmulTile)
		block := sim.Dim2(MatmulTile, MatmulTile)
		shared := 2 * MatmulTile * MatmulTile * 4
		if k.name == tiling.KMatmulNaive {
			shared = 0
		}
		b.add(k.name, launchConfig(grid, block, shared), func(ctx context.Context) (*gpuext.Launch, error) {
			return b.launchOn(ctx, dev, m, k.name, grid, block, shared, A, B, C, int32(n))
		}, func() (string, error) {
			c, err := download(C)
			if err != nil {
				return "", err
			}
			return checkProduct(p.a, p.b, c, n)
		})
		b.reset[k.name] = func() error { return C.Fill(0) }
	}
	return b, nil
}

func transposeFamily() Family {
	f := Family{Name: "transpose", Doc: "the tiling lesson's transposes: naive, through a 32x32 shared tile, and the padded tile, N x N"}
	kernels := []string{tiling.KTransposeNaive, tiling.KTransposeShared, tiling.KTransposeSharedPadded}
	for i, n := range tilingN {
		f.Inputs = append(f.Inputs, Input{
			Family: f.Name, Name: fmt.Sprintf("N=%d", n), Size: n, SizeUnit: "N", Rank: i, Kernels: kernels,
			Work:    3 * 12 * float64(n) * float64(n),
			prepare: func(context.Context) (any, error) { return randFloats(n*n, 3, -1, 1), nil },
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindTranspose(dev, n, data.([]float32))
			},
		})
	}
	return f
}

func bindTranspose(dev *gpuext.Device, n int, a []float32) (*bound, error) {
	b := newBound(fmt.Sprintf("%dx%d float32 matrix, values in [-1, 1), seed 3", n, n))
	A, err := upload(b, dev, "a", a)
	if err != nil {
		return nil, err
	}
	C, err := alloc[float32](b, dev, "c", n*n)
	if err != nil {
		return nil, err
	}
	m := tiling.Module()
	T := TransposeTile
	grid, block := sim.Dim2(n/T, n/T), sim.Dim2(T, T)
	for _, k := range []struct {
		name   string
		shared int
	}{{tiling.KTransposeNaive, 0}, {tiling.KTransposeShared, T * T * 4}, {tiling.KTransposeSharedPadded, T * (T + 1) * 4}} {
		b.add(k.name, launchConfig(grid, block, k.shared), func(ctx context.Context) (*gpuext.Launch, error) {
			return b.launchOn(ctx, dev, m, k.name, grid, block, k.shared, A, C, int32(n))
		}, func() (string, error) {
			c, err := download(C)
			if err != nil {
				return "", err
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if c[j*n+i] != a[i*n+j] {
						return "", fmt.Errorf("c[%d][%d] = %g, want a[%d][%d] = %g", j, i, c[j*n+i], i, j, a[i*n+j])
					}
				}
			}
			return "all entries equal the CPU transpose", nil
		})
		b.reset[k.name] = func() error { return C.Fill(0) }
	}
	return b, nil
}

// spmvData is a generated matrix and its x.
type spmvData struct {
	m *sparse.CSR
	x []float32
}

func spmvInput(matrix string, rows int) Input {
	kernels := []string{spmv.KernelThreadPerRow, spmv.KernelWarpPerRow}
	// Mean entries a row of each family, for the budget only.
	mean := map[string]float64{"uniform": 16, "banded": 17, "denserows": 3 + 4, "blockdiag": 32, "road": 3,
		"stencil27": 27, "powerlaw15": 10, "powerlaw20": 10, "powerlaw25": 10, "powerlaw20c": 10}[matrix]
	return Input{
		Name: fmt.Sprintf("%s rows", pow2(rows)), Size: rows, SizeUnit: "rows", Kernels: kernels,
		Work: float64(rows) * (mean*8*2 + 32*20),
		prepare: func(context.Context) (any, error) {
			f, err := gen.Lookup(matrix)
			if err != nil {
				return nil, err
			}
			m, err := f.Generate(rows, 1)
			if err != nil {
				return nil, err
			}
			return spmvData{m, randFloats(m.Cols, 4, 0.5, 1.5)}, nil
		},
		bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
			return bindSpMV(dev, matrix, data.(spmvData))
		},
	}
}

// keptRows is how many of a matrix's longest rows a sampled SpMV launch
// runs as themselves (bound.keep): more than a matrix family has dense
// rows (denserows has 4), few enough to cost little.
const keptRows = 16

func bindSpMV(dev *gpuext.Device, matrix string, d spmvData) (*bound, error) {
	m := d.m
	b := newBound(fmt.Sprintf("sparse/gen %s, seed 1: %s; x in [0.5, 1.5), seed 4", matrix, gen.Describe(m)))
	rp, err := upload(b, dev, "rowPtr", m.RowPtr)
	if err != nil {
		return nil, err
	}
	ci, err := upload(b, dev, "colIdx", m.ColIdx)
	if err != nil {
		return nil, err
	}
	val, err := upload(b, dev, "val", m.Val)
	if err != nil {
		return nil, err
	}
	x, err := upload(b, dev, "x", d.x)
	if err != nil {
		return nil, err
	}
	y, err := alloc[float32](b, dev, "y", m.Rows)
	if err != nil {
		return nil, err
	}
	mod := spmv.Module()
	// A sampled launch also runs the blocks of the longest rows: one of
	// them sets a skewed matrix's end (sim.PTXOptions.SampleKeep).
	longest := m.LongestRows(keptRows)
	for _, k := range []string{spmv.KernelThreadPerRow, spmv.KernelWarpPerRow} {
		threads, rowsPerBlock := m.Rows, spmv.ThreadsPerBlock
		if k == spmv.KernelWarpPerRow {
			threads, rowsPerBlock = m.Rows*spmv.WarpSize, spmv.ThreadsPerBlock/spmv.WarpSize
		}
		grid, block := sim.Dim1(max(1, (threads+spmv.ThreadsPerBlock-1)/spmv.ThreadsPerBlock)), sim.Dim1(spmv.ThreadsPerBlock)
		for _, r := range longest {
			b.keep[k] = append(b.keep[k], r/rowsPerBlock)
		}
		b.add(k, launchConfig(grid, block, 0), func(ctx context.Context) (*gpuext.Launch, error) {
			return b.launchOn(ctx, dev, mod, k, grid, block, 0, rp, ci, val, x, y, uint64(m.Rows))
		}, func() (string, error) {
			got, err := download(y)
			if err != nil {
				return "", err
			}
			for r := 0; r < m.Rows; r++ {
				var want, scale float64
				for j := m.RowPtr[r]; j < m.RowPtr[r+1]; j++ {
					p := float64(m.Val[j]) * float64(d.x[m.ColIdx[j]])
					want += p
					scale += p
				}
				if !closeToSum(got[r], want, scale, m.RowLen(r)) {
					return "", fmt.Errorf("y[%d] = %g, CPU reference %g", r, got[r], want)
				}
			}
			return fmt.Sprintf("all %d rows within max(%.0e, (row length-1)·2^-24) of the CPU reference", m.Rows, relTol), nil
		})
		b.reset[k] = func() error { return y.Fill(0) }
	}
	return b, nil
}

// CGStage is the CG lesson's stage the sweep times: GPU-resident, with the
// coalesced (subwarp) SpMV.
const CGStage = 5

func cgFamily() Family {
	f := Family{Name: "cg", Doc: fmt.Sprintf("the CG lesson's stage %d kernels (spmv, waxpby, ddot) per call, on HPCCG's 27-point problem", CGStage)}
	for i, n := range cgGrids {
		rows := float64(n * n * n)
		f.Inputs = append(f.Inputs, Input{
			Family: f.Name, Name: fmt.Sprintf("%d³", n), Size: n, SizeUnit: "grid edge", Rank: i,
			Kernels: []string{cg.KernelSpMV, cg.KernelWaxpby, cg.KernelDdot},
			// Two iterations, each an SpMV, three waxpbys, two ddots.
			Work: 2 * rows * (27*8 + 3*10 + 2*20),
			prepare: func(ctx context.Context) (any, error) {
				return cg.GenerateContext(ctx, cg.Cube(n), cg.GenOptions{MaxBytes: -1})
			},
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindCG(n, data.(*cg.Problem)), nil
			},
		})
	}
	return f
}

// bindCG runs the lesson's stage on the device: a solve of two iterations
// (HPCCG's max_iter 2; every call of a kernel in the loop reads and writes
// the same sizes, so two give the per-call time of all), with the lesson's
// per-kernel event replays (3 warm-ups, 10 runs) on a GPU.
func bindCG(n int, p *cg.Problem) *bound {
	b := newBound(fmt.Sprintf("HPCCG's 27-point problem on a %d³ grid: %d rows, %d entries", n, p.A.Rows, p.A.NNZ()))
	b.timed = func(ctx context.Context, dev *gpuext.Device) ([]Record, error) {
		res, err := cg.RunStageContext(ctx, dev, p, CGStage, cg.RunOptions{MaxIter: 2,
			EventWarmups: gpuext.DefaultWarmups, EventRuns: gpuext.DefaultRuns})
		if err != nil {
			return nil, err
		}
		check := fmt.Sprintf("solve of 2 iterations: true residual %.3g (the lesson's own check)", res.TrueResidual)
		var out []Record
		for _, name := range []string{cg.KernelSpMV, cg.KernelWaxpby, cg.KernelDdot} {
			k, ok := res.Kernel(name)
			if !ok || k.Calls == 0 {
				return nil, fmt.Errorf("cg %d³: stage %d ran no %s", n, CGStage, name)
			}
			ms := k.Seconds / float64(k.Calls) * 1e3
			r := Record{Kernel: name, MeanMs: ms, MedianMs: ms, MinMs: ms, Check: check,
				Config: fmt.Sprintf("stage %d, launches a call: %.3g", CGStage, float64(k.Launches)/float64(k.Calls)),
				Bound:  "per call"}
			if k.Where == cg.WhereSim {
				r.GPUMs = k.GPUSeconds / float64(k.Calls) * 1e3
			}
			out = append(out, r)
		}
		return out, nil
	}
	return b
}

// Modules returns the modules the sweep launches from: the own kernels and
// the tiling, SpMV and CG lessons'.
func Modules() []*gpuext.Module {
	return []*gpuext.Module{Module(), tiling.Module(), spmv.Module(), cg.Module()}
}
