package tiling

import (
	"fmt"

	"github.com/warplab/warplab/sim"
)

// The Go mirrors of the kernels in tiling.cu, for the simulator. Each follows
// its CUDA C twin line by line: the same index arithmetic, the same loads and
// stores (each at a labelled site, so the lesson can read the counters of
// one source line), the same barriers. Products are rounded before they are
// added, float32(a*b), which forbids the Go compiler from fusing them into an
// FMA on any architecture; tiling.cu spells the same operations __fmul_rn and
// __fadd_rn, so both forms compute the same bits.
//
// Ops calls tell the simulator's time model about the non-memory
// instructions of the compiled loop (multiply, add, index arithmetic,
// branch); they are estimates and change no counter this lesson asserts.

// Site labels the lesson and its tests read.
const (
	SiteNaiveA   = "A[row*N+k]"
	SiteNaiveB   = "B[k*N+col]"
	SiteNaiveC   = "C[row*N+col]"
	SiteTiledA   = "A[row*N+ph*TILE+tx]"
	SiteTiledB   = "B[(ph*TILE+ty)*N+col]"
	SiteTiledC   = "C[row*N+col] (tiled)"
	SiteAsSt     = "As[ty][tx]="
	SiteBsSt     = "Bs[ty][tx]="
	SiteAsLd     = "As[ty][k]"
	SiteBsLd     = "Bs[k][tx]"
	SiteTrRead   = "a[row*m+col]"
	SiteTrWrite  = "c[col*m+row]"
	SiteSmemSt   = "smem[tx][ty]="
	SiteSmemLd   = "smem[ty][tx]"
	SiteTrSRead  = "a[(tileRow+ty)*m+tileCol+tx]"
	SiteTrSWrite = "c[(tileCol+ty)*m+tileRow+tx]"
)

// matmulNaive mirrors matmulNaive.
//
// Launch assumption: any 2-D block, grid covering N x N. One warp of a
// 32-wide block: at step k, one A word (broadcast) and 32 consecutive B words.
func matmulNaive(A, B, C *sim.F32, N int) *sim.Kernel {
	k := sim.NewKernel("matmulNaive", false)
	sa, sb, sc := k.Site(SiteNaiveA), k.Site(SiteNaiveB), k.Site(SiteNaiveC)
	k.Body = func(t *sim.Thread) {
		row := t.BlockIdx.Y*t.BlockDim.Y + t.ThreadIdx.Y
		col := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if row >= N || col >= N {
			return
		}
		var acc float32
		for kk := 0; kk < N; kk++ {
			acc += float32(A.LdAt(t, sa, row*N+kk) * B.LdAt(t, sb, kk*N+col))
			t.Ops(4)
		}
		C.StAt(t, sc, row*N+col, acc)
	}
	return k
}

// matmulTiled mirrors matmulTiledBody<bounds, sync1, sync2> and its extern
// "C" wrapper called name.
//
// Launch assumption: block (TILE, TILE), grid (ceil(N/TILE), ceil(N/TILE)),
// dynamic shared memory 2*TILE*TILE floats: As is its first half, Bs the
// second, as in the CUDA C.
func matmulTiled(name string, A, B, C *sim.F32, N int, bounds, sync1, sync2 bool) *sim.Kernel {
	k := sim.NewKernel(name, true)
	sa, sb, sc := k.Site(SiteTiledA), k.Site(SiteTiledB), k.Site(SiteTiledC)
	asSt, bsSt, asLd, bsLd := k.Site(SiteAsSt), k.Site(SiteBsSt), k.Site(SiteAsLd), k.Site(SiteBsLd)
	k.Body = func(t *sim.Thread) {
		smem := sim.DynamicShared[float32](t)
		tile := t.BlockDim.X
		bs := tile * tile // Bs = smem + TILE*TILE
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		row := t.BlockIdx.Y*tile + ty
		col := t.BlockIdx.X*tile + tx
		var acc float32
		phases := N / tile
		if bounds {
			phases = (N + tile - 1) / tile
		}
		for ph := 0; ph < phases; ph++ {
			ka := ph*tile + tx
			kb := ph*tile + ty
			if bounds {
				var a, b float32
				if row < N && ka < N {
					a = A.LdAt(t, sa, row*N+ka)
				}
				smem.StAt(t, asSt, ty*tile+tx, a)
				if kb < N && col < N {
					b = B.LdAt(t, sb, kb*N+col)
				}
				smem.StAt(t, bsSt, bs+ty*tile+tx, b)
				t.Ops(6)
			} else {
				smem.StAt(t, asSt, ty*tile+tx, A.LdAt(t, sa, row*N+ka))
				smem.StAt(t, bsSt, bs+ty*tile+tx, B.LdAt(t, sb, kb*N+col))
				t.Ops(2)
			}
			if sync1 {
				t.SyncThreads()
			}
			for kk := 0; kk < tile; kk++ {
				acc += float32(smem.LdAt(t, asLd, ty*tile+kk) * smem.LdAt(t, bsLd, bs+kk*tile+tx))
				t.Ops(3)
			}
			if sync2 {
				t.SyncThreads()
			}
		}
		if !bounds || (row < N && col < N) {
			C.StAt(t, sc, row*N+col, acc)
		}
	}
	return k
}

