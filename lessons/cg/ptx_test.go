package cg

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ptxcheck"
	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// The simulator runs cg.ptx: the tests below launch the lesson's kernels on
// it one by one and hold their outputs to the CPU kernels (kernels.go) or to
// the GPU's order of operations written out in Go, and check that every
// launch ran the embedded PTX.

func openSim(t testing.TB) *gpuext.Device {
	t.Helper()
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// TestModule checks the module's two forms belong together: the PTX was
// generated from this cg.cu, every extern "C" kernel of cg.cu has an entry
// in it, and there is nothing else (no Go mirrors) for the simulator to run.
func TestModule(t *testing.T) {
	m := Module()
	if err := ptxcheck.Check("cg.cu", []byte(m.CUDA), []byte(m.PTX)); err != nil {
		t.Fatal(err)
	}
	kernels := regexp.MustCompile(`extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(`).FindAllStringSubmatch(m.CUDA, -1)
	entries := regexp.MustCompile(`\.entry (\w+)\(`).FindAllStringSubmatch(m.PTX, -1)
	if len(kernels) != len(entries) || len(kernels) != 23 {
		t.Errorf("cg.cu has %d kernels, cg.ptx %d entries; want 23 of each", len(kernels), len(entries))
	}
	for _, k := range kernels {
		if !strings.Contains(m.PTX, ".entry "+k[1]+"(") {
			t.Errorf("%s: no .entry in cg.ptx", k[1])
		}
	}
	for _, k := range kernels {
		if _, err := m.Kernel(k[1]); err != nil {
			t.Error(err)
		}
	}
}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = (r.Float64() - 0.5) * math.Pow(2, float64(r.IntN(20)-10))
	}
	return v
}

