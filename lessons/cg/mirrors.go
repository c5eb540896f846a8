package cg

import (
	"fmt"

	"github.com/warplab/warplab/sim"
)

// The Go mirrors of the kernels in cg.cu, for the simulator. Each follows its
// CUDA C twin line by line, with the same names, and makes the loads the
// compiled kernel makes (DESIGN.md, "Simulator semantics"):
//
//   - every product is float64(a*b) and every sum a separate +, the Go
//     spelling of __dmul_rn and __dadd_rn: a conversion rounds the product
//     and forbids the compiler to fuse it into an FMA, so a mirror computes
//     the CUDA kernel's bits and, where the order of operations is HPCCG's,
//     the CPU's bits (spmvRows, waxpby and ddot in kernels.go);
//   - loads through const __restrict__ pointers that nvcc keeps in a register
//     (rowPtr[row + 1] as the loop bound) are one load per thread;
//   - t.Ops counts the non-memory instructions the time model needs: a rough
//     count from the PTX (index arithmetic, the multiply and add, the
//     branch), not an exact one.
//
// Each constructor binds buffers and scalars once and returns the per-thread
// kernel; the Mirror functions in module.go read them from a launch's
// arguments.

// Unroll factors of the thread-per-row SpMV mirrors. nvcc -O3 unrolls the
// row loop of spmvCsrThreadPerRow by four and runs the remainder (trips mod
// 4) first, as cg.ptx shows (`and.b32 %r23, %r14, 3`, then a block of four
// copies of each load); spmvCsrThreadPerRowUnroll1 keeps it rolled.
const (
	unrollDefault = 4
	unrollNone    = 1
)

// dotThreads is CG_DOT_THREADS: the block size of both ddot passes and the
// size of their shared tree. It is part of the result, because the tree's
// shape is the order of the additions.
const dotThreads = 256

// dotBlocks is the grid of ddotPartial. It is a constant, not a multiple of
// the GPU's SM count, so that a dot product has the same bits on every GPU
// and on the simulator; 256 blocks × 256 threads cover 65,536 elements per
// grid-stride step, enough to fill an H200 (132 SMs × 2048 threads =
// 270,336 is reached by four steps of the stride loop at 100³). ddotFinal
// then adds exactly one partial per thread.
const dotBlocks = 256

// spmvThreadPerRowMirror mirrors spmvCsrThreadPerRow (unroll 4) and
// spmvCsrThreadPerRowUnroll1 (unroll 1).
//
// Launch assumption: grid.X*block.X >= n. One warp: 32 lanes own 32
// consecutive rows; at step k lane L loads cols[rowPtr[r0+L]+k] and
// vals[rowPtr[r0+L]+k], 27 entries (216 bytes of vals) apart from its
// neighbour, so one request touches about 32 sectors of vals and 14 to 32 of
// cols; x[cols[j]] of neighbouring rows are neighbours, so the gather costs
// few sectors.
func spmvThreadPerRowMirror(name string, n int, rowPtr, cols *sim.I32, vals, x, y *sim.F64, unroll int) *sim.Kernel {
	k := sim.NewKernel(name, false)
	rowLo := k.Site("rowPtr[row]")
	rowHi := k.Site("rowPtr[row+1]")
	colJ := k.Site("cols[j]")
	valJ := k.Site("vals[j]")
	xg := k.Site("x[cols[j]]")
	yr := k.Site("y[row]")
	k.Body = func(t *sim.Thread) {
		row := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if row < n {
			sum := 0.0
			end := int(rowPtr.LdAt(t, rowHi, row+1))
			begin := int(rowPtr.LdAt(t, rowLo, row))
			t.Ops(6) // row index, bounds, the two row pointers' addresses
			t.Unroll(unroll, max(end-begin, 0))
			for j := begin; j < end; j++ {
				c := cols.LdAt(t, colJ, j)
				sum += float64(vals.LdAt(t, valJ, j) * x.LdAt(t, xg, int(c)))
				t.Ops(4) // address of x, mul, add, loop branch
				t.Next()
			}
			t.EndLoop()
			y.StAt(t, yr, row, sum)
		}
	}
	return k
}

