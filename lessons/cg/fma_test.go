package cg

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
)

// Values where a fused multiply-add and a multiply followed by an add differ:
// a·b = 1 − 2⁻⁶⁰ exactly, which rounds to 1, so float64(a·b) + c = 0 while
// fma(a, b, c) = −2⁻⁶⁰.
var (
	fmaA = 1 + 0x1p-30
	fmaB = 1 - 0x1p-30
	fmaC = -1.0
)

func unfused(a, b, c float64) float64 { return float64(a*b) + c }

// TestKernelsNeverFuse checks, on every GOARCH and GOAMD64 level, that the
// three kernels round each product before adding it, as HPCCG's serial C++
// does on baseline x86-64. The kernels guarantee it with float64()
// conversions, which the Go spec says prevent fusion.
func TestKernelsNeverFuse(t *testing.T) {
	want := unfused(fmaA, fmaB, fmaC)
	if fused := math.FMA(fmaA, fmaB, fmaC); fused == want {
		t.Fatalf("test values do not separate FMA (%g) from mul+add (%g)", fused, want)
	}
	// ddot: sum = 0 + c·1, then sum + a·b.
	if got := ddot([]float64{fmaC, fmaA}, []float64{1, fmaB}); got != want {
		t.Errorf("ddot = %g, want unfused %g", got, want)
	}
	// SpMV: one row [1, a] times x = [c, b].
	a := &CSR{Rows: 2, Cols: 2, RowPtr: []int32{0, 2, 2}, ColIdx: []int32{0, 1}, Val: []float64{1, fmaA}}
	y := make([]float64, 2)
	spmv(a, []float64{fmaC, fmaB}, y)
	if y[0] != want {
		t.Errorf("spmv = %g, want unfused %g", y[0], want)
	}
	// waxpby, all three branches.
	w := make([]float64, 1)
	for _, tt := range []struct{ alpha, x, beta, y float64 }{
		{1, fmaC, fmaA, fmaB}, // w = x + beta·y
		{fmaA, fmaB, 1, fmaC}, // w = alpha·x + y
		{fmaA, fmaB, -1, 1},   // w = alpha·x + beta·y, beta·y = −1 exactly
	} {
		waxpby(tt.alpha, []float64{tt.x}, tt.beta, []float64{tt.y}, w)
		want := float64(tt.alpha*tt.x) + float64(tt.beta*tt.y)
		if tt.alpha == 1 {
			want = tt.x + float64(tt.beta*tt.y)
		}
		if fused := math.FMA(tt.alpha, tt.x, float64(tt.beta*tt.y)); tt.alpha != 1 && fused == want {
			t.Errorf("case %+v does not separate fused from unfused", tt)
		}
		if w[0] != want {
			t.Errorf("waxpby(%g, %g, %g, %g) = %g, want unfused %g", tt.alpha, tt.x, tt.beta, tt.y, w[0], want)
		}
	}
}

//go:noinline
func plainMulAdd(a, b, c float64) float64 { return a*b + c }

// TestPlainExpressionFusion documents what the gc compiler does with a plain
// a*b + c, which is why the kernels do not rely on it. On amd64 below
// GOAMD64=v3 there is no FMA instruction to use, so it must be unfused. With
// GOAMD64=v3 (and on arm64, ppc64le, s390x, riscv64) the compiler may fuse
// it, and the spec allows that: the test logs what happened and skips.
func TestPlainExpressionFusion(t *testing.T) {
	got := plainMulAdd(fmaA, fmaB, fmaC)
	fusedOrNot := "unfused"
	if got == math.FMA(fmaA, fmaB, fmaC) {
		fusedOrNot = "fused"
	}
	if runtime.GOARCH == "amd64" && !goamd64v3 {
		if got != unfused(fmaA, fmaB, fmaC) {
			t.Fatalf("amd64 below v3: a*b + c = %g, want the unfused %g", got, unfused(fmaA, fmaB, fmaC))
		}
		t.Logf("amd64 (GOAMD64 < v3): plain a*b + c is unfused, as HPCCG's -O3 x86-64 build")
		return
	}
	t.Skipf("%s (amd64.v3 = %v): the compiler may fuse plain a*b + c (here it was %s); the kernels use float64() conversions so they never fuse",
		runtime.GOARCH, goamd64v3, fusedOrNot)
}

