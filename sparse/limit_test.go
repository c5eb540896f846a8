package sparse

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocated (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

const allocBound = 64 << 20

// TestReadCSRHugeHeader: a Matrix Market header claiming 10^9 rows with one
// entry is refused at the size line, naming the limit, having allocated
// almost nothing (issue 31, item 2: it grew to 18.5 GB and was killed).
func TestReadCSRHugeHeader(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"rows", "%%MatrixMarket matrix coordinate real general\n% a comment\n1000000000 3 1\n1 1 1\n"},
		{"columns", "%%MatrixMarket matrix coordinate real general\n% a comment\n3 1000000000 1\n1 1 1\n"},
		{"square", "%%MatrixMarket matrix coordinate real general\n% a comment\n1000000000 1000000000 1\n1000000000 1 1\n"},
		{"symmetric", "%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n1000000000 1000000000 1\n2 1\n"},
		{"largest int32", "%%MatrixMarket matrix coordinate real general\n% a comment\n2147483647 2147483647 1\n1 1 1\n"},
		{"entries never come", "%%MatrixMarket matrix coordinate real general\n% a comment\n1000000000 1000000000 1000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, _, err = ReadCSR(strings.NewReader(tt.in)) })
			if n > allocBound {
				t.Errorf("ReadCSR allocated %d MiB before refusing, want < %d MiB", n>>20, allocBound>>20)
			}
			var pe *ParseError
			var dl *DimLimitError
			if !errors.As(err, &pe) || pe.Line != 3 || !errors.As(err, &dl) {
				t.Fatalf("ReadCSR: %v, want a *ParseError at line 3 (the size line) wrapping a *DimLimitError", err)
			}
			for _, want := range []string{"line 3: size line", "exceed the CSR limit of 16777216 rows and columns", "sparse.DimLimit"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
		})
	}

	// The file form names the path, and the reader's COO still takes it.
	path := filepath.Join(t.TempDir(), "huge.mtx")
	if err := os.WriteFile(path, []byte(tests[2].in), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	n := allocated(func() { _, _, err = ReadCSRFile(path) })
	if n > allocBound || err == nil || !strings.HasPrefix(err.Error(), path+": line 3: ") {
		t.Errorf("ReadCSRFile: %v after %d MiB, want the path, the line and < %d MiB", err, n>>20, allocBound>>20)
	}
	coo, _, err := ReadMatrixMarketFile(path)
	if err != nil || coo.Rows != 1e9 || coo.NNZ() != 1 {
		t.Errorf("ReadMatrixMarketFile: %v, want the 10^9-row COO with its one entry", err)
	}
}

// TestReadCSRLimitAfterCombining: a size the declared entries could reach
// but the entries read do not (here a symmetric file of diagonal entries,
// which do not double) is refused after reading, at the size line.
func TestReadCSRLimitAfterCombining(t *testing.T) {
	const entries = MinDimLimit/(2*DimPerEntry) + 1 // 2·entries·16 just passes the header check
	rows := MinDimLimit + 1
	var b strings.Builder
	fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate pattern symmetric\n%d %d %d\n", rows, rows, entries)
	for i := 1; i <= entries; i++ {
		fmt.Fprintf(&b, "%d %d\n", i, i)
	}
	_, _, err := ReadCSR(strings.NewReader(b.String()))
	var pe *ParseError
	var dl *DimLimitError
	if !errors.As(err, &pe) || pe.Line != 2 || !errors.As(err, &dl) || dl.NNZ != entries || !strings.Contains(err.Error(), "after symmetric expansion") {
		t.Fatalf("ReadCSR: %v, want a *ParseError at line 2 wrapping a *DimLimitError for %d entries", err, entries)
	}
}

// TestToCSRDimLimit: ToCSR refuses a COO beyond the limit before it
// allocates, and takes one just inside it.
func TestToCSRDimLimit(t *testing.T) {
	for _, c := range []COO{
		{Rows: 1e9, Cols: 3, Row: []int32{0}, Col: []int32{0}, Val: []float32{1}},
		{Rows: 3, Cols: 1e9, Row: []int32{0}, Col: []int32{0}, Val: []float32{1}},
		{Rows: MinDimLimit + 1, Cols: 1},
	} {
		var err error
		n := allocated(func() { _, err = ToCSR(&c) })
		var dl *DimLimitError
		if !errors.As(err, &dl) || dl.Limit != MinDimLimit {
			t.Errorf("ToCSR(%dx%d, %d entries): %v, want a *DimLimitError with limit %d", c.Rows, c.Cols, c.NNZ(), err, MinDimLimit)
		}
		if n > 1<<20 {
			t.Errorf("ToCSR(%dx%d) allocated %d bytes before refusing", c.Rows, c.Cols, n)
		}
	}
	// Just inside: 2^24 columns, one entry (the rows cost the memory, so
	// the test keeps them few).
	c := COO{Rows: 2, Cols: MinDimLimit, Row: []int32{1}, Col: []int32{MinDimLimit - 1}, Val: []float32{5}}
	if csr, err := ToCSR(&c); err != nil || csr.Validate() != nil {
		t.Errorf("ToCSR at the limit: %v", err)
	}
}

func TestDimLimit(t *testing.T) {
	for _, tt := range []struct{ nnz, want int }{
		{-1, MinDimLimit},
		{0, MinDimLimit},
		{1, MinDimLimit},
		{MinDimLimit / DimPerEntry, MinDimLimit},
		{MinDimLimit/DimPerEntry + 1, MinDimLimit + DimPerEntry},
		{math.MaxInt32 / DimPerEntry, math.MaxInt32 / DimPerEntry * DimPerEntry},
		{math.MaxInt32/DimPerEntry + 1, math.MaxInt32},
		{math.MaxInt32, math.MaxInt32},
	} {
		if got := DimLimit(tt.nnz); got != tt.want {
			t.Errorf("DimLimit(%d) = %d, want %d", tt.nnz, got, tt.want)
		}
	}
}
