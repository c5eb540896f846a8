package spmv

import "github.com/warplab/warplab/sim"

// The Go mirrors of the three kernels in spmv.cu, for the simulator. Each
// follows its CUDA C twin line by line and makes the loads the compiled
// kernel makes: nvcc keeps rowPtr[row + 1] in a register (the pointers are
// const __restrict__), so the loop bound is one load per thread, not one per
// iteration.
//
// The Ops calls tell the time model how many non-memory instructions the
// compiled kernel issues around each load; the counts were read off the
// sm_90 SASS of spmv.cu (cuobjdump -sass, evidence/spmv-sass-sm90-h200-2026-11-29/) and
// give warp-instruction totals within about 10% of ncu's
// smsp__inst_executed.sum for the seed's matrices.
//
// unroll models how nvcc unrolled the row loop: 1 is `#pragma unroll 1`
// (each iteration one pass of one load instruction, the rules of DESIGN.md),
// 4 is nvcc's default for these loops (remainder iterations first, then
// groups of four copies of each load). Only lanes whose trip counts differ
// within a warp see a difference.

// ThreadPerRow mirrors spmvCsrThreadPerRow.
//
// Launch assumption: grid.X*block.X >= nRows, one-dimensional grid and block.
// One warp: 32 lanes own 32 consecutive rows; at step k lane L loads
// val[rowPtr[r0+L]+k], so on the even matrix the 32 addresses are 64 bytes
// apart and one request touches 32 sectors.
func ThreadPerRow(rowPtr, colIdx *sim.I32, val, x, y *sim.F32, nRows, unroll int) *sim.Kernel {
	k := sim.NewKernel("spmvCsrThreadPerRow", false)
	rowLo := k.Site("rowPtr[row]")
	rowHi := k.Site("rowPtr[row+1]")
	col := k.Site("colIdx[j]")
	vj := k.Site("val[j]")
	xg := k.Site("x[colIdx[j]]")
	yr := k.Site("y[row]")
	k.Body = func(t *sim.Thread) {
		row := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if row >= nRows {
			return
		}
		begin := int(rowPtr.LdAt(t, rowLo, row))
		end := int(rowPtr.LdAt(t, rowHi, row+1))
		t.Ops(20) // index arithmetic, bounds check
		var sum float32
		if end > begin {
			t.Ops(9) // trip count and remainder set-up
		}
		t.Unroll(unroll, end-begin)
		for j := begin; j < end; j++ {
			c := colIdx.LdAt(t, col, j)
			sum += val.LdAt(t, vj, j) * x.LdAt(t, xg, int(c))
			t.Ops(loopOps(unroll, t.InRemainder()))
			t.Next()
		}
		t.EndLoop()
		t.Ops(5)
		y.StAt(t, yr, row, sum)
	}
	return k
}

// WarpPerRow mirrors spmvCsrWarpPerRow.
//
// Launch assumption: block.X a multiple of 32 and grid.X*block.X >= 32*nRows,
// so row = t/32 is warp-uniform and every lane named in the shuffle mask
// reaches the shuffle. One warp: at step k the lanes load
// val[begin+32k+lane], 32 consecutive floats in four or five sectors; then
// five shuffles add the 32 partial sums and lane 0 stores y[row].
func WarpPerRow(rowPtr, colIdx *sim.I32, val, x, y *sim.F32, nRows, unroll int) *sim.Kernel {
	k := sim.NewKernel("spmvCsrWarpPerRow", true)
	rowLo := k.Site("rowPtr[row]")
	rowHi := k.Site("rowPtr[row+1]")
	col := k.Site("colIdx[j]")
	vj := k.Site("val[j]")
	xg := k.Site("x[colIdx[j]]")
	yr := k.Site("y[row]")
	k.Body = func(t *sim.Thread) {
		g := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		row := g / 32
		lane := t.ThreadIdx.X % 32
		if row >= nRows {
			return
		}
		end := int(rowPtr.LdAt(t, rowHi, row+1))
		begin := int(rowPtr.LdAt(t, rowLo, row)) + lane
		t.Ops(24)
		var sum float32
		trips := 0
		if end > begin {
			trips = (end - begin + 31) / 32
			t.Ops(21)
		}
		t.Unroll(unroll, trips)
		for j := begin; j < end; j += 32 {
			c := colIdx.LdAt(t, col, j)
			sum += val.LdAt(t, vj, j) * x.LdAt(t, xg, int(c))
			t.Ops(loopOps(unroll, t.InRemainder()))
			t.Next()
		}
		t.EndLoop()
		t.Ops(7)
		for offset := 16; offset > 0; offset /= 2 {
			sum += sim.ShflDownSync(t, 0xffffffff, sum, offset)
		}
		if lane == 0 {
			t.Ops(5)
			y.StAt(t, yr, row, sum)
		}
	}
	return k
}

// Probe mirrors probeNonzeroStream: a grid-stride walk over the nonzeros with
// one partial sum per thread, the best access pattern the data admits.
//
// Launch assumption: partials holds exactly grid.X*block.X values. One warp:
// 32 lanes load 32 consecutive values and column indices per step, four
// sectors each.
func Probe(colIdx *sim.I32, val, x, partials *sim.F32, nnz int) *sim.Kernel {
	k := sim.NewKernel("probeNonzeroStream", false)
	col := k.Site("colIdx[j]")
	vj := k.Site("val[j]")
	xg := k.Site("x[colIdx[j]]")
	pt := k.Site("partials[t]")
	k.Body = func(t *sim.Thread) {
		step := t.GridDim.X * t.BlockDim.X
		g := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		var sum float32
		t.Ops(12)
		for j := g; j < nnz; j += step {
			c := colIdx.LdAt(t, col, j)
			sum += val.LdAt(t, vj, j) * x.LdAt(t, xg, int(c))
			t.Ops(13) // 64-bit grid-stride index arithmetic
		}
		partials.StAt(t, pt, g, sum)
	}
	return k
}

// loopOps is the non-memory instructions one row-loop iteration issues: a
// rolled loop (unroll 1, or nvcc's remainder loop) spends about 14 on
// pointer and counter updates around its three loads; the unrolled body
// shares them between copies.
func loopOps(unroll int, remainder bool) int {
	if unroll <= 1 || remainder {
		return 14
	}
	return 3
}
