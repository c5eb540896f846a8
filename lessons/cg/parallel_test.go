package cg

import (
	"math"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// TestParallelKernels: SpMV and waxpby are elementwise, so any chunking is
// bit-identical to serial; ddot re-associates the sum, so it equals the
// chunked sum written out here, and serial only for one chunk.
func TestParallelKernels(t *testing.T) {
	p, err := Generate(Grid{7, 6, 5}, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := p.A.Rows
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = math.Sin(float64(i)) * 1e3
		y[i] = math.Cos(float64(3*i)) / 7
	}
	wantAx := make([]float64, n)
	spmv(p.A, x, wantAx)
	wantW := make([]float64, n)
	waxpby(1, x, -0.3, y, wantW)
	for _, c := range []int{1, 2, 3, 4, 7, 16, n} {
		k := parallelKernels{chunks: c}
		ax := make([]float64, n)
		k.spmv(p.A, x, ax)
		if !equalBits(ax, wantAx) {
			t.Errorf("%d chunks: SpMV differs from serial", c)
		}
		w := make([]float64, n)
		k.waxpby(1, x, -0.3, y, w)
		if !equalBits(w, wantW) {
			t.Errorf("%d chunks: waxpby differs from serial", c)
		}
		var chunked float64
		for j := 0; j < c; j++ {
			lo, hi := j*n/c, (j+1)*n/c
			chunked += ddot(x[lo:hi], y[lo:hi])
		}
		if got := k.dot(x, y); got != chunked {
			t.Errorf("%d chunks: dot %.17g, want the chunk-ordered sum %.17g", c, got, chunked)
		}
		if c == 1 && k.dot(x, y) != ddot(x, y) {
			t.Errorf("one chunk: dot differs from serial")
		}
		// Any order is within the textbook bound n·u·Σ|x_i y_i| of serial.
		var abs float64
		for i := range x {
			abs += math.Abs(x[i] * y[i])
		}
		if d := math.Abs(k.dot(x, y) - ddot(x, y)); d > float64(n)*0x1p-53*abs {
			t.Errorf("%d chunks: |parallel − serial| = %g over the bound %g", c, d, float64(n)*0x1p-53*abs)
		}
	}
}

// TestParallelVsSerial states what the parallel CPU version changes: only
// ddot's association, which moves the last bits of rtrans and p·Ap. The
// histories agree to about 1e-13 while the residual is above ~1e-10 of its
// start; below that, the recursive residual is made of rounding errors and
// the two histories separate (factors of 2 by the end), while the solutions
// themselves stay equal to rounding. A run is reproducible for a fixed
// number of workers.
func TestParallelVsSerial(t *testing.T) {
	for _, g := range []Grid{Cube(20), {4, 5, 6}} {
		p, serial := solve(t, g, SolveOptions{})
		for _, w := range []int{1, 2, 3, 8} {
			r, err := SolveCPU(p, SolveOptions{Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			again := testenv.Must(SolveCPU(p, SolveOptions{Workers: w}))(t)
			if !equalBits(r.Residuals, again.Residuals) || !equalBits(r.X, again.X) {
				t.Errorf("%v, %d workers: two runs differ", g, w)
			}
			if r.Iterations != serial.Iterations {
				t.Fatalf("%v, %d workers: %d iterations, serial %d", g, w, r.Iterations, serial.Iterations)
			}
			if w == 1 {
				if r.Name != "cpu-serial" || !equalBits(r.Residuals, serial.Residuals) {
					t.Errorf("%v: Workers 1 is not the serial solver", g)
				}
				continue
			}
			if r.Name != "cpu-parallel" || r.Workers != w {
				t.Errorf("name %q workers %d", r.Name, r.Workers)
			}
			first := -1
			for k := range r.Residuals {
				s, q := serial.Residuals[k], r.Residuals[k]
				if first < 0 && math.Float64bits(s) != math.Float64bits(q) {
					first = k + 1
				}
				if s > 1e-8*serial.Residuals[0] && math.Abs(q-s) > 1e-11*s {
					t.Errorf("%v, %d workers, iteration %d: residual %.17g, serial %.17g (relative %.1e)", g, w, k+1, q, s, math.Abs(q-s)/s)
				}
			}
			var dx float64
			for i := range r.X {
				dx = max(dx, math.Abs(r.X[i]-serial.X[i]))
			}
			if dx > 1e-13 || r.TrueResidual > 1e-10 || r.MaxErr > 1e-13 {
				t.Errorf("%v, %d workers: max |x − x_serial| %g, true residual %g, max err %g", g, w, dx, r.TrueResidual, r.MaxErr)
			}
			t.Logf("%v, %d workers: bit-identical to serial through iteration %d of %d; final residual %.3g (serial %.3g); max |x − x_serial| %.1e",
				g, w, first-1, r.Iterations, r.FinalResidual, serial.FinalResidual, dx)
		}
	}
}
