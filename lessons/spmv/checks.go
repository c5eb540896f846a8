package spmv

import (
	"math"

	"github.com/warplab/warplab/sparse/spmvref"
)

// The seed's checks. Each returns enough to name what went wrong, because
// "wrong at row 524256" names the warp and "wrong" does not.

// RelTolerance is the seed's relative tolerance for y against the CPU
// reference; ProbeTolerance the one for the probe's total.
const (
	RelTolerance   = spmvref.RelTolerance
	ProbeTolerance = 1e-6
)

// FirstMismatch is spmvref.FirstMismatch: the first index where got and
// want differ by more than tol relative to want, len(want) when none.
func FirstMismatch(got, want []float32, tol float32) int {
	return spmvref.FirstMismatch(got, want, tol)
}

// FirstMismatchScaled is spmvref.FirstMismatchScaled: FirstMismatch with
// the tolerance relative to each row's scale (the sum of |val·x|).
func FirstMismatchScaled(got, want, scale []float32, tol float32) int {
	return spmvref.FirstMismatchScaled(got, want, scale, tol)
}

// Total sums v in float64, because the totals here run past what a float32
// counts exactly.
func Total(v []float32) float64 {
	var t float64
	for _, f := range v {
		t += float64(f)
	}
	return t
}

// ProbeTotalOK reports whether the probe's partial sums add up to the
// reference's total within ProbeTolerance relative to scale: the seed's
// |wantTotal|, or for a matrix with mixed signs the total of |val·x|.
func ProbeTotalOK(probeTotal, wantTotal, scale float64) bool {
	return math.Abs(probeTotal-wantTotal) <= ProbeTolerance*scale
}
