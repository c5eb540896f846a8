package sparse

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomCOO builds a COO with entries in random order, some rows empty and
// some (row, col) pairs repeated, from a fixed seed.
func randomCOO(seed uint64, rows, cols, nnz int) *COO {
	rng := rand.New(rand.NewPCG(seed, 1))
	c := &COO{Rows: rows, Cols: cols}
	for range nnz {
		c.Row = append(c.Row, int32(rng.IntN(rows)))
		c.Col = append(c.Col, int32(rng.IntN(cols)))
		c.Val = append(c.Val, float32(rng.NormFloat64()))
	}
	return c
}

// naiveCSR is the obvious reference: for each row, scan every entry in COO
// order and keep those of that row. O(rows * nnz), stable by construction.
func naiveCSR(c *COO) (rowPtr, colIdx []int32, val []float32) {
	rowPtr = []int32{0}
	for r := 0; r < c.Rows; r++ {
		for e := range c.Row {
			if int(c.Row[e]) == r {
				colIdx = append(colIdx, c.Col[e])
				val = append(val, c.Val[e])
			}
		}
		rowPtr = append(rowPtr, int32(len(colIdx)))
	}
	return rowPtr, colIdx, val
}

func TestToCSRMatchesNaive(t *testing.T) {
	tests := []struct {
		name            string
		rows, cols, nnz int
		seed            uint64
	}{
		{"empty", 0, 0, 0, 1},
		{"no entries", 5, 7, 0, 2},
		{"one entry", 1, 1, 1, 3},
		{"square", 50, 50, 400, 4},
		{"wide, many empty rows", 200, 1000, 60, 5},
		{"tall, dense with duplicates", 30, 4, 500, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			coo := randomCOO(tt.seed, max(tt.rows, 1), max(tt.cols, 1), tt.nnz)
			coo.Rows, coo.Cols = tt.rows, tt.cols
			got, err := ToCSR(coo)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("ToCSR result does not validate: %v", err)
			}
			rp, ci, v := naiveCSR(coo)
			if !slices.Equal(got.RowPtr, rp) {
				t.Errorf("RowPtr = %v, want %v", got.RowPtr, rp)
			}
			if !slices.Equal(got.ColIdx, ci) {
				t.Errorf("ColIdx differs from the stable naive reference")
			}
			if !slices.Equal(got.Val, v) {
				t.Errorf("Val differs from the stable naive reference")
			}
			if got.Rows != tt.rows || got.Cols != tt.cols || got.NNZ() != tt.nnz {
				t.Errorf("got %dx%d nnz %d, want %dx%d nnz %d", got.Rows, got.Cols, got.NNZ(), tt.rows, tt.cols, tt.nnz)
			}
		})
	}
}

func TestToCSRStable(t *testing.T) {
	// Row 1 gets columns 3, 0, 3 in that order; stability keeps both the
	// column order and which value goes with which duplicate.
	coo := &COO{Rows: 2, Cols: 4,
		Row: []int32{1, 0, 1, 1},
		Col: []int32{3, 2, 0, 3},
		Val: []float32{10, 20, 30, 40},
	}
	got, err := ToCSR(coo)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{0, 1, 4}; !slices.Equal(got.RowPtr, want) {
		t.Errorf("RowPtr = %v, want %v", got.RowPtr, want)
	}
	if want := []int32{2, 3, 0, 3}; !slices.Equal(got.ColIdx, want) {
		t.Errorf("ColIdx = %v, want %v", got.ColIdx, want)
	}
	if want := []float32{20, 10, 30, 40}; !slices.Equal(got.Val, want) {
		t.Errorf("Val = %v, want %v", got.Val, want)
	}
	got.SortRows()
	if want := []int32{2, 0, 3, 3}; !slices.Equal(got.ColIdx, want) {
		t.Errorf("after SortRows ColIdx = %v, want %v", got.ColIdx, want)
	}
	if want := []float32{20, 30, 10, 40}; !slices.Equal(got.Val, want) {
		t.Errorf("after SortRows Val = %v, want %v (values move with columns, stable)", got.Val, want)
	}
}