func upload(t *testing.T, dev *gpuext.Device, name string, v []float64) *gpuext.Buffer[float64] {
	t.Helper()
	b, err := gpuext.Upload(dev, name, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func download(t *testing.T, b *gpuext.Buffer[float64]) []float64 {
	t.Helper()
	v := make([]float64, b.Len())
	if err := b.Download(v); err != nil {
		t.Fatal(err)
	}
	return v
}

// launch runs kernel name of the module and checks that the simulator ran
// it from cg.ptx (nvcc 11.8, compute_75), the PTX a GPU JIT-loads.
func launch(t *testing.T, dev *gpuext.Device, name string, grid, block int, args ...any) *sim.Stats {
	t.Helper()
	l, err := dev.Launch(context.Background(), Module().MustKernel(name), gpuext.Config{Grid: grid, Block: block}, args...)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != gpuext.PathPTX || !strings.Contains(l.PTX, "nvcc 11.8") || !strings.Contains(l.PTX, "sm_75") {
		t.Fatalf("%s ran by path %q from %q; want cg.ptx (nvcc 11.8, sm_75)", name, l.Path, l.PTX)
	}
	return l.Stats
}

// TestKernelsMatchCPU runs every kernel from cg.ptx on random inputs and
// compares with the CPU kernels: bit for bit where the order of operations
// is HPCCG's, with the tree or the shuffle written out in Go where it is not.
// The values span 2^±10, so a fused multiply-add anywhere in the PTX would
// change some bit (the fma tests check that the Go side never fuses).
func TestKernelsMatchCPU(t *testing.T) {
	dev := openSim(t)
	r := rand.New(rand.NewPCG(7, 37))
	p, err := Generate(Grid{7, 6, 5}, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, n := p.A, p.A.Rows
	// Random values in the stencil's pattern, so sums really depend on order.
	vals := randVec(r, a.NNZ())
	ar := &CSR{Rows: n, Cols: n, RowPtr: a.RowPtr, ColIdx: a.ColIdx, Val: vals}
	x := randVec(r, n)
	dRow := testenv.Must(gpuext.Upload(dev, "rowPtr", a.RowPtr))(t)
	dCols := testenv.Must(gpuext.Upload(dev, "cols", a.ColIdx))(t)
	dVals := upload(t, dev, "vals", vals)
	dx := upload(t, dev, "x", x)
	want := make([]float64, n)
	spmv(ar, x, want)

	t.Run("spmv thread per row", func(t *testing.T) {
		for _, k := range []string{kSpMVThreadPerRow, kSpMVThreadPerRowUnroll1} {
			dy := upload(t, dev, "y", make([]float64, n))
			launch(t, dev, k, (n+127)/128, 128, int32(n), dRow, dCols, dVals, dx, dy)
			if got := download(t, dy); !equalBits(got, want) {
				t.Errorf("%s differs from the CPU SpMV", k)
			}
		}
	})
	t.Run("spmv subwarp", func(t *testing.T) {
		for _, tpr := range []int{1, 2, 4, 8, 16, 32} {
			dy := upload(t, dev, "y", make([]float64, n))
			launch(t, dev, kSpMVSubwarp, (n*tpr+255)/256, 256, int32(n), int32(tpr), dRow, dCols, dVals, dx, dy)
			got := download(t, dy)
			for i := range n {
				// Each row: lane g sums entries g, g+tpr, ...; then a
				// shuffle tree. Written out here in the same order.
				lo, hi := int(a.RowPtr[i]), int(a.RowPtr[i+1])
				part := make([]float64, tpr)
				for g := range tpr {
					for j := lo + g; j < hi; j += tpr {
						part[g] += float64(vals[j] * x[a.ColIdx[j]])
					}
				}
				for off := tpr / 2; off > 0; off /= 2 {
					for g := 0; g < off; g++ {
						part[g] += part[g+off]
					}
				}
				if math.Float64bits(got[i]) != math.Float64bits(part[0]) {
					t.Fatalf("tpr %d row %d: %v, the tree order gives %v", tpr, i, got[i], part[0])
				}
				if tpr == 1 && got[i] != want[i] {
					t.Fatalf("tpr 1 row %d: %v, sequential %v", i, got[i], want[i])
				}
				if math.Abs(got[i]-want[i]) > 1e-12*math.Abs(want[i])+1e-300 {
					t.Fatalf("tpr %d row %d: %v far from %v", tpr, i, got[i], want[i])
				}
			}
		}
	})
	t.Run("waxpby", func(t *testing.T) {
		y := randVec(r, n)
		dy := upload(t, dev, "y", y)
		for _, ab := range [][2]float64{{1, 0.37}, {1, -1}, {-2.5, 1}, {0.3, -0.7}, {1, 0}} {
			w := make([]float64, n)
			waxpby(ab[0], x, ab[1], y, w)
			dw := upload(t, dev, "w", make([]float64, n))
			launch(t, dev, kWaxpby, (n+255)/256, 256, int32(n), ab[0], dx, ab[1], dy, dw)
			if !equalBits(download(t, dw), w) {
				t.Errorf("waxpby(%v, x, %v, y) differs from the CPU", ab[0], ab[1])
			}
		}
	})
	t.Run("waxpbyDeviceScalar", func(t *testing.T) {
		y := randVec(r, n)
		dy := upload(t, dev, "y", y)
		for _, sign := range []float64{1, -1} {
			s := r.Float64() * 3
			w := make([]float64, n)
			waxpby(1, x, sign*s, y, w)
			dw := upload(t, dev, "w", make([]float64, n))
			launch(t, dev, kWaxpbyDeviceScalar, (n+255)/256, 256, int32(n), dx, upload(t, dev, "s", []float64{s}), sign, dy, dw)
			if !equalBits(download(t, dw), w) {
				t.Errorf("sign %v: differs from waxpby(1, x, sign·s, y)", sign)
			}
		}
	})
	t.Run("ddot", func(t *testing.T) {
		for _, m := range []int{1, 255, 256, 1000, 70000} {
			xv, yv := randVec(r, m), randVec(r, m)
			blocks := dotGrid(m)
			dp := upload(t, dev, "partial", make([]float64, blocks))
			dres := upload(t, dev, "result", []float64{0})
			launch(t, dev, kDdotPartial, blocks, dotThreads, int32(m), upload(t, dev, "x", xv), upload(t, dev, "y", yv), dp)
			launch(t, dev, kDdotFinal, 1, dotThreads, int32(blocks), dp, dres)
			got := download(t, dres)[0]
			if tree := treeDot(xv, yv, blocks); math.Float64bits(got) != math.Float64bits(tree) {
				t.Errorf("n %d: %v, the tree written out gives %v", m, got, tree)
			}
			if seq := ddot(xv, yv); math.Abs(got-seq) > 1e-13*math.Abs(seq)+1e-300 {
				t.Errorf("n %d: %v far from the sequential %v", m, got, seq)
			}
		}
	})
	t.Run("ddotFinalDivide", func(t *testing.T) {
		m := 3000
		xv, yv := randVec(r, m), randVec(r, m)
		blocks := dotGrid(m)
		dp := upload(t, dev, "partial", make([]float64, blocks))
		launch(t, dev, kDdotPartial, blocks, dotThreads, int32(m), upload(t, dev, "x", xv), upload(t, dev, "y", yv), dp)
		sum := treeDot(xv, yv, blocks)
		for _, c := range []struct {
			other    float64
			sumIsNum int32
			want     float64
		}{{2.5, 1, sum / 2.5}, {2.5, 0, 2.5 / sum}, {0, 1, 0}} {
			res, out := upload(t, dev, "result", []float64{0}), upload(t, dev, "out", []float64{42})
			launch(t, dev, kDdotFinalDivide, 1, dotThreads, int32(blocks), dp, res, upload(t, dev, "other", []float64{c.other}), c.sumIsNum, out)
			if got := download(t, res)[0]; math.Float64bits(got) != math.Float64bits(sum) {
				t.Errorf("other %v: result %v, the tree gives %v", c.other, got, sum)
			}
			if got := download(t, out)[0]; math.Float64bits(got) != math.Float64bits(c.want) {
				t.Errorf("other %v, sumIsNumerator %d: out %v, want %v", c.other, c.sumIsNum, got, c.want)
			}
		}
	})
	t.Run("updateXRDot", func(t *testing.T) {
		m := 5000
		pv, apv, xv, rv := randVec(r, m), randVec(r, m), randVec(r, m), randVec(r, m)
		alpha := 0.8125 + r.Float64()
		blocks := dotGrid(m)
		wx, wr := make([]float64, m), make([]float64, m)
		waxpby(1, xv, alpha, pv, wx)
		waxpby(1, rv, -alpha, apv, wr)
		dal, dp, dap := upload(t, dev, "alpha", []float64{alpha}), upload(t, dev, "p", pv), upload(t, dev, "Ap", apv)
		// In place (stage 6) and out of place (stage 7).
		dx, dr, dpart := upload(t, dev, "x", xv), upload(t, dev, "r", rv), upload(t, dev, "partial", make([]float64, blocks))
		launch(t, dev, kUpdateXRDot, blocks, dotThreads, int32(m), dal, dp, dap, dx, dr, dpart)
		dx2, dr2, dpart2 := upload(t, dev, "x2", make([]float64, m)), upload(t, dev, "r2", make([]float64, m)), upload(t, dev, "partial2", make([]float64, blocks))
		launch(t, dev, kUpdateXRDotTo, blocks, dotThreads, int32(m), dal, dp, dap, upload(t, dev, "xIn", xv), upload(t, dev, "rIn", rv), dx2, dr2, dpart2)
		dres := upload(t, dev, "result", []float64{0})
		launch(t, dev, kDdotFinal, 1, dotThreads, int32(blocks), dpart, dres)
		for _, got := range [][2][]float64{{download(t, dx), download(t, dr)}, {download(t, dx2), download(t, dr2)}} {
			if !equalBits(got[0], wx) || !equalBits(got[1], wr) {
				t.Errorf("x or r differs from waxpby's")
			}
		}
		if !equalBits(download(t, dpart), download(t, dpart2)) {
			t.Errorf("updateXRDotTo's partials differ from updateXRDot's")
		}
		if got, tree := download(t, dres)[0], treeDot(wr, wr, blocks); math.Float64bits(got) != math.Float64bits(tree) {
			t.Errorf("r·r %v, the tree of the new r gives %v", got, tree)
		}
	})
	t.Run("cgDivide, copyScalar, copyVector", func(t *testing.T) {
		for _, nd := range [][2]float64{{3, 7}, {1, 0}, {0, 0}, {-2.5e-300, 1e10}} {
			out := upload(t, dev, "out", []float64{42})
			launch(t, dev, kCgDivide, 1, 1, upload(t, dev, "num", nd[0:1]), upload(t, dev, "den", nd[1:2]), out)
			want := 0.0
			if nd[1] != 0 {
				want = nd[0] / nd[1]
			}
			if got := download(t, out)[0]; math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("cgDivide(%v, %v) = %v, want %v", nd[0], nd[1], got, want)
			}
		}
		dst := upload(t, dev, "dst", []float64{0})
		launch(t, dev, kCopyScalar, 1, 1, upload(t, dev, "src", []float64{math.Pi}), dst)
		if got := download(t, dst)[0]; got != math.Pi {
			t.Errorf("copyScalar gave %v", got)
		}
		dy := upload(t, dev, "y", make([]float64, n))
		launch(t, dev, kCopyVector, (n+255)/256, 256, int32(n), dx, dy)
		if !equalBits(download(t, dy), x) {
			t.Errorf("copyVector did not copy x")
		}
	})
}

// treeDot is ddotPartial + ddotFinal written out serially: thread t of G
// sums t, t+G, ... from 0, each block adds its 256 sums as a tree, then the
// final pass adds the partials (one per thread) by the same tree.
func treeDot(x, y []float64, blocks int) float64 {
	tree := func(v []float64) float64 {
		for s := len(v) / 2; s > 0; s /= 2 {
			for i := 0; i < s; i++ {
				v[i] += v[i+s]
			}
		}
		return v[0]
	}
	G := blocks * dotThreads
	partial := make([]float64, dotThreads)
	for b := range blocks {
		sh := make([]float64, dotThreads)
		for tid := range dotThreads {
			for i := b*dotThreads + tid; i < len(x); i += G {
				sh[tid] += float64(x[i] * y[i])
			}
		}
		partial[b] = tree(sh)
	}
	return tree(partial)
}

// TestKernelBadLaunches: arguments that do not fit a kernel's PTX
// parameters are refused before it runs, and a buffer too short for the
// launch is a fault that names cg.cu's line, never a silent partial result.
func TestKernelBadLaunches(t *testing.T) {
	dev := openSim(t)
	v := upload(t, dev, "v", []float64{1, 2})
	i := testenv.Must(gpuext.Upload(dev, "i", []int32{0, 1}))(t)
	tests := []struct {
		kernel string
		args   []any
		fault  string // "" for an argument error, else the cg.cu line the fault names
	}{
		{kWaxpby, []any{int32(2), 1.0, v, 1.0, v}, ""},                                                            // one short
		{kWaxpby, []any{int32(2), float32(1), v, 1.0, v, v}, ""},                                                  // float32 alpha
		{kWaxpby, []any{2, 1.0, v, 1.0, v, v}, ""},                                                                // Go int
		{kCgDivide, []any{v, v, v, v}, ""},                                                                        // one too many
		{kSpMVThreadPerRow, []any{int32(2), i, i, v, v, v}, "cg.cu:72"},                                           // rowPtr too short
		{kWaxpby, []any{int32(3), 1.0, v, 1.0, v, v}, "cg.cu:"},                                                   // n beyond the buffers
		{kSpMVStencil27, []any{int32(2), int32(2), int32(3), v, v}, "cg.cu:"},                                     // 12 rows, 2 elements
		{kSpMVStencil27, []any{int32(1), int32(1), int32(2), v, upload(t, dev, "short", []float64{0})}, "cg.cu:"}, // Ap too short
	}
	for _, tt := range tests {
		_, err := dev.Launch(context.Background(), Module().MustKernel(tt.kernel), gpuext.Config{Grid: 1, Block: 32}, tt.args...)
		var f *sim.Fault
		switch {
		case err == nil:
			t.Errorf("%s%v: no error", tt.kernel, tt.args)
		case tt.fault == "" && errors.As(err, &f):
			t.Errorf("%s%v: a fault (%v); want the arguments refused", tt.kernel, tt.args, err)
		case tt.fault != "" && (!errors.As(err, &f) || !strings.Contains(err.Error(), tt.fault)):
			t.Errorf("%s%v: %v; want a fault naming %s", tt.kernel, tt.args, err, tt.fault)
		}
	}
}

// TestStencil27EmptyGrid: a grid with an empty dimension (or one whose
// nx·ny overflows int, as the kernel computes it) has no rows, so
// spmvStencil27 writes nothing, as on a GPU: the kernel guards with
// t < nx·ny·nz and no host code checks the grid for it.
func TestStencil27EmptyGrid(t *testing.T) {
	dev := openSim(t)
	v := upload(t, dev, "v", []float64{1, 2})
	for _, a := range [][3]int32{{0, 2, 2}, {2, 2, 0}, {1 << 16, 1 << 16, 1}} {
		ap := upload(t, dev, "Ap", []float64{42, 42})
		launch(t, dev, kSpMVStencil27, 1, 32, a[0], a[1], a[2], v, ap)
		if got := download(t, ap); got[0] != 42 || got[1] != 42 {
			t.Errorf("grid %v: Ap = %v, want it untouched", a, got)
		}
	}
}

// TestDotGrid: ddotPartial's grid is at least one block, one per 256
// elements, at most dotBlocks, and the same for every device.
func TestDotGrid(t *testing.T) {
	for _, c := range []struct{ n, want int }{{0, 1}, {1, 1}, {256, 1}, {257, 2}, {65536, 256}, {1 << 30, dotBlocks}} {
		if got := dotGrid(c.n); got != c.want {
			t.Errorf("dotGrid(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestStagesEqualH200At20 runs stages 1–8 at 20³ on the simulator, every
// kernel from cg.ptx, and holds each stage's residual history (every
// iteration's ‖r‖, so every kernel's output feeds it), final residual, true
// residual and error of x to the H200's bit for bit
// (evidence/cg-20-h200-2026-11-30/cg.json: `warplab run cg --backend gpu
// --grid 20 --stage all`, NVIDIA H200, driver 580.159.04, 2026-11-30, the
// cubin nvcc 13.0 compiled from cg.cu). The kernels avoid fused
// multiply-adds and reduce in a fixed order, so the GPU and the simulator
// compute the same doubles; the self-test checks the same at 8³ on every
// GPU run. It takes about a minute, so it runs with WARPLAB_LONG=1.
func TestStagesEqualH200At20(t *testing.T) {
	if os.Getenv("WARPLAB_LONG") == "" {
		t.Skip("set WARPLAB_LONG=1 to compare the simulator's stages at 20³ with the H200's")
	}
	b, err := os.ReadFile("../../evidence/cg-20-h200-2026-11-30/cg.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Backend != "gpu" || rep.Device != "NVIDIA H200" || rep.Grid != [3]int{20, 20, 20} || len(rep.Stages) != Stages {
		t.Fatalf("recorded run: backend %q device %q grid %v, %d stages", rep.Backend, rep.Device, rep.Grid, len(rep.Stages))
	}
	p, err := Generate(Cube(20), GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dev := openSim(t)
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for s := 1; s < Stages; s++ {
		hw := rep.Stages[s]
		r, err := RunStage(dev, p, s, RunOptions{})
		if err != nil {
			t.Fatalf("stage %d: %v", s, err)
		}
		if hw.Stage != s || hw.Backend != "gpu" || len(hw.Residuals) != 149 {
			t.Fatalf("recorded stage %d is stage %d on %q with %d residuals", s, hw.Stage, hw.Backend, len(hw.Residuals))
		}
		if !equalBits(r.Residuals, hw.Residuals) {
			t.Errorf("stage %d: residual history differs from the H200's (%d and %d iterations)", s, len(r.Residuals), len(hw.Residuals))
		}
		if !same(r.FinalResidual, hw.FinalResidual) || !same(r.TrueResidual, hw.TrueResidual) || !same(r.MaxErr, hw.MaxErr) {
			t.Errorf("stage %d: final %v true %v max err %v; H200 %v, %v, %v", s, r.FinalResidual, r.TrueResidual, r.MaxErr, hw.FinalResidual, hw.TrueResidual, hw.MaxErr)
		}
		if r.Launches != hw.Launches || r.Transfers.H2DCalls != hw.Transfers.H2DCalls || r.Transfers.D2HCalls != hw.Transfers.D2HCalls {
			t.Errorf("stage %d: %d launches, transfers %+v; H200 %d, %+v", s, r.Launches, r.Transfers, hw.Launches, hw.Transfers)
		}
	}
}
