package cg

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
)

// TestDeviceLoop: stages 9 and 10 on the simulator, against each other,
// their own plain-launch runs and stage 0.
func TestDeviceLoop(t *testing.T) {
	dev := openSim(t)
	for _, g := range []Grid{Cube(testGrid), {4, 5, 6}} {
		p := testenv.Must(Generate(g, GenOptions{}))(t)
		ref := testenv.Must(RunStage(nil, p, 0, RunOptions{}))(t)
		run := func(s int, o RunOptions) *StageResult {
			t.Helper()
			r, err := RunStage(dev, p, s, o)
			if err != nil {
				t.Fatalf("%v stage %d: %v", g, s, err)
			}
			return r
		}
		s9, s10 := run(9, RunOptions{}), run(10, RunOptions{})
		s9w1 := run(9, RunOptions{ThreadsPerRow: 1})
		plain := run(9, RunOptions{PlainLaunches: true})
		for _, r := range []*StageResult{s9, s10, s9w1, plain} {
			if c := CompareResiduals(ref, r); !c.WithinTolerance || r.Iterations != 149 || r.InitialResidual != ref.InitialResidual {
				t.Errorf("%v stage %d: %d iterations, initial %v (stage 0 %v), vs stage 0 %v", g, r.Stage, r.Iterations, r.InitialResidual, ref.InitialResidual, c)
			}
			if r.TrueResidual > 1e-10 || r.MaxErr > 1e-13 {
				t.Errorf("%v stage %d: true residual %g, max err %g", g, r.Stage, r.TrueResidual, r.MaxErr)
			}
			l := r.DeviceLoop
			if l == nil || l.KernelsPerIteration != 3 || l.Replays != 149 || l.IdleReplays != 0 || l.CheckEvery != DefaultCheckEvery || l.Checks != 9 {
				t.Errorf("%v stage %d: device loop %+v", g, r.Stage, l)
			}
		}
		// 149 iterations: nine graphs of 16 and one of 5.
		if l, pl := s9.DeviceLoop, plain.DeviceLoop; !l.Graph || l.IterationsPerGraph != 16 || l.GraphLaunches != 10 ||
			pl.Graph || pl.GraphLaunches != 0 {
			t.Errorf("%v: graph %+v, plain launches %+v", g, l, pl)
		}
		// spmvCsrVector1 and spmvStencil27Dot add the same terms in the same
		// order and their partials in the same order on the same grid.
		if !equalBits(s10.Residuals, s9w1.Residuals) || !equalBits(s10.X, s9w1.X) || s10.FinalResidual != s9w1.FinalResidual {
			t.Errorf("%v: stage 10 differs in bits from stage 9 with one thread a row", g)
		}
		// A graph replays the same kernels: the same bits, the same counts,
		// and its modeled time drops the host's launch cost per kernel.
		if !equalBits(plain.Residuals, s9.Residuals) || !equalBits(plain.X, s9.X) || plain.Launches != s9.Launches ||
			plain.Transfers != s9.Transfers {
			t.Errorf("%v: stage 9 with plain launches differs from the graph", g)
		}
		if s9.WallSeconds >= plain.WallSeconds {
			t.Errorf("%v: modeled graph %v s, plain launches %v s: want the graph faster", g, s9.WallSeconds, plain.WallSeconds)
		}
		// Stage 10 moves no matrix; stage 8 is its pipelined ancestor with
		// the same SpMV bits per row.
		if s10.SpMV == nil || s10.SpMV.Kernel != kSpMVStencil27Dot || s9.SpMV == nil || s9.SpMV.Kernel != "spmvCsrVector8" {
			t.Errorf("%v: SpMV counters %+v, %+v", g, s9.SpMV, s10.SpMV)
		}
	}
}