// maxCoarse is the largest coarsening factor tiling.cu instantiates.
const maxCoarse = 8

// matmulTiledCoarse mirrors matmulTiledCoarseBody<coarse>.
//
// Launch assumption: block (TILE, TILE), TILE*coarse divides N, grid
// (N/(TILE*coarse), N/TILE), dynamic shared memory 2*TILE*TILE floats.
func matmulTiledCoarse(name string, A, B, C *sim.F32, N, coarse int) *sim.Kernel {
	k := sim.NewKernel(name, true)
	sa, sb, sc := k.Site(SiteTiledA), k.Site(SiteTiledB), k.Site(SiteTiledC)
	asSt, bsSt, asLd, bsLd := k.Site(SiteAsSt), k.Site(SiteBsSt), k.Site(SiteAsLd), k.Site(SiteBsLd)
	k.Body = func(t *sim.Thread) {
		smem := sim.DynamicShared[float32](t)
		tile := t.BlockDim.X
		bs := tile * tile
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		row := t.BlockIdx.Y*tile + ty
		col0 := t.BlockIdx.X*tile*coarse + tx
		var acc [maxCoarse]float32 // registers: COARSE is a template parameter
		for ph := 0; ph < N/tile; ph++ {
			smem.StAt(t, asSt, ty*tile+tx, A.LdAt(t, sa, row*N+ph*tile+tx))
			for c := 0; c < coarse; c++ {
				col := col0 + c*tile
				smem.StAt(t, bsSt, bs+ty*tile+tx, B.LdAt(t, sb, (ph*tile+ty)*N+col))
				t.SyncThreads()
				for kk := 0; kk < tile; kk++ {
					acc[c] += float32(smem.LdAt(t, asLd, ty*tile+kk) * smem.LdAt(t, bsLd, bs+kk*tile+tx))
					t.Ops(3)
				}
				t.SyncThreads()
			}
			t.Ops(2)
		}
		for c := 0; c < coarse; c++ {
			C.StAt(t, sc, row*N+col0+c*tile, acc[c])
		}
	}
	return k
}

// transposeNaive mirrors transposeNaive. One warp: a coalesced read of 32
// floats of a row, a write of 32 floats 4m bytes apart.
func transposeNaive(a, c *sim.F32, m int) *sim.Kernel {
	k := sim.NewKernel("transposeNaive", false)
	rd, wr := k.Site(SiteTrRead), k.Site(SiteTrWrite)
	k.Body = func(t *sim.Thread) {
		myCol := t.BlockDim.X*t.BlockIdx.X + t.ThreadIdx.X
		myRow := t.BlockDim.Y*t.BlockIdx.Y + t.ThreadIdx.Y
		if myRow < m && myCol < m {
			c.StAt(t, wr, myCol*m+myRow, a.LdAt(t, rd, myRow*m+myCol))
			t.Ops(2)
		}
	}
	return k
}

