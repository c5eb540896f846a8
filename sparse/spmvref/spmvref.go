// Package spmvref holds what every SpMV lesson checks its kernels against:
// a matrix with its vector x, the float64 CPU reference y and the per-row
// scales the tolerance is relative to; the Day-37 seed pair (even and
// skewed rows with the same nonzeros) and Matrix Market files read as the
// recorded measurements read them; and the checks.
//
// It sits below the lessons (lessons/spmv, lessons/libs and the corpus
// runs import it; it imports only package sparse), so that one lesson does
// not import another for its inputs (issue 30).
package spmvref

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/warplab/warplab/sparse"
)

// WarpSize is the lanes of a warp: the seed's skewed rows are laid out one
// aligned group of 32 at a time, one warp of the thread-per-row kernel.
const WarpSize = 32

// The seed's row lengths. The heavy row is derived, not typed, so the two
// matrices cannot drift into holding different numbers of nonzeros: 31 light
// rows and one heavy row hold exactly as many as 32 even rows.
const (
	EvenRowLen  = 16
	LightRowLen = 3
	HeavyRowLen = WarpSize*EvenRowLen - (WarpSize-1)*LightRowLen // 419
)

// RelTolerance is the seed's relative tolerance for y against the CPU
// reference (relative to each row's sum of |val·x|, see
// FirstMismatchScaled).
const RelTolerance float32 = 1e-5

// Matrix is one input of a lesson: a CSR matrix, its row lengths (what the
// lane-slot predictions are computed from), the vector x it is multiplied
// by, and the float64-accumulated CPU reference y.
type Matrix struct {
	Name    string
	CSR     *sparse.CSR
	Lengths []int
	X       []float32 // x[c] = c%13 + 1
	Want    []float32 // CPU reference, float64 accumulation
	// Scale is each row's sum of |val·x| (= |Want| on the seed's all-positive
	// matrices) and ScaleTotal their sum: what the checks' tolerances are
	// relative to.
	Scale      []float32
	ScaleTotal float64
	// Expected is the nonzero count the matrix must hold (Rows*16 for the
	// seed pair, the file's count for a Matrix Market file).
	Expected int
}

// NewMatrix wraps csr under name with the seed's x (SeedVector), the
// float64 CPU reference and the per-row scales; expected is the nonzero
// count it must hold.
func NewMatrix(name string, csr *sparse.CSR, expected int) *Matrix {
	x := SeedVector(csr.Cols)
	m := &Matrix{
		Name:     name,
		CSR:      csr,
		Lengths:  csr.RowLengths(),
		X:        x,
		Want:     csr.MulVec64(x),
		Expected: expected,
	}
	m.Scale, m.ScaleTotal = rowScales(m)
	return m
}

// SeedVector returns the seed's x: x[c] = c%13 + 1. It depends on the column
// and the values on the position inside the row, so a kernel that reads val
// at the wrong offset and one that reads the wrong column give different
// wrong answers.
func SeedVector(n int) []float32 {
	x := make([]float32, n)
	for c := range x {
		x[c] = float32(c%13 + 1)
	}
	return x
}

// SeedRowLengths returns the seed's row lengths for rows rows: 16 everywhere
// (even), or in every aligned group of 32 rows, 31 rows of 3 and one of 419
// (skewed). A group of 32 rows is one warp of the thread-per-row kernel, so
// the imbalance lands inside a warp. rows must be a positive multiple of 32.
func SeedRowLengths(rows int, skewed bool) []int {
	lengths := make([]int, rows)
	for r := range lengths {
		lengths[r] = EvenRowLen
	}
	if !skewed {
		return lengths
	}
	for first := 0; first+WarpSize <= rows; first += WarpSize {
		for k := 0; k < WarpSize-1; k++ {
			lengths[first+k] = LightRowLen
		}
		lengths[first+WarpSize-1] = HeavyRowLen
	}
	return lengths
}

// SeedCOO builds one of the seed's matrices in COO, as the seed does: row r
// holds len consecutive columns starting at column r, shifted left only
// where the row would run past the last column; the value of the j-th entry
// of a row is j%7 + 1. The columns follow the same rule for both matrices,
// so the gather into x is held fixed while the row lengths change.
func SeedCOO(lengths []int) *sparse.COO {
	rows := len(lengths)
	nnz := 0
	for _, n := range lengths {
		nnz += n
	}
	coo := &sparse.COO{
		Rows: rows, Cols: rows,
		Row: make([]int32, 0, nnz), Col: make([]int32, 0, nnz), Val: make([]float32, 0, nnz),
	}
	for r, n := range lengths {
		start := r
		if start+n > rows {
			start = rows - n
		}
		for j := 0; j < n; j++ {
			coo.Row = append(coo.Row, int32(r))
			coo.Col = append(coo.Col, int32(start+j))
			coo.Val = append(coo.Val, float32(j%7+1))
		}
	}
	return coo
}

