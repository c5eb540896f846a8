package sparse

import (
	"fmt"
	"math"
	"sort"
)

// COO is a sparse matrix in coordinate form: one (Row[e], Col[e], Val[e])
// triple per stored entry, 0-based. It is the form a matrix is assembled in
// (a file, a generator), because entries can arrive in any order; ToCSR turns
// it into the form the kernels read.
type COO struct {
	Rows, Cols int
	Row, Col   []int32
	Val        []float32
}

// NNZ returns the number of stored entries, explicit zeros included.
func (c *COO) NNZ() int { return len(c.Val) }

// Float is the value type of a CSR matrix: float32 for the SpMV lessons'
// kernels, float64 for CG's.
type Float interface{ ~float32 | ~float64 }

// CSROf is a sparse matrix in compressed sparse row form, with int32 row
// pointers and column indices and values of type T: exactly the three
// arrays the CUDA kernels take (see the package documentation for why
// int32). It is the one CSR type of the lessons: CSR (float32) in spmv,
// libs and tiling, CSR64 in cg.
//
// Row r owns ColIdx[RowPtr[r]:RowPtr[r+1]] and the same range of Val, so
// len(RowPtr) == Rows+1, RowPtr[0] == 0 and RowPtr[Rows] == NNZ(). Cols is
// the column count, never a column index.
type CSROf[T Float] struct {
	Rows, Cols int
	RowPtr     []int32
	ColIdx     []int32
	Val        []T
}

// CSR is the float32 matrix the SpMV kernels take; ReadCSR returns one.
type CSR = CSROf[float32]

// CSR64 is the float64 matrix of the CG lesson.
type CSR64 = CSROf[float64]

// NNZ returns the number of stored entries, explicit zeros included.
func (c *CSROf[T]) NNZ() int { return len(c.Val) }

// RowLen returns the number of entries stored in row r. The row length is
// the quantity SpMV load balance depends on: a thread-per-row warp runs
// until its longest row is done. It panics if r is out of range, like a
// slice index.
func (c *CSROf[T]) RowLen(r int) int { return int(c.RowPtr[r+1] - c.RowPtr[r]) }

// LongestRows returns the n longest rows (all of them when there are fewer),
// longest first, ties in row order: where a heavy-tailed matrix's work
// sits, for a sampled simulation that must not leave it out.
func (c *CSROf[T]) LongestRows(n int) []int {
	rows := make([]int, c.Rows)
	for i := range rows {
		rows[i] = i
	}
	sort.SliceStable(rows, func(a, b int) bool { return c.RowLen(rows[a]) > c.RowLen(rows[b]) })
	return rows[:min(n, len(rows))]
}

// RowLengths returns every row's length, for histograms and lane-slot
// arithmetic.
func (c *CSROf[T]) RowLengths() []int {
	out := make([]int, c.Rows)
	for r := range out {
		out[r] = c.RowLen(r)
	}
	return out
}

// RowStats summarizes the row lengths of a matrix: the shortest, the longest
// and the mean. Max/Mean is the imbalance a thread-per-row kernel pays for.
type RowStats struct {
	Min, Max int
	Mean     float64
}

// Stats returns the row-length summary. A matrix with no rows has all zero
// stats.
func (c *CSROf[T]) Stats() RowStats {
	if c.Rows == 0 {
		return RowStats{}
	}
	s := RowStats{Min: math.MaxInt, Max: 0}
	for r := 0; r < c.Rows; r++ {
		n := c.RowLen(r)
		s.Min = min(s.Min, n)
		s.Max = max(s.Max, n)
	}
	s.Mean = float64(c.NNZ()) / float64(c.Rows)
	return s
}

// checkDims reports dimensions that do not fit the int32 indices a CSR
// stores. nnz is checked too, since RowPtr holds offsets up to nnz.
func checkDims(rows, cols, nnz int) error {
	switch {
	case rows < 0 || cols < 0:
		return fmt.Errorf("sparse: negative dimensions %d x %d", rows, cols)
	case rows > math.MaxInt32 || cols > math.MaxInt32:
		return fmt.Errorf("sparse: dimensions %d x %d do not fit int32 indices", rows, cols)
	case nnz > math.MaxInt32:
		return fmt.Errorf("sparse: %d entries do not fit int32 row pointers", nnz)
	}
	return nil
}

