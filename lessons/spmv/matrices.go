package spmv

import (
	"fmt"

	"github.com/warplab/warplab/sparse"
	"github.com/warplab/warplab/sparse/spmvref"
)

// The seed pair, the matrix type and the checks live in sparse/spmvref,
// below the lessons, so that lessons/libs and the corpus runs share them
// without importing this lesson (issue 30). The names here forward to it,
// so this lesson, its notebook and its callers read as before.

// The seed's row lengths (spmvref's): 16 a row, or 31 rows of 3 and one of
// 419 in every aligned group of 32.
const (
	EvenRowLen  = spmvref.EvenRowLen
	LightRowLen = spmvref.LightRowLen
	HeavyRowLen = spmvref.HeavyRowLen
)

// Matrix is one input of the lesson (spmvref.Matrix): a CSR matrix, its row
// lengths, x, the float64 CPU reference and the row scales.
type Matrix = spmvref.Matrix

// SeedRowLengths is spmvref.SeedRowLengths.
func SeedRowLengths(rows int, skewed bool) []int { return spmvref.SeedRowLengths(rows, skewed) }

// SeedCOO is spmvref.SeedCOO.
func SeedCOO(lengths []int) *sparse.COO { return spmvref.SeedCOO(lengths) }

// checkSeedRows reports a row count the seed matrices cannot be built with.
func checkSeedRows(rows int) error {
	if want := seedRowsWant(rows); want != "" {
		return fmt.Errorf("spmv: rows %d: %s", rows, want)
	}
	return nil
}

// seedRowsWant is spmvref.SeedRowsWant.
func seedRowsWant(rows int) string { return spmvref.SeedRowsWant(rows) }

// SeedMatrices builds the seed's pair, "even" and "skewed", with rows rows
// each (spmvref.SeedMatrices).
func SeedMatrices(rows int) ([]*Matrix, error) { return spmvref.SeedMatrices("spmv", rows) }

// FileMatrix reads a Matrix Market file as the recorded measurements did
// (spmvref.FileMatrix); every error names path.
func FileMatrix(path string) (*Matrix, error) { return spmvref.FileMatrix("spmv", path) }

func newMatrix(name string, csr *sparse.CSR, expected int) *Matrix {
	return spmvref.NewMatrix(name, csr, expected)
}

// SeedVector is spmvref.SeedVector: x[c] = c%13 + 1.
func SeedVector(n int) []float32 { return spmvref.SeedVector(n) }

// matrixInfo summarizes m for the Part 1 table. Its mean row is the
// nonzeros the matrix should hold over its rows, as the seed prints it.
func matrixInfo(m *Matrix) MatrixInfo {
	st := m.CSR.Stats()
	mean := 0.0
	if m.CSR.Rows > 0 {
		mean = float64(m.Expected) / float64(m.CSR.Rows)
	}
	return MatrixInfo{Name: m.Name, Rows: m.CSR.Rows, Cols: m.CSR.Cols, NNZ: m.CSR.NNZ(), MinRow: st.Min, MaxRow: st.Max, MeanRow: mean}
}