// transposeShared mirrors transposeSharedBody<pad>.
//
// Launch assumption: block (T, T), T divides m, grid (m/T, m/T), dynamic
// shared memory T*(T+pad) floats.
func transposeShared(name string, a, c *sim.F32, m, pad int) *sim.Kernel {
	k := sim.NewKernel(name, true)
	rd, wr := k.Site(SiteTrSRead), k.Site(SiteTrSWrite)
	st, ld := k.Site(SiteSmemSt), k.Site(SiteSmemLd)
	k.Body = func(t *sim.Thread) {
		smem := sim.DynamicShared[float32](t)
		T := t.BlockDim.X
		tileCol := T * t.BlockIdx.X
		tileRow := T * t.BlockIdx.Y
		tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
		smem.StAt(t, st, tx*(T+pad)+ty, a.LdAt(t, rd, (tileRow+ty)*m+tileCol+tx))
		t.Ops(3)
		t.SyncThreads()
		c.StAt(t, wr, (tileCol+ty)*m+tileRow+tx, smem.LdAt(t, ld, ty*(T+pad)+tx))
		t.Ops(3)
	}
	return k
}

// denseRowCount mirrors denseRowCount: one thread scans one row.
func denseRowCount(M *sim.F32, rows, cols int, counts *sim.I32) *sim.Kernel {
	k := sim.NewKernel("denseRowCount", false)
	ld, st := k.Site("M[r*cols+j]"), k.Site("counts[r]")
	k.Body = func(t *sim.Thread) {
		r := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if r >= rows {
			return
		}
		n := int32(0)
		for j := 0; j < cols; j++ {
			if M.LdAt(t, ld, r*cols+j) != 0 {
				n++
			}
			t.Ops(3)
		}
		counts.StAt(t, st, r, n)
	}
	return k
}

// denseToCSR mirrors denseToCSR: the same walk, writing from rowPtr[r] on.
func denseToCSR(M *sim.F32, rows, cols int, rowPtr, colIndex *sim.I32, data *sim.F32) *sim.Kernel {
	k := sim.NewKernel("denseToCSR", false)
	rp, ld := k.Site("rowPtr[r]"), k.Site("M[r*cols+j]")
	sc, sd := k.Site("colIndex[out]"), k.Site("data[out]")
	k.Body = func(t *sim.Thread) {
		r := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if r >= rows {
			return
		}
		out := int(rowPtr.LdAt(t, rp, r))
		for j := 0; j < cols; j++ {
			v := M.LdAt(t, ld, r*cols+j)
			if v != 0 {
				colIndex.StAt(t, sc, out, int32(j))
				data.StAt(t, sd, out, v)
				out++
			} else {
				// Predicated off for this iteration: the warp's stores
				// pair by iteration j, not by each lane's count of stores.
				colIndex.SkipSt(t, sc)
				data.SkipSt(t, sd)
			}
			t.Ops(3)
		}
	}
	return k
}

// csrArgs are the buffers every SpMV kernel takes, in CUDA order.
type csrArgs struct {
	data     *sim.F32
	colIndex *sim.I32
	rowPtr   *sim.I32
	x, y     *sim.F32
	numRows  int
}

// spmvSites are the labelled sites shared by the three SpMV mirrors.
type spmvSites struct{ lo, hi, col, x, d, yl, ys sim.Site }

func declareSpMVSites(k *sim.Kernel) spmvSites {
	return spmvSites{
		lo: k.Site("rowPtr[row]"), hi: k.Site("rowPtr[row+1]"),
		col: k.Site("colIndex[elem]"), x: k.Site("x[colIndex[elem]]"), d: k.Site("data[elem]"),
		yl: k.Site("y[row] ld"), ys: k.Site("y[row] st"),
	}
}

