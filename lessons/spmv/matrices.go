package spmv

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/warplab/warplab/sparse"
)

// The seed's row lengths. The heavy row is derived, not typed, so the two
// matrices cannot drift into holding different numbers of nonzeros: 31 light
// rows and one heavy row hold exactly as many as 32 even rows.
const (
	EvenRowLen  = 16
	LightRowLen = 3
	HeavyRowLen = WarpSize*EvenRowLen - (WarpSize-1)*LightRowLen // 419
)

// Matrix is one input of the lesson: a CSR matrix, its row lengths (what the
// lane-slot prediction is computed from), the vector x it is multiplied by,
// and the float64-accumulated CPU reference y.
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

// checkSeedRows reports a row count the seed matrices cannot be built with.
func checkSeedRows(rows int) error {
	if want := seedRowsWant(rows); want != "" {
		return fmt.Errorf("spmv: rows %d: %s", rows, want)
	}
	return nil
}

// seedRowsWant says what a seed size of rows lacks ("want ..."), "" when
// it is one: the library's error and the command line's --rows say it alike.
func seedRowsWant(rows int) string {
	const maxRows = (1<<31 - 1) / EvenRowLen
	switch {
	case rows <= 0 || rows%WarpSize != 0:
		return fmt.Sprintf("want a positive multiple of %d from %d to %d (the skewed matrix is built one aligned group of 32 rows at a time)", WarpSize, (HeavyRowLen+WarpSize-1)/WarpSize*WarpSize, maxRows)
	case rows < HeavyRowLen:
		return fmt.Sprintf("want at least %d, so the heavy row of %d fits inside the matrix's columns (448 is the smallest)", HeavyRowLen, HeavyRowLen)
	case rows > maxRows:
		return fmt.Sprintf("want at most %d, so the %d nonzeros fit int32 offsets", maxRows, rows*EvenRowLen)
	}
	return ""
}

// SeedMatrices builds the seed's pair, "even" and "skewed", with rows rows
// each: in COO, converted to CSR by sparse.ToCSR's counting sort, with x and
// the CPU reference.
func SeedMatrices(rows int) ([]*Matrix, error) {
	if err := checkSeedRows(rows); err != nil {
		return nil, err
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
			return nil, fmt.Errorf("spmv: building the %s matrix: %w", name, err)
		}
		out = append(out, newMatrix(name, csr, rows*EvenRowLen))
	}
	return out, nil
}

// FileMatrix reads a Matrix Market file as the recorded measurements did
// (symmetric files expanded, columns ascending within a row, explicit zeros
// kept) and names it by the file's base name without ".mtx".
//
// Every error names path.
func FileMatrix(path string) (*Matrix, error) {
	csr, _, err := sparse.ReadCSRFile(path)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	if err := csr.Validate(); err != nil {
		return nil, fmt.Errorf("spmv: %s: %w", path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".mtx")
	return newMatrix(name, csr, csr.NNZ()), nil
}

func newMatrix(name string, csr *sparse.CSR, expected int) *Matrix {
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

// Info summarizes m for the Part 1 table. Its mean row is the nonzeros the
// matrix should hold over its rows, as the seed prints it.
func (m *Matrix) Info() MatrixInfo {
	st := m.CSR.Stats()
	mean := 0.0
	if m.CSR.Rows > 0 {
		mean = float64(m.Expected) / float64(m.CSR.Rows)
	}
	return MatrixInfo{Name: m.Name, Rows: m.CSR.Rows, Cols: m.CSR.Cols, NNZ: m.CSR.NNZ(), MinRow: st.Min, MaxRow: st.Max, MeanRow: mean}
}
