package spmv

import "math"

// The seed's checks. Each returns enough to name what went wrong, because
// "wrong at row 524256" names the warp and "wrong" does not.

// RelTolerance is the seed's relative tolerance for y against the CPU
// reference; ProbeTolerance the one for the probe's total.
const (
	RelTolerance   float32 = 1e-5
	ProbeTolerance         = 1e-6
)

// FirstMismatch returns the first index where got and want differ by more
// than tol relative to want (absolute where want is 0), or len(want) when
// they agree everywhere. It computes in float32, as the seed does. A got
// shorter than want mismatches at its end.
func FirstMismatch(got, want []float32, tol float32) int {
	return FirstMismatchScaled(got, want, nil, tol)
}

// FirstMismatchScaled is FirstMismatch with the tolerance relative to
// scale[i] instead of |want[i]|: the lesson passes each row's sum of
// |val·x|, which equals |y| when every product is positive (the seed's
// matrices, so the seed's check is unchanged there) and keeps cancellation
// in a real matrix's row, where float32 and float64 sums legitimately part
// by more than 1e-5 of a small result, from reading as a wrong kernel. A
// nil scale means |want|; a zero scale means 1, as in the seed.
func FirstMismatchScaled(got, want, scale []float32, tol float32) int {
	for i, w := range want {
		if i >= len(got) {
			return i
		}
		s := float32(math.Abs(float64(w)))
		if scale != nil {
			s = scale[i]
		}
		if s == 0 {
			s = 1
		}
		d := got[i] - w
		if d < 0 {
			d = -d
		}
		if !(d <= tol*s) { // NaN mismatches too
			return i
		}
	}
	return len(want)
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

// rowScales returns, per row, the sum of |val·x| in float64 rounded to
// float32, and their total: the scales the checks are relative to.
func rowScales(m *Matrix) ([]float32, float64) {
	c := m.CSR
	out := make([]float32, c.Rows)
	var total float64
	for r := 0; r < c.Rows; r++ {
		var s float64
		for j := c.RowPtr[r]; j < c.RowPtr[r+1]; j++ {
			s += math.Abs(float64(c.Val[j]) * float64(m.X[c.ColIdx[j]]))
		}
		out[r] = float32(s)
		total += s
	}
	return out, total
}