// spmvSubwarpMirror mirrors spmvCsrSubwarp: threadsPerRow consecutive lanes
// per row.
//
// Launch assumptions: threadsPerRow a power of two from 1 to 32, block.X a
// multiple of 32, grid.X*block.X >= n*threadsPerRow. One warp,
// threadsPerRow = 4: eight rows at once; at step k the four lanes of a group
// load four consecutive vals (32 bytes, one sector when aligned) and the
// eight groups read eight neighbouring rows, which sit next to each other in
// memory, so a request touches about 9 to 16 sectors instead of
// thread-per-row's 32.
//
// The shuffle: CUDA's __shfl_down_sync with width threadsPerRow keeps a
// lane from reading across its group; sim.ShflDownSync has no width. The
// group's first lane, whose sum is the only one written, reads lanes g+o
// with g < o at every step o = threadsPerRow/2, ..., 1, all inside its
// group, so its result is the same with or without the width; the other
// lanes' sums, which may mix groups here, are never used.
func spmvSubwarpMirror(n, threadsPerRow int, rowPtr, cols *sim.I32, vals, x, y *sim.F64) (*sim.Kernel, error) {
	if threadsPerRow < 1 || threadsPerRow > 32 || threadsPerRow&(threadsPerRow-1) != 0 {
		return nil, fmt.Errorf("cg: spmvCsrSubwarp: threadsPerRow %d is not a power of two from 1 to 32", threadsPerRow)
	}
	k := sim.NewKernel("spmvCsrSubwarp", true)
	rowLo := k.Site("rowPtr[row]")
	rowHi := k.Site("rowPtr[row+1]")
	colJ := k.Site("cols[j]")
	valJ := k.Site("vals[j]")
	xg := k.Site("x[cols[j]]")
	yr := k.Site("y[row]")
	k.Body = func(t *sim.Thread) {
		tid := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		row := tid / threadsPerRow
		g := tid % threadsPerRow
		begin, end := 0, 0
		if row < n {
			begin = int(rowPtr.LdAt(t, rowLo, row))
			end = int(rowPtr.LdAt(t, rowHi, row+1))
		}
		t.Ops(8) // the division and remainder by threadsPerRow, bounds
		sum := 0.0
		for j := begin + g; j < end; j += threadsPerRow {
			c := cols.LdAt(t, colJ, j)
			sum += float64(vals.LdAt(t, valJ, j) * x.LdAt(t, xg, int(c)))
			t.Ops(4)
		}
		for offset := threadsPerRow / 2; offset > 0; offset /= 2 {
			sum += sim.ShflDownSync(t, 0xffffffff, sum, offset)
			t.Ops(2)
		}
		if g == 0 && row < n {
			y.StAt(t, yr, row, sum)
		}
	}
	return k, nil
}

// spmvStencil27Mirror mirrors spmvStencil27: Ap = A·p on HPCCG's 27-point
// matrix without the matrix, each row's entries computed from the grid in
// generate_matrix's order (sz outer, sx inner; 27.0 on the diagonal, −1.0
// off it; neighbours off the grid skipped), so Ap has spmvRows' bits.
//
// Launch assumption: grid.X*block.X >= nx·ny·nz. One warp: 32 lanes own 32
// consecutive rows; nvcc unrolls the three constant loops into 27 load
// instructions, so each neighbour offset is its own site, and at each lane L
// loads p[row0+L+offset]: 32 consecutive doubles, 8 sectors, coalesced. A
// lane whose neighbour is off the grid is predicated off (SkipLd).
func spmvStencil27Mirror(nx, ny, nz int, p, ap *sim.F64) *sim.Kernel {
	k := sim.NewKernel(kSpMVStencil27, false)
	var sites [27]sim.Site
	for sz := -1; sz <= 1; sz++ {
		for sy := -1; sy <= 1; sy++ {
			for sx := -1; sx <= 1; sx++ {
				sites[(sz+1)*9+(sy+1)*3+sx+1] = k.Site(fmt.Sprintf("p[row%+d·nxy%+d·nx%+d]", sz, sy, sx))
			}
		}
	}
	yr := k.Site("Ap[row]")
	nxy := nx * ny
	n := nxy * nz
	k.Body = func(t *sim.Thread) {
		row := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if row < n {
			ix := row % nx
			iy := (row / nx) % ny
			iz := row / nxy
			t.Ops(12) // row index, bounds, the three divisions and remainders
			sum := 0.0
			for sz := -1; sz <= 1; sz++ {
				for sy := -1; sy <= 1; sy++ {
					for sx := -1; sx <= 1; sx++ {
						s := sites[(sz+1)*9+(sy+1)*3+sx+1]
						t.Ops(4) // the predicate on the three coordinates
						if iz+sz >= 0 && iz+sz < nz && iy+sy >= 0 && iy+sy < ny && ix+sx >= 0 && ix+sx < nx {
							v := -1.0
							if sz == 0 && sy == 0 && sx == 0 {
								v = 27.0
							}
							sum += float64(v * p.LdAt(t, s, row+sz*nxy+sy*nx+sx))
							t.Ops(4) // address, mul, add
						} else {
							p.SkipLd(t, s)
						}
					}
				}
			}
			ap.StAt(t, yr, row, sum)
		}
	}
	return k
}

