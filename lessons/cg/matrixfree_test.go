package cg

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
)

// TestStencil27MatchesCSR: spmvStencil27, which computes the 27-point rows
// from the grid, gives the bits of the CSR SpMVs that sum a row in stored
// order (thread per row, subwarp with one thread per row) and of the CPU's
// spmv, on grids that are cubic, flat, one point wide and longer than a
// warp along x, with p random so that no product or sum is exact by luck.
func TestStencil27MatchesCSR(t *testing.T) {
	dev := openSim(t)
	r := rand.New(rand.NewPCG(8, 27))
	for _, g := range []Grid{{1, 1, 1}, {2, 1, 1}, {4, 5, 6}, {8, 8, 8}, {33, 2, 3}, {3, 1, 7}, {1, 6, 1}} {
		t.Run(g.String(), func(t *testing.T) {
			p, err := Generate(g, GenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			a, n := p.A, p.A.Rows
			x := randVec(r, n)
			cpu := make([]float64, n)
			spmv(a, x, cpu)

			dx := upload(t, dev, "p", x)
			rowPtr := testenv.Must(gpuext.Upload(dev, "rowPtr", a.RowPtr))(t)
			cols := testenv.Must(gpuext.Upload(dev, "cols", a.ColIdx))(t)
			vals := upload(t, dev, "vals", a.Val)
			yS := upload(t, dev, "ApStencil", make([]float64, n))
			yT := upload(t, dev, "ApThread", make([]float64, n))
			yW := upload(t, dev, "ApSubwarp1", make([]float64, n))
			grid := (n + 31) / 32
			st := launch(t, dev, kSpMVStencil27, grid, 32, int32(g.NX), int32(g.NY), int32(g.NZ), dx, yS)
			launch(t, dev, kSpMVThreadPerRow, grid, 32, int32(n), rowPtr, cols, vals, dx, yT)
			launch(t, dev, kSpMVSubwarp, grid, 32, int32(n), int32(1), rowPtr, cols, vals, dx, yW)
			s, th, w := download(t, yS), download(t, yT), download(t, yW)
			if !equalBits(s, cpu) || !equalBits(th, cpu) || !equalBits(w, cpu) {
				t.Fatalf("stencil %v\nthread per row %v\nsubwarp(1) %v\ncpu %v", s, th, w, cpu)
			}
			// One load of p per neighbour offset that some row of the grid
			// has (27 when every dimension is 2 or more; an offset across
			// a dimension of 1 is never taken, so its load never runs and
			// has no site); the stencil reads no matrix.
			sites := 1
			for _, d := range []int{g.NX, g.NY, g.NZ} {
				if d > 1 {
					sites *= 3
				}
			}
			c := spmvCounters(st)
			if len(c.Sites) != sites || c.Requests < int64(sites) {
				t.Errorf("stencil counters: %d load sites, %d requests; want %d sites", len(c.Sites), c.Requests, sites)
			}
			for _, s := range c.Sites {
				if s.Bytes != 8 || s.Array != "p" || !strings.HasPrefix(s.Where, "cg.cu:") || !strings.HasPrefix(s.Instr, "ld.global") {
					t.Errorf("stencil site %+v: want an 8-byte ld.global of p at a cg.cu line", s)
				}
			}
		})
	}
}

// TestMatrixFreeMatchesPipelined: stage 8 is stage 7 with the SpMV
// computed from the grid. Its history, final residual, x, launches and
// copies are stage 7's bit for bit when stage 7 sums each row in stored
// order (ThreadsPerRow 1), on a cube and a non-cubic grid, whether max_iter
// or the tolerance ends the loop (with the speculative iteration); its
// setup uploads b and x0 and no matrix; and ThreadsPerRow does not change
// it.
func TestMatrixFreeMatchesPipelined(t *testing.T) {
	dev := openSim(t)
	for _, g := range []Grid{Cube(testGrid), {4, 5, 6}} {
		p, err := Generate(g, GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		full, err := RunStage(dev, p, 7, RunOptions{ThreadsPerRow: 1, MaxIter: 30})
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []RunOptions{
			{},
			{Tolerance: full.Residuals[9]},
		} {
			opt7 := opt
			opt7.ThreadsPerRow = 1
			r7, err := RunStage(dev, p, 7, opt7)
			if err != nil {
				t.Fatal(err)
			}
			r8, err := RunStage(dev, p, 8, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r8.Name != "matrix-free" || r8.Iterations != r7.Iterations || !equalBits(r8.Residuals, r7.Residuals) ||
				!equalBits(r8.X, r7.X) || r8.FinalResidual != r7.FinalResidual || r8.InitialResidual != r7.InitialResidual {
				t.Fatalf("%v tol %g: stage 8 %d iterations, final %v; stage 7 (1 thread per row) %d, final %v (or the residuals or x differ)",
					g, opt.Tolerance, r8.Iterations, r8.FinalResidual, r7.Iterations, r7.FinalResidual)
			}
			if opt.Tolerance > 0 && (r8.Speculative == nil || r7.Speculative == nil || *r8.Speculative != *r7.Speculative) {
				t.Errorf("%v: speculative %+v, stage 7 %+v", g, r8.Speculative, r7.Speculative)
			}
			if r8.Launches != r7.Launches || r8.Transfers.D2HCalls != r7.Transfers.D2HCalls || r8.Transfers.H2DCalls != r7.Transfers.H2DCalls {
				t.Errorf("%v: launches %d, transfers %+v; stage 7 %d, %+v", g, r8.Launches, r8.Transfers, r7.Launches, r7.Transfers)
			}
			n, nnz := int64(p.A.Rows), int64(p.A.NNZ())
			if s7, s8 := r7.Setup, r8.Setup; s8.H2DCalls != 2 || s8.H2DBytes != 16*n || s7.H2DBytes-s8.H2DBytes != 4*(n+1)+12*nnz {
				t.Errorf("%v: setup %+v, stage 7 %+v: want b and x0 only", g, s8, s7)
			}
		}
		r8tpr, err := RunStage(dev, p, 8, RunOptions{ThreadsPerRow: 32, MaxIter: 30})
		if err != nil {
			t.Fatal(err)
		}
		if !equalBits(r8tpr.Residuals, full.Residuals) || !equalBits(r8tpr.X, full.X) {
			t.Errorf("%v: stage 8 with ThreadsPerRow 32 differs from stage 7 with 1", g)
		}
	}
}