func TestToCSRErrors(t *testing.T) {
	tests := []struct {
		name string
		coo  COO
		want string
	}{
		{"length mismatch", COO{Rows: 2, Cols: 2, Row: []int32{0}, Col: []int32{0, 1}, Val: []float32{1}}, "differ in length"},
		{"negative rows", COO{Rows: -1, Cols: 2}, "negative"},
		{"rows too big", COO{Rows: math.MaxInt32 + 1, Cols: 2}, "int32"},
		{"cols too big", COO{Rows: 2, Cols: math.MaxInt32 + 1}, "int32"},
		{"row out of range", COO{Rows: 2, Cols: 2, Row: []int32{0, 2}, Col: []int32{0, 0}, Val: []float32{1, 2}}, "entry 1: row 2 out of range"},
		{"negative row", COO{Rows: 2, Cols: 2, Row: []int32{-1}, Col: []int32{0}, Val: []float32{1}}, "entry 0: row -1"},
		{"col out of range", COO{Rows: 2, Cols: 2, Row: []int32{0, 1, 1}, Col: []int32{0, 1, 5}, Val: []float32{1, 2, 3}}, "entry 2: column 5 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToCSR(&tt.coo)
			if err == nil {
				t.Fatalf("ToCSR succeeded (%+v), want error containing %q", got, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	good := func() *CSR {
		return &CSR{Rows: 3, Cols: 4,
			RowPtr: []int32{0, 2, 2, 5},
			ColIdx: []int32{0, 3, 1, 2, 3},
			Val:    []float32{1, 2, 3, 4, 5},
		}
	}
	tests := []struct {
		name   string
		modify func(c *CSR)
		want   string // "" means valid
	}{
		{"valid", func(c *CSR) {}, ""},
		{"valid, no rows", func(c *CSR) { *c = CSR{RowPtr: []int32{0}} }, ""},
		{"valid, unsorted columns", func(c *CSR) { c.ColIdx[0], c.ColIdx[1] = 3, 0 }, ""},
		{"short RowPtr", func(c *CSR) { c.RowPtr = c.RowPtr[:3] }, "3 row pointers, want Rows+1 = 4"},
		{"nil RowPtr", func(c *CSR) { c.RowPtr = nil }, "0 row pointers"},
		{"RowPtr not starting at 0", func(c *CSR) { c.RowPtr[0] = 1 }, "row 0 starts at 1"},
		{"decreasing", func(c *CSR) { c.RowPtr[2] = 1 }, "row 1: row pointer decreases from 2 to 1"},
		{"past nnz", func(c *CSR) { c.RowPtr[1] = 6; c.RowPtr[2] = 6 }, "row 0: ends at 6, past nnz 5"},
		{"ends before nnz", func(c *CSR) { c.RowPtr[3] = 4 }, "end at 4, want nnz 5"},
		{"ColIdx/Val mismatch", func(c *CSR) { c.Val = c.Val[:4] }, "5 column indices but 4 values"},
		{"column too big", func(c *CSR) { c.ColIdx[3] = 4 }, "row 2, entry 3: column 4 out of range [0,4)"},
		{"negative column", func(c *CSR) { c.ColIdx[1] = -1 }, "row 0, entry 1: column -1"},
		{"rows beyond int32", func(c *CSR) { c.Rows = math.MaxInt32 + 1 }, "int32"},
		{"negative cols", func(c *CSR) { c.Cols = -3 }, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good()
			tt.modify(c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Errorf("Validate() = nil, want error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("Validate() = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSortRowsRandom(t *testing.T) {
	coo := randomCOO(7, 40, 300, 2000)
	c, err := ToCSR(coo)
	if err != nil {
		t.Fatal(err)
	}
	type pair struct {
		col int32
		val float32
	}
	before := make([][]pair, c.Rows)
	for r := range c.Rows {
		for j := c.RowPtr[r]; j < c.RowPtr[r+1]; j++ {
			before[r] = append(before[r], pair{c.ColIdx[j], c.Val[j]})
		}
	}
	rowPtr := slices.Clone(c.RowPtr)
	c.SortRows()
	if !slices.Equal(rowPtr, c.RowPtr) {
		t.Fatal("SortRows changed RowPtr")
	}
	for r := range c.Rows {
		var after []pair
		for j := c.RowPtr[r]; j < c.RowPtr[r+1]; j++ {
			after = append(after, pair{c.ColIdx[j], c.Val[j]})
		}
		if !slices.IsSortedFunc(after, func(a, b pair) int { return int(a.col - b.col) }) {
			t.Fatalf("row %d not sorted: %v", r, after)
		}
		want := slices.Clone(before[r])
		slices.SortStableFunc(want, func(a, b pair) int { return int(a.col - b.col) })
		if !slices.Equal(after, want) {
			t.Fatalf("row %d: got %v, want %v", r, after, want)
		}
	}
}

func TestStatsAndRowLengths(t *testing.T) {
	c := &CSR{Rows: 4, Cols: 5, RowPtr: []int32{0, 3, 3, 4, 9}, ColIdx: make([]int32, 9), Val: make([]float32, 9)}
	if got, want := c.RowLengths(), []int{3, 0, 1, 5}; !slices.Equal(got, want) {
		t.Errorf("RowLengths() = %v, want %v", got, want)
	}
	if got, want := c.Stats(), (RowStats{Min: 0, Max: 5, Mean: 9.0 / 4}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
	if got := c.RowLen(3); got != 5 {
		t.Errorf("RowLen(3) = %d, want 5", got)
	}
	empty := &CSR{RowPtr: []int32{0}}
	if got := empty.Stats(); got != (RowStats{}) {
		t.Errorf("Stats() of an empty matrix = %+v, want zero", got)
	}
}

func TestLongestRows(t *testing.T) {
	// Row lengths 3, 0, 1, 5, 3: ties keep row order.
	c := &CSR{Rows: 5, Cols: 5, RowPtr: []int32{0, 3, 3, 4, 9, 12}, ColIdx: make([]int32, 12), Val: make([]float32, 12)}
	for _, tc := range []struct {
		n    int
		want []int
	}{{0, []int{}}, {1, []int{3}}, {3, []int{3, 0, 4}}, {5, []int{3, 0, 4, 2, 1}}, {9, []int{3, 0, 4, 2, 1}}} {
		if got := c.LongestRows(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("LongestRows(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	if got := (&CSR{RowPtr: []int32{0}}).LongestRows(4); len(got) != 0 {
		t.Errorf("LongestRows of an empty matrix = %v, want none", got)
	}
}

func TestMulVec64(t *testing.T) {
	// [1 0 2]   [1]   [ 7]
	// [0 0 0] x [2] = [ 0]
	// [0 3 4]   [3]   [18]
	c := &CSR{Rows: 3, Cols: 3, RowPtr: []int32{0, 2, 2, 4}, ColIdx: []int32{0, 2, 1, 2}, Val: []float32{1, 2, 3, 4}}
	if got, want := c.MulVec64([]float32{1, 2, 3}), []float32{7, 0, 18}; !slices.Equal(got, want) {
		t.Errorf("MulVec64 = %v, want %v", got, want)
	}

	// Accumulation in float64: 2^24 + 1 + 1 - 2^24 is 2 exactly in float64,
	// 0 or 1 in a float32 running sum.
	big := float32(1 << 24)
	c = &CSR{Rows: 1, Cols: 4, RowPtr: []int32{0, 4}, ColIdx: []int32{0, 1, 2, 3}, Val: []float32{big, 1, 1, -big}}
	if got := c.MulVec64([]float32{1, 1, 1, 1}); got[0] != 2 {
		t.Errorf("MulVec64 float64 accumulation = %v, want 2", got[0])
	}

	// Against a dense reference on a random matrix.
	coo := randomCOO(9, 20, 15, 120)
	csr, err := ToCSR(coo)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 15)
	for i := range x {
		x[i] = float32(i%5) - 1.5
	}
	dense := make([]float64, 20)
	for e := range coo.Val {
		dense[coo.Row[e]] += float64(coo.Val[e]) * float64(x[coo.Col[e]])
	}
	got := csr.MulVec64(x)
	for r := range dense {
		if d := math.Abs(float64(got[r]) - dense[r]); d > 1e-6*math.Max(1, math.Abs(dense[r])) {
			t.Errorf("row %d: got %v, want %v", r, got[r], dense[r])
		}
	}
}

func TestMulVec64PanicsOnLength(t *testing.T) {
	c := &CSR{Rows: 1, Cols: 2, RowPtr: []int32{0, 0}}
	defer func() {
		if recover() == nil {
			t.Error("MulVec64 with a short x did not panic")
		}
	}()
	c.MulVec64([]float32{1})
}

func BenchmarkToCSR(b *testing.B) {
	coo := randomCOO(11, 1<<16, 1<<16, 1<<20)
	b.ResetTimer()
	for b.Loop() {
		if _, err := ToCSR(coo); err != nil {
			b.Fatal(err)
		}
	}
}

// The float64 instance of the one CSR type: the same checks and the same
// row sort, with values that float32 would round.
func TestCSR64(t *testing.T) {
	third := 1.0 / 3
	c := &CSR64{Rows: 2, Cols: 3, RowPtr: []int32{0, 2, 3}, ColIdx: []int32{2, 0, 1}, Val: []float64{third, 2, 1e-300}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.SortRows()
	if !slices.Equal(c.ColIdx, []int32{0, 2, 1}) || !slices.Equal(c.Val, []float64{2, third, 1e-300}) {
		t.Errorf("sorted: cols %v vals %v", c.ColIdx, c.Val)
	}
	y := c.MulVec64([]float64{1, 1e300, 3})
	if want := []float64{2 + third*3, 1e300 * 1e-300}; !slices.Equal(y, want) {
		t.Errorf("y = %v, want %v (float64 throughout)", y, want)
	}
	if c.NNZ() != 3 || c.RowLen(0) != 2 || c.Stats().Max != 2 {
		t.Errorf("nnz %d, row 0 length %d, stats %+v", c.NNZ(), c.RowLen(0), c.Stats())
	}
	bad := &CSR64{Rows: 1, Cols: 1, RowPtr: []int32{0, 1}, ColIdx: []int32{1}, Val: []float64{1}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("column 1 of 1: %v", err)
	}
}