// waxpbyMirror mirrors waxpby: w = alpha*x + beta*y with HPCCG's three
// branches.
//
// Launch assumption: grid.X*block.X >= n. One warp: 32 consecutive doubles
// of x, of y and of w, eight sectors a request, perfectly coalesced. w may
// alias x or y: each element is read and written by the same thread.
func waxpbyMirror(n int, alpha float64, x *sim.F64, beta float64, y, w *sim.F64) *sim.Kernel {
	k := sim.NewKernel("waxpby", false)
	xi := k.Site("x[i]")
	yi := k.Site("y[i]")
	wi := k.Site("w[i]")
	k.Body = func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if i < n {
			t.Ops(5)
			switch {
			case alpha == 1.0:
				w.StAt(t, wi, i, x.LdAt(t, xi, i)+float64(beta*y.LdAt(t, yi, i)))
			case beta == 1.0:
				w.StAt(t, wi, i, float64(alpha*x.LdAt(t, xi, i))+y.LdAt(t, yi, i))
			default:
				w.StAt(t, wi, i, float64(alpha*x.LdAt(t, xi, i))+float64(beta*y.LdAt(t, yi, i)))
			}
		}
	}
	return k
}

// waxpbyDeviceScalarMirror mirrors waxpbyDeviceScalar:
// w = x + (sign*scale[0])*y with the scale read from device memory.
//
// Launch assumption: grid.X*block.X >= n. One warp: as waxpby, plus one
// request for scale[0] that all 32 lanes share (one sector).
func waxpbyDeviceScalarMirror(n int, x, scale *sim.F64, sign float64, y, w *sim.F64) *sim.Kernel {
	k := sim.NewKernel("waxpbyDeviceScalar", false)
	xi := k.Site("x[i]")
	sc := k.Site("scale[0]")
	yi := k.Site("y[i]")
	wi := k.Site("w[i]")
	k.Body = func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if i < n {
			beta := float64(sign * scale.LdAt(t, sc, 0))
			t.Ops(5)
			w.StAt(t, wi, i, x.LdAt(t, xi, i)+float64(beta*y.LdAt(t, yi, i)))
		}
	}
	return k
}

// ddotPartialMirror mirrors ddotPartial: one partial sum of x·y per block.
//
// Launch assumptions: block.X == dotThreads; partial has grid.X entries.
// One warp: in the grid-stride loop 32 consecutive doubles of x and of y,
// eight sectors each; in the tree, steps with stride ≥ 32 keep whole warps
// busy or idle, the last five run in warp 0 with 16, 8, 4, 2, 1 lanes.
func ddotPartialMirror(n int, x, y, partial *sim.F64) *sim.Kernel {
	k := sim.NewKernel("ddotPartial", true)
	xi := k.Site("x[i]")
	yi := k.Site("y[i]")
	tree := declareTree(k)
	sh0 := k.Site("sh[0]")
	out := k.Site("partial[blockIdx.x]")
	k.Body = func(t *sim.Thread) {
		sh := sim.SharedArray[float64](t, "sh", dotThreads)
		tid := t.ThreadIdx.X
		stride := t.GridDim.X * t.BlockDim.X
		sum := 0.0
		for i := t.BlockIdx.X*t.BlockDim.X + tid; i < n; i += stride {
			sum += float64(x.LdAt(t, xi, i) * y.LdAt(t, yi, i))
			t.Ops(4)
		}
		blockTreeSum(t, sh, tree, sum)
		if tid == 0 {
			partial.StAt(t, out, t.BlockIdx.X, sh.LdAt(t, sh0, 0))
		}
	}
	return k
}