// TestDeviceLoopStops: the device ends the loop where HPCCG's check does:
// on a tolerance, on an exact solution, and at max_iter 1 and 2.
func TestDeviceLoopStops(t *testing.T) {
	dev := openSim(t)
	p := testenv.Must(Generate(Grid{4, 5, 6}, GenOptions{}))(t)
	full := testenv.Must(RunStage(nil, p, 0, RunOptions{}))(t)
	// A tolerance halfway (in log) between two residuals far from rounding.
	tol := math.Sqrt(full.Residuals[6] * full.Residuals[7])
	ref := testenv.Must(RunStage(nil, p, 0, RunOptions{Tolerance: tol}))(t)
	tiny := testenv.Must(Generate(Cube(1), GenOptions{}))(t)
	tinyRef := testenv.Must(RunStage(nil, tiny, 0, RunOptions{}))(t)
	if tinyRef.Iterations >= 149 || tinyRef.FinalResidual != 0 {
		t.Fatalf("1³: stage 0 ran %d iterations to %g; want an exact solve", tinyRef.Iterations, tinyRef.FinalResidual)
	}
	for _, s := range []int{9, 10} {
		for _, every := range []int{1, 4, 16, 200} {
			r, err := RunStage(dev, p, s, RunOptions{Tolerance: tol, CheckEvery: every})
			if err != nil {
				t.Fatal(err)
			}
			l := r.DeviceLoop
			if r.Iterations != ref.Iterations || len(r.Residuals) != ref.Iterations || !CompareResiduals(ref, r).WithinTolerance {
				t.Errorf("stage %d, tolerance %g: %d iterations, stage 0 %d", s, tol, r.Iterations, ref.Iterations)
			}
			// The host sees the end one batch late, at the earliest after
			// the batch holding the iteration that failed the check.
			if l.IdleReplays != l.Replays-r.Iterations || l.IdleReplays < 1 || l.Replays > (ref.Iterations/every+2)*every {
				t.Errorf("stage %d, check every %d: %d iterations, loop %+v", s, every, r.Iterations, l)
			}
		}
		r := testenv.Must(RunStage(dev, tiny, s, RunOptions{}))(t)
		if r.Iterations != tinyRef.Iterations || !equalBits(r.Residuals, tinyRef.Residuals) || r.FinalResidual != 0 {
			t.Errorf("stage %d at 1³: %d iterations %v; stage 0 %d %v", s, r.Iterations, r.Residuals, tinyRef.Iterations, tinyRef.Residuals)
		}
		for _, mi := range []int{1, 2} {
			r := testenv.Must(RunStage(dev, p, s, RunOptions{MaxIter: mi}))(t)
			if r.Iterations != mi-1 || r.InitialResidual != full.InitialResidual || r.FinalResidual != full.InitialResidual ||
				len(r.Residuals) != mi-1 || r.DeviceLoop.Replays != 1 {
				t.Errorf("stage %d, max_iter %d: %d iterations, initial %v final %v residuals %v, loop %+v", s, mi, r.Iterations,
					r.InitialResidual, r.FinalResidual, r.Residuals, r.DeviceLoop)
			}
		}
	}
}