// The CSR size limit. A CSR stores Rows+1 row pointers whatever its
// entries, and a lesson allocates x (Cols values) and y (Rows values)
// beside it, so a matrix's dimensions cost memory even when it holds
// almost nothing: a Matrix Market header claiming 10^9 rows and one entry
// made ToCSR allocate 8 GB (the row pointers and their cursors) and the
// spmv lesson grow to 18.5 GB before it was killed (issue 31).
//
// Allocating lazily cannot help: RowPtr is dense by definition, and the
// kernels index it directly, on the host and on the device. So ToCSR and
// ReadCSR refuse, before allocating anything for them, rows or columns
// beyond DimLimit(nnz) = max(MinDimLimit, DimPerEntry·nnz), capped at
// 2^31-1. The floor keeps every matrix of up to 2^24 (16,777,216) rows and
// columns legal, however few its entries: its row pointers take at most
// 64 MiB. Above it, a matrix must store at least one entry per 16 rows and
// per 16 columns, so its row-pointer memory stays within 16 times its
// entries' own (8 bytes a row for RowPtr and ToCSR's cursors against 8
// bytes an entry for ColIdx and Val). Real matrices store at least one
// entry per row and column (every SuiteSparse matrix the lessons use does,
// most of them several); a matrix whose rows are almost all empty is not
// one SpMV is taught or measured on, since its time would be the row
// pointers' stream. COO, which costs nothing per row, keeps the full int32
// range: ReadMatrixMarket accepts such a file, ReadCSR does not.
const (
	MinDimLimit = 1 << 24 // rows and columns always allowed
	DimPerEntry = 16      // rows or columns allowed per stored entry above MinDimLimit
)

// DimLimit is the most rows, and the most columns, a CSR with nnz stored
// entries may have: max(MinDimLimit, DimPerEntry·nnz), at most 2^31-1.
// See MinDimLimit for why.
func DimLimit(nnz int) int {
	if nnz < 0 {
		nnz = 0
	}
	if nnz > math.MaxInt32/DimPerEntry {
		return math.MaxInt32
	}
	return max(MinDimLimit, DimPerEntry*nnz)
}

// DimLimitError is a matrix whose rows or columns exceed DimLimit of its
// entries: ToCSR returns it, and ReadCSR inside a *ParseError naming the
// size line.
type DimLimitError struct {
	Rows, Cols, NNZ int
	Limit           int // DimLimit(NNZ)
}

func (e *DimLimitError) Error() string {
	entries := "entries"
	if e.NNZ == 1 {
		entries = "entry"
	}
	return fmt.Sprintf("sparse: %d rows and %d columns for %d %s exceed the CSR limit of %d rows and columns "+
		"(max(2^24, %d per entry), sparse.DimLimit): a CSR stores a row pointer for every row, %s here, and x and y take one value a column and a row",
		e.Rows, e.Cols, e.NNZ, entries, e.Limit, DimPerEntry, byteSize(4*(int64(e.Rows)+1)))
}