// ddotFinalMirror mirrors ddotFinal: the partial sums to one double.
//
// Launch assumptions: grid.X == 1, block.X == dotThreads. One warp: one
// coalesced load of 32 partials, then the tree of ddotPartial.
func ddotFinalMirror(nPartials int, partial, result *sim.F64) *sim.Kernel {
	k := sim.NewKernel("ddotFinal", true)
	pi := k.Site("partial[i]")
	tree := declareTree(k)
	sh0 := k.Site("sh[0]")
	out := k.Site("result[0]")
	k.Body = func(t *sim.Thread) {
		sh := sim.SharedArray[float64](t, "sh", dotThreads)
		tid := t.ThreadIdx.X
		sum := 0.0
		for i := tid; i < nPartials; i += dotThreads {
			sum += partial.LdAt(t, pi, i)
			t.Ops(3)
		}
		blockTreeSum(t, sh, tree, sum)
		if tid == 0 {
			result.StAt(t, out, 0, sh.LdAt(t, sh0, 0))
		}
	}
	return k
}

// cgDivideMirror mirrors cgDivide: out[0] = num[0]/den[0], or 0 when
// den[0] is 0. Launch assumption: <<<1, 1>>>.
func cgDivideMirror(num, den, out *sim.F64) *sim.Kernel {
	k := sim.NewKernel("cgDivide", false)
	dl := k.Site("den[0]")
	nl := k.Site("num[0]")
	os := k.Site("out[0]")
	k.Body = func(t *sim.Thread) {
		d := den.LdAt(t, dl, 0)
		v := 0.0
		if d != 0.0 {
			v = num.LdAt(t, nl, 0) / d
		}
		t.Ops(10) // the IEEE division is a short Newton sequence
		out.StAt(t, os, 0, v)
	}
	return k
}

// copyScalarMirror mirrors copyScalar: dst[0] = src[0]. Launch assumption:
// <<<1, 1>>>.
func copyScalarMirror(src, dst *sim.F64) *sim.Kernel {
	k := sim.NewKernel("copyScalar", false)
	sl := k.Site("src[0]")
	dl := k.Site("dst[0]")
	k.Body = func(t *sim.Thread) {
		dst.StAt(t, dl, 0, src.LdAt(t, sl, 0))
	}
	return k
}

// ddotFinalDivideMirror mirrors ddotFinalDivide: ddotFinal's sum to
// result[0], then out[0] = sum/other[0] (sumIsNumerator != 0) or
// other[0]/sum, with cgDivide's zero guard.
//
// Launch assumptions: grid.X == 1, block.X == dotThreads. One warp: as
// ddotFinal; thread 0 adds one load of other[0] and the division.
func ddotFinalDivideMirror(nPartials int, partial, result, other *sim.F64, sumIsNumerator int, out *sim.F64) *sim.Kernel {
	k := sim.NewKernel("ddotFinalDivide", true)
	pi := k.Site("partial[i]")
	tree := declareTree(k)
	sh0 := k.Site("sh[0]")
	res := k.Site("result[0]")
	ol := k.Site("other[0]")
	os := k.Site("out[0]")
	k.Body = func(t *sim.Thread) {
		sh := sim.SharedArray[float64](t, "sh", dotThreads)
		tid := t.ThreadIdx.X
		sum := 0.0
		for i := tid; i < nPartials; i += dotThreads {
			sum += partial.LdAt(t, pi, i)
			t.Ops(3)
		}
		blockTreeSum(t, sh, tree, sum)
		if tid == 0 {
			v := sh.LdAt(t, sh0, 0)
			result.StAt(t, res, 0, v)
			o := other.LdAt(t, ol, 0)
			num, den := o, v
			if sumIsNumerator != 0 {
				num, den = v, o
			}
			q := 0.0
			if den != 0.0 {
				q = num / den
			}
			t.Ops(12)
			out.StAt(t, os, 0, q)
		}
	}
	return k
}