// TestSpMVCsrVector: spmvCsrVector<W> computes spmvCsrSubwarp's Ap with
// threadsPerRow W bit for bit (the same sums in the same order), its
// partials add up to p·Ap, and a state whose RUN is 0 leaves Ap alone.
// 24³ rows with 32 lanes a row need more than spmvMaxBlocks blocks, so the
// groups stride the grid.
func TestSpMVCsrVector(t *testing.T) {
	dev := openSim(t)
	m := Module()
	for _, g := range []Grid{{4, 5, 6}, Cube(24)} {
		p := testenv.Must(Generate(g, GenOptions{}))(t)
		a, n := p.A, p.A.Rows
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		x := randVec(rng, n)
		rowPtr := testenv.Must(gpuext.Upload(dev, "rowPtr", a.RowPtr))(t)
		cols := testenv.Must(gpuext.Upload(dev, "cols", a.ColIdx))(t)
		vals := testenv.Must(gpuext.Upload(dev, "vals", a.Val))(t)
		dx := testenv.Must(gpuext.Upload(dev, "x", x))(t)
		want := testenv.Must(gpuext.Alloc[float64](dev, "want", n))(t)
		got := testenv.Must(gpuext.Alloc[float64](dev, "got", n))(t)
		st := testenv.Must(gpuext.Upload(dev, "state", []float64{0, 1, 0, 0, 0, 0}))(t)
		ws := []int{1, 2, 4, 8, 16, 32}
		if g == Cube(24) {
			ws = []int{8, 32}
		}
		for _, w := range ws {
			b := spmvBlocks(n, w)
			if g == Cube(24) && w == 32 && b != spmvMaxBlocks {
				t.Fatalf("24³, W = 32: %d blocks, want the cap %d", b, spmvMaxBlocks)
			}
			dot := testenv.Must(gpuext.Alloc[float64](dev, "dot", b))(t)
			if _, err := dev.Launch(context.Background(), m.MustKernel(kSpMVSubwarp), gpuext.Config{Grid: (n*w + 255) / 256, Block: 256}, int32(n), int32(w), rowPtr, cols, vals, dx, want); err != nil {
				t.Fatal(err)
			}
			if _, err := dev.Launch(context.Background(), m.MustKernel(csrVectorKernel(w)), gpuext.Config{Grid: b, Block: dotThreads}, int32(n), rowPtr, cols, vals, dx, got, st, dot); err != nil {
				t.Fatal(err)
			}
			wv, gv := make([]float64, n), make([]float64, n)
			parts := make([]float64, b)
			if err := want.Download(wv); err != nil {
				t.Fatal(err)
			}
			if err := got.Download(gv); err != nil {
				t.Fatal(err)
			}
			if err := dot.Download(parts); err != nil {
				t.Fatal(err)
			}
			if !equalBits(gv, wv) {
				t.Errorf("%v, W = %d: Ap differs from spmvCsrSubwarp's", g, w)
			}
			sum := 0.0
			for _, v := range parts {
				sum += v
			}
			if d := ddot(x, wv); math.Abs(sum-d) > 1e-12*math.Abs(d) {
				t.Errorf("%v, W = %d: partials sum to %v, p·Ap %v", g, w, sum, d)
			}
			_ = dot.Free()
		}
		// The gate: RUN = 0, the SpMV returns before it writes.
		if err := st.CopyFrom([]float64{0, 0, 0, 0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		if err := got.Fill(-1); err != nil {
			t.Fatal(err)
		}
		dot := testenv.Must(gpuext.Alloc[float64](dev, "dot", spmvBlocks(n, 8)))(t)
		if _, err := dev.Launch(context.Background(), m.MustKernel(csrVectorKernel(8)), gpuext.Config{Grid: spmvBlocks(n, 8), Block: dotThreads}, int32(n), rowPtr, cols, vals, dx, got, st, dot); err != nil {
			t.Fatal(err)
		}
		gv := make([]float64, n)
		if err := got.Download(gv); err != nil {
			t.Fatal(err)
		}
		for i, v := range gv {
			if v != -1 {
				t.Fatalf("%v: a stopped loop's SpMV wrote Ap[%d] = %v", g, i, v)
			}
		}
	}
}

// TestCompareVectorWidths: the table behind stage 9's W. With W = 8 the
// vals loads use the lane slots exactly as stage 5's spmvCsrSubwarp does
// (the four steps a pass keep the warp together), and W = 1's loads are
// the thread-per-row kernel's uncoalesced ones.
func TestCompareVectorWidths(t *testing.T) {
	dev := openSim(t)
	rs, err := CompareVectorWidths(dev, Cube(12))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]VectorChoice{}
	for _, r := range rs {
		by[r.Kernel] = r
		if r.Requests == 0 || r.Sectors == 0 || r.LaneUse <= 0 || r.LaneUse > 1 || r.ModeledSeconds <= 0 || r.DRAMBytes <= 0 {
			t.Errorf("%+v", r)
		}
	}
	sub, w8, w1 := by[kSpMVSubwarp], by["spmvCsrVector8"], by["spmvCsrVector1"]
	if len(rs) != 7 || math.Abs(w8.LaneUse-sub.LaneUse) > 1e-12 || w8.Sectors > sub.Sectors*11/10 {
		t.Errorf("W = 8 %+v against spmvCsrSubwarp %+v", w8, sub)
	}
	if w1.ExcessiveShare < 0.6 || w8.ExcessiveShare > w1.ExcessiveShare/2 {
		t.Errorf("excessive sectors: W = 1 %.3f, W = 8 %.3f", w1.ExcessiveShare, w8.ExcessiveShare)
	}
	if tab := VectorChoiceTable(rs); strings.Count(tab, "\n") != 8 || !strings.Contains(tab, "spmvCsrVector8   8") {
		t.Errorf("table:\n%s", tab)
	}
	if _, err := CompareVectorWidths(nil, Cube(4)); err == nil {
		t.Errorf("no device accepted")
	}
}

func TestSimulatedVectorWidths(t *testing.T) {
	rs, err := SimulatedVectorWidths(6)
	if err != nil || len(rs) != 7 || rs[0].Kernel != kSpMVSubwarp || rs[4].Kernel != "spmvCsrVector8" {
		t.Fatalf("%v, %+v", err, rs)
	}
}