// MaxSeedRows is the largest seed size: its rows × 16 nonzeros must fit
// int32 offsets.
const MaxSeedRows = (1<<31 - 1) / EvenRowLen

// SeedRowsWant says what a seed size of rows lacks ("want ..."), "" when
// it is one: a library's error and a command line's --rows say it alike.
func SeedRowsWant(rows int) string {
	switch {
	case rows <= 0 || rows%WarpSize != 0:
		return fmt.Sprintf("want a positive multiple of %d from %d to %d (the skewed matrix is built one aligned group of 32 rows at a time)", WarpSize, (HeavyRowLen+WarpSize-1)/WarpSize*WarpSize, MaxSeedRows)
	case rows < HeavyRowLen:
		return fmt.Sprintf("want at least %d, so the heavy row of %d fits inside the matrix's columns (448 is the smallest)", HeavyRowLen, HeavyRowLen)
	case rows > MaxSeedRows:
		return fmt.Sprintf("want at most %d, so the %d nonzeros fit int32 offsets", MaxSeedRows, rows*EvenRowLen)
	}
	return ""
}

// SeedMatrices builds the seed's pair, "even" and "skewed", with rows rows
// each: in COO, converted to CSR by sparse.ToCSR's counting sort, with x and
// the CPU reference. Errors begin with prefix ("spmv", "libs").
func SeedMatrices(prefix string, rows int) ([]*Matrix, error) {
	if want := SeedRowsWant(rows); want != "" {
		return nil, fmt.Errorf("%s: rows %d: %s", prefix, rows, want)
	}
	var out []*Matrix
	for _, skewed := range []bool{false, true} {
		name := "even"
		if skewed {
			name = "skewed"
		}
		lengths := SeedRowLengths(rows, skewed)
		csr, err := sparse.ToCSR(SeedCOO(lengths))
		if err != nil {
			return nil, fmt.Errorf("%s: building the %s matrix: %w", prefix, name, err)
		}
		out = append(out, NewMatrix(name, csr, rows*EvenRowLen))
	}
	return out, nil
}

// FileMatrix reads a Matrix Market file as the recorded measurements did
// (symmetric files expanded, columns ascending within a row, explicit zeros
// kept) and names it by the file's base name without ".mtx".
//
// Every error names path (prefix, e.g. "spmv", leads a validation error).
func FileMatrix(prefix, path string) (*Matrix, error) {
	csr, _, err := sparse.ReadCSRFile(path)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	if err := csr.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", prefix, path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".mtx")
	return NewMatrix(name, csr, csr.NNZ()), nil
}

// MatrixFlagError returns err with the flag in front when it is a Matrix
// Market file's error, which begins with the file's path (FileMatrix):
// "--matrix m.mtx: line 4: ...". Other errors come back as they are.
func MatrixFlagError(flag string, paths []string, err error) error {
	for _, p := range paths {
		if p != "" && strings.HasPrefix(err.Error(), p+":") {
			return fmt.Errorf("%s %w", flag, err)
		}
	}
	return err
}

// SuiteSparseNames are the four SuiteSparse matrices the project keeps in
// its shared folder (and whose Nsight Compute counters the spmv lesson
// records), in the order the notebooks show them.
var SuiteSparseNames = []string{"bayer10", "bcsstk13", "cryg2500", "rajat01"}

// MatricesDir returns where the SuiteSparse matrices are: dir when it is
// set (lab.Options.Matrices: WARPLAB_MATRICES, read at the edge and passed
// down), else the first shared/matrices folder in the working directory or
// a directory above it (a notebook runs in notebooks/, beside which the
// project keeps ../shared). "" when there is none: a notebook then skips
// those rows and says so.
func MatricesDir(dir string) string {
	if dir != "" {
		return dir
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", "matrices")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// FirstMismatch returns the first index where got and want differ by more
// than tol relative to want (absolute where want is 0), or len(want) when
// they agree everywhere. It computes in float32, as the seed does. A got
// shorter than want mismatches at its end.
func FirstMismatch(got, want []float32, tol float32) int {
	return FirstMismatchScaled(got, want, nil, tol)
}

// FirstMismatchScaled is FirstMismatch with the tolerance relative to
// scale[i] instead of |want[i]|: the lessons pass each row's sum of
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