// spmvCsrThread mirrors spmvCsrThread: one thread per row. nvcc loads both
// row bounds once (the pointers are const __restrict__).
func spmvCsrThread(a csrArgs) *sim.Kernel {
	k := sim.NewKernel("spmvCsrThread", false)
	s := declareSpMVSites(k)
	k.Body = func(t *sim.Thread) {
		row := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if row < a.numRows {
			var dot float32
			start := int(a.rowPtr.LdAt(t, s.lo, row))
			end := int(a.rowPtr.LdAt(t, s.hi, row+1))
			// The rules' pairing (one load instruction per iteration). nvcc
			// unrolls this loop; on the H200 ncu counted 9% more requests
			// than this (evidence/tiling-ncu-256-h200-2026-11-29/README.md).
			for elem := start; elem < end; elem++ {
				c := a.colIndex.LdAt(t, s.col, elem)
				dot += float32(a.x.LdAt(t, s.x, int(c)) * a.data.LdAt(t, s.d, elem))
				t.Ops(3)
			}
			a.y.StAt(t, s.ys, row, a.y.LdAt(t, s.yl, row)+dot)
		}
	}
	return k
}

// spmvCsrWarp mirrors spmvCsrWarp: one warp per row, partial sums added by a
// shared-memory tree with a barrier after every step.
//
// Launch assumption: blockDim.x a multiple of 32, dynamic shared memory
// blockDim.x floats.
func spmvCsrWarp(a csrArgs) *sim.Kernel {
	k := sim.NewKernel("spmvCsrWarp", true)
	s := declareSpMVSites(k)
	pst, pl1, pl2 := k.Site("part[tid]="), k.Site("part[tid]"), k.Site("part[tid+s]")
	pst2 := k.Site("part[tid]+=")
	pfin := k.Site("part[tid] (lane 0)")
	k.Body = func(t *sim.Thread) {
		part := sim.DynamicShared[float32](t)
		tid := t.ThreadIdx.X
		lane := tid % 32
		warpInBlock := tid / 32
		row := t.BlockIdx.X*(t.BlockDim.X/32) + warpInBlock
		var dot float32
		if row < a.numRows {
			end := int(a.rowPtr.LdAt(t, s.hi, row+1))
			for elem := int(a.rowPtr.LdAt(t, s.lo, row)) + lane; elem < end; elem += 32 {
				c := a.colIndex.LdAt(t, s.col, elem)
				dot += float32(a.x.LdAt(t, s.x, int(c)) * a.data.LdAt(t, s.d, elem))
				t.Ops(3)
			}
		}
		part.StAt(t, pst, tid, dot)
		t.SyncThreads()
		for st := 16; st > 0; st /= 2 {
			if lane < st {
				part.StAt(t, pst2, tid, part.LdAt(t, pl1, tid)+part.LdAt(t, pl2, tid+st))
			}
			t.Ops(3)
			t.SyncThreads()
		}
		if lane == 0 && row < a.numRows {
			a.y.StAt(t, s.ys, row, a.y.LdAt(t, s.yl, row)+part.LdAt(t, pfin, tid))
		}
	}
	return k
}

// spmvCsrWarpShfl mirrors spmvCsrWarpShfl: the same tree in registers.
//
// Launch assumption: blockDim.x a multiple of 32; row is warp-uniform.
func spmvCsrWarpShfl(a csrArgs) *sim.Kernel {
	k := sim.NewKernel("spmvCsrWarpShfl", true)
	s := declareSpMVSites(k)
	k.Body = func(t *sim.Thread) {
		lane := t.ThreadIdx.X % 32
		row := (t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X) / 32
		if row >= a.numRows {
			return
		}
		var dot float32
		end := int(a.rowPtr.LdAt(t, s.hi, row+1))
		for elem := int(a.rowPtr.LdAt(t, s.lo, row)) + lane; elem < end; elem += 32 {
			c := a.colIndex.LdAt(t, s.col, elem)
			dot += float32(a.x.LdAt(t, s.x, int(c)) * a.data.LdAt(t, s.d, elem))
			t.Ops(3)
		}
		for st := 16; st > 0; st /= 2 {
			dot += sim.ShflDownSync(t, 0xffffffff, dot, st)
			t.Ops(1)
		}
		if lane == 0 {
			a.y.StAt(t, s.ys, row, a.y.LdAt(t, s.yl, row)+dot)
		}
	}
	return k
}

// argError names the kernel whose arguments did not bind.
func argError(kernel string, err error) error {
	return fmt.Errorf("tiling: kernel %s: %w", kernel, err)
}