// TestPTXKernelsNeverFuse checks the GPU side of the same guarantee, on the
// simulator, which executes cg.ptx as a GPU would: cg.cu writes every
// product and sum with __dmul_rn/__dadd_rn, which nvcc emits as mul.rn.f64
// and add.rn.f64 and neither nvcc nor ptxas may contract into an FMA. So
// cg.ptx has no fma or mad on doubles (nvcc's default -fmad=true would emit
// fma.rn.f64 for a plain a*b + c), and the kernels give the unfused result
// on values where fusing changes it.
func TestPTXKernelsNeverFuse(t *testing.T) {
	for i, line := range strings.Split(Module().PTX, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (strings.HasPrefix(f[0], "fma.") || strings.HasPrefix(f[0], "mad.")) && strings.HasSuffix(f[0], ".f64") {
			t.Errorf("cg.ptx:%d: %s fuses a double multiply-add", i+1, strings.TrimSpace(line))
		}
	}
	dev := openSim(t)
	want := unfused(fmaA, fmaB, fmaC)
	// waxpby, all three branches, as TestKernelsNeverFuse.
	for _, tt := range []struct{ alpha, x, beta, y float64 }{
		{1, fmaC, fmaA, fmaB},
		{fmaA, fmaB, 1, fmaC},
		{fmaA, fmaB, -1, 1},
	} {
		w := upload(t, dev, "w", []float64{42})
		launch(t, dev, kWaxpby, 1, 32, int32(1), tt.alpha, upload(t, dev, "x", []float64{tt.x}), tt.beta, upload(t, dev, "y", []float64{tt.y}), w)
		exp := float64(tt.alpha*tt.x) + float64(tt.beta*tt.y)
		if tt.alpha == 1 {
			exp = tt.x + float64(tt.beta*tt.y)
		}
		if got := download(t, w)[0]; got != exp {
			t.Errorf("waxpby(%g, %g, %g, %g) = %g on the simulator, want unfused %g", tt.alpha, tt.x, tt.beta, tt.y, got, exp)
		}
	}
	// The CSR SpMVs and the stencil's arithmetic: one row [1, a] times
	// x = [c, b].
	rowPtr := testenv.Must(gpuext.Upload(dev, "rowPtr", []int32{0, 2, 2}))(t)
	cols := testenv.Must(gpuext.Upload(dev, "cols", []int32{0, 1}))(t)
	vals := upload(t, dev, "vals", []float64{1, fmaA})
	x := upload(t, dev, "x", []float64{fmaC, fmaB})
	for _, k := range []string{kSpMVThreadPerRow, kSpMVThreadPerRowUnroll1, kSpMVSubwarp} {
		y := upload(t, dev, "y", []float64{42, 42})
		args := []any{int32(2), rowPtr, cols, vals, x, y}
		if k == kSpMVSubwarp {
			args = []any{int32(2), int32(1), rowPtr, cols, vals, x, y}
		}
		launch(t, dev, k, 1, 32, args...)
		if got := download(t, y)[0]; got != want {
			t.Errorf("%s = %g on the simulator, want unfused %g", k, got, want)
		}
	}
	// updateXRDot: x + alpha·p with x = c, alpha = a, p = b.
	xu, r := upload(t, dev, "x", []float64{fmaC}), upload(t, dev, "r", []float64{0})
	launch(t, dev, kUpdateXRDot, 1, dotThreads, int32(1), upload(t, dev, "alpha", []float64{fmaA}),
		upload(t, dev, "p", []float64{fmaB}), upload(t, dev, "Ap", []float64{0}), xu, r, upload(t, dev, "partial", []float64{0}))
	if got := download(t, xu)[0]; got != want {
		t.Errorf("updateXRDot x = %g on the simulator, want unfused %g", got, want)
	}
}