// updateXRDotMirror mirrors updateXRDot: x += alpha·p, r −= alpha·Ap and
// the block partials of the new r·r in ddotPartial's order.
//
// Launch assumptions: block.X == dotThreads, partial has grid.X entries.
// One warp: per grid-stride step four coalesced loads of 32 doubles and two
// coalesced stores; the tree as ddotPartial.
func updateXRDotMirror(n int, alpha, p, ap, x, r, partial *sim.F64) *sim.Kernel {
	return updateXRDotToMirror(kUpdateXRDot, n, alpha, p, ap, x, r, x, r, partial)
}

// updateXRDotToMirror mirrors updateXRDotTo (x = xIn + alpha·p, r = rIn −
// alpha·Ap, stage 7) and, with xIn == x and rIn == r, updateXRDot; name is
// the kernel's. The access sites keep updateXRDot's names, so the two
// kernels' counters compare directly.
//
// Launch assumptions and one warp: as updateXRDotMirror.
func updateXRDotToMirror(name string, n int, alpha, p, ap, xIn, rIn, x, r, partial *sim.F64) *sim.Kernel {
	k := sim.NewKernel(name, true)
	al := k.Site("alpha[0]")
	xi := k.Site("x[i]")
	pi := k.Site("p[i]")
	xs := k.Site("x[i] =")
	ri := k.Site("r[i]")
	api := k.Site("Ap[i]")
	rs := k.Site("r[i] =")
	tree := declareTree(k)
	sh0 := k.Site("sh[0]")
	out := k.Site("partial[blockIdx.x]")
	k.Body = func(t *sim.Thread) {
		sh := sim.SharedArray[float64](t, "sh", dotThreads)
		tid := t.ThreadIdx.X
		stride := t.GridDim.X * t.BlockDim.X
		a := alpha.LdAt(t, al, 0)
		na := float64(-1.0 * a)
		sum := 0.0
		for i := t.BlockIdx.X*t.BlockDim.X + tid; i < n; i += stride {
			x.StAt(t, xs, i, xIn.LdAt(t, xi, i)+float64(a*p.LdAt(t, pi, i)))
			v := rIn.LdAt(t, ri, i) + float64(na*ap.LdAt(t, api, i))
			r.StAt(t, rs, i, v)
			sum += float64(v * v)
			t.Ops(8)
		}
		blockTreeSum(t, sh, tree, sum)
		if tid == 0 {
			partial.StAt(t, out, t.BlockIdx.X, sh.LdAt(t, sh0, 0))
		}
	}
	return k
}

// copyVectorMirror mirrors copyVector: y[i] = x[i], the copy-bandwidth
// probe. Launch assumption: grid.X*block.X >= n. One warp: 32 consecutive
// doubles read and written, eight sectors each.
func copyVectorMirror(n int, x, y *sim.F64) *sim.Kernel {
	k := sim.NewKernel("copyVector", false)
	xi := k.Site("x[i]")
	yi := k.Site("y[i]")
	k.Body = func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if i < n {
			t.Ops(3)
			y.StAt(t, yi, i, x.LdAt(t, xi, i))
		}
	}
	return k
}

// treeSites are blockTreeSum's shared-memory sites.
type treeSites struct{ sum, t, s, w sim.Site }

func declareTree(k *sim.Kernel) treeSites {
	return treeSites{
		t:   k.Site("sh[tid]"),
		s:   k.Site("sh[tid+s]"),
		sum: k.Site("sh[tid] = sum"),
		w:   k.Site("sh[tid] = sh[tid] + sh[tid+s]"),
	}
}

// blockTreeSum mirrors cg.cu's blockTreeSum: every thread hands in v, and
// afterwards sh[0] holds the block's sum, added in the same fixed tree.
// Every thread of the block must call it (it holds barriers).
func blockTreeSum(t *sim.Thread, sh *sim.Shared[float64], ts treeSites, v float64) {
	tid := t.ThreadIdx.X
	sh.StAt(t, ts.sum, tid, v)
	t.SyncThreads()
	for s := dotThreads / 2; s > 0; s /= 2 {
		if tid < s {
			sh.StAt(t, ts.w, tid, sh.LdAt(t, ts.t, tid)+sh.LdAt(t, ts.s, tid+s))
		}
		t.Ops(3)
		t.SyncThreads()
	}
}
