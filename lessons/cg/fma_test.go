package cg

import (
	"math"
	"runtime"
	"testing"
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
	a := &CSR{N: 2, RowPtr: []int32{0, 2, 2}, Cols: []int32{0, 1}, Vals: []float64{1, fmaA}}
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