// byteSize writes n bytes for a message: "4.0 GB", "64.0 MiB".
func byteSize(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// checkDimLimit returns a *DimLimitError when rows or cols exceed
// DimLimit(nnz).
func checkDimLimit(rows, cols, nnz int) error {
	if lim := DimLimit(nnz); rows > lim || cols > lim {
		return &DimLimitError{Rows: rows, Cols: cols, NNZ: nnz, Limit: lim}
	}
	return nil
}

// ToCSR converts coo to CSR with the Day-37 seed's counting sort: count the
// entries of each row, prefix-sum the counts into row pointers, then scatter
// every entry once through a cursor array that starts at each row's first
// slot. It runs in O(nnz + rows), works whatever order the entries arrive in,
// and is stable: entries of one row keep their COO order (call SortRows for
// ascending columns). Duplicates are not combined.
//
// It returns an error, and allocates nothing, if the arrays differ in
// length, an index is out of range (the error names the first bad entry), a
// size does not fit int32, or the rows or columns exceed DimLimit(nnz) (a
// *DimLimitError; see MinDimLimit).
func ToCSR(coo *COO) (*CSR, error) {
	nnz := len(coo.Val)
	if len(coo.Row) != nnz || len(coo.Col) != nnz {
		return nil, fmt.Errorf("sparse: COO arrays differ in length: %d rows, %d cols, %d values",
			len(coo.Row), len(coo.Col), nnz)
	}
	if err := checkDims(coo.Rows, coo.Cols, nnz); err != nil {
		return nil, err
	}
	if err := checkDimLimit(coo.Rows, coo.Cols, nnz); err != nil {
		return nil, err
	}
	for e := 0; e < nnz; e++ {
		if r := coo.Row[e]; r < 0 || int(r) >= coo.Rows {
			return nil, fmt.Errorf("sparse: COO entry %d: row %d out of range [0,%d)", e, r, coo.Rows)
		}
		if c := coo.Col[e]; c < 0 || int(c) >= coo.Cols {
			return nil, fmt.Errorf("sparse: COO entry %d: column %d out of range [0,%d)", e, c, coo.Cols)
		}
	}

	rowPtr := make([]int32, coo.Rows+1)
	for _, r := range coo.Row {
		rowPtr[r+1]++
	}
	for r := 0; r < coo.Rows; r++ {
		rowPtr[r+1] += rowPtr[r]
	}
	cursor := make([]int32, coo.Rows)
	copy(cursor, rowPtr[:coo.Rows])
	colIdx := make([]int32, nnz)
	val := make([]float32, nnz)
	for e, r := range coo.Row {
		slot := cursor[r]
		cursor[r]++
		colIdx[slot] = coo.Col[e]
		val[slot] = coo.Val[e]
	}
	return &CSR{Rows: coo.Rows, Cols: coo.Cols, RowPtr: rowPtr, ColIdx: colIdx, Val: val}, nil
}

// Validate checks the invariants every kernel relies on without checking
// them itself: len(RowPtr) == Rows+1, RowPtr[0] == 0, row pointers never
// decrease and end at NNZ, len(ColIdx) == len(Val), every column in
// [0, Cols), and sizes that fit int32. A kernel handed a CSR that breaks one
// of these reads out of bounds; the error names the first bad row or entry
// so the fault can be found in the data, not in the kernel.
func (c *CSROf[T]) Validate() error {
	if len(c.ColIdx) != len(c.Val) {
		return fmt.Errorf("sparse: CSR has %d column indices but %d values", len(c.ColIdx), len(c.Val))
	}
	if err := checkDims(c.Rows, c.Cols, len(c.Val)); err != nil {
		return err
	}
	if len(c.RowPtr) != c.Rows+1 {
		return fmt.Errorf("sparse: CSR has %d row pointers, want Rows+1 = %d", len(c.RowPtr), c.Rows+1)
	}
	if c.RowPtr[0] != 0 {
		return fmt.Errorf("sparse: CSR row 0 starts at %d, want 0", c.RowPtr[0])
	}
	nnz := len(c.Val)
	for r := 0; r < c.Rows; r++ {
		if c.RowPtr[r+1] < c.RowPtr[r] {
			return fmt.Errorf("sparse: CSR row %d: row pointer decreases from %d to %d", r, c.RowPtr[r], c.RowPtr[r+1])
		}
		if int(c.RowPtr[r+1]) > nnz {
			return fmt.Errorf("sparse: CSR row %d: ends at %d, past nnz %d", r, c.RowPtr[r+1], nnz)
		}
	}
	if int(c.RowPtr[c.Rows]) != nnz {
		return fmt.Errorf("sparse: CSR row pointers end at %d, want nnz %d", c.RowPtr[c.Rows], nnz)
	}
	for r := 0; r < c.Rows; r++ {
		for j := c.RowPtr[r]; j < c.RowPtr[r+1]; j++ {
			if col := c.ColIdx[j]; col < 0 || int(col) >= c.Cols {
				return fmt.Errorf("sparse: CSR row %d, entry %d: column %d out of range [0,%d)", r, j, col, c.Cols)
			}
		}
	}
	return nil
}

// rowSorter sorts one row's columns and moves the values with them.
type rowSorter[T Float] struct {
	col []int32
	val []T
}

func (s rowSorter[T]) Len() int           { return len(s.col) }
func (s rowSorter[T]) Less(i, j int) bool { return s.col[i] < s.col[j] }
func (s rowSorter[T]) Swap(i, j int) {
	s.col[i], s.col[j] = s.col[j], s.col[i]
	s.val[i], s.val[j] = s.val[j], s.val[i]
}

// SortRows sorts the columns of every row ascending, moving values with
// their columns. Ascending columns make a warp's gather into x walk forward,
// and they are the layout the recorded ncu measurements used. The sort is
// stable, so duplicate columns (if any) keep their order. Rows already in
// order are only scanned.
func (c *CSROf[T]) SortRows() {
	for r := 0; r < c.Rows; r++ {
		lo, hi := c.RowPtr[r], c.RowPtr[r+1]
		s := rowSorter[T]{col: c.ColIdx[lo:hi], val: c.Val[lo:hi]}
		if !sort.IsSorted(s) {
			sort.Stable(s)
		}
	}
}

// MulVec64 returns y = A x computed on the CPU with float64 accumulation, as
// the seed's spmvCsrCpu does: y[r] = T(sum over the row of
// float64(val) * float64(x[col])), summed in storage order (for CSR64 that
// is plain float64 arithmetic). It is the
// reference the GPU and simulator results are checked against; accumulating
// in float64 keeps its own rounding far below the float32 kernels'.
//
// It panics if len(x) != Cols, the way a dimension mismatch panics in gonum.
func (c *CSROf[T]) MulVec64(x []T) []T {
	if len(x) != c.Cols {
		panic(fmt.Sprintf("sparse: MulVec64: len(x) = %d, want Cols = %d", len(x), c.Cols))
	}
	y := make([]T, c.Rows)
	for r := 0; r < c.Rows; r++ {
		var sum float64
		for j := c.RowPtr[r]; j < c.RowPtr[r+1]; j++ {
			sum += float64(c.Val[j]) * float64(x[c.ColIdx[j]])
		}
		y[r] = T(sum)
	}
	return y
}
