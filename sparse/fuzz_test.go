package sparse

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadMatrixMarket checks that no input makes the reader panic or hang,
// and that whatever it accepts is a consistent matrix: a COO whose indices
// are in range, which converts to a CSR that validates and, after SortRows,
// has strictly ascending (so duplicate-free) columns in every row.
func FuzzReadMatrixMarket(f *testing.F) {
	for _, s := range []string{
		"%%MatrixMarket matrix coordinate real general\n3 4 3\n2 4 1.5\n1 1 -2e3\n3 2 .25\n",
		"%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 16777217\n",
		"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 1\n",
		"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 2 -0.5\n",
		"%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n1 2 10\n1 1 0\n",
		"%%MatrixMarket matrix coordinate real general\n% c\n\n2 2 2\n1 1 1\n% c\n1 1 2\n",
		"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 3e38\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
		"%%MatrixMarket matrix coordinate real general\n2147483647 2 0\n",
		"%%MatrixMarket matrix coordinate real general\n1000000000 1000000000 1\n1 1 1\n",
		"%%MatrixMarket matrix coordinate pattern symmetric\n16777217 16777217 2\n1 1\n2 2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		coo, h, err := ReadMatrixMarket(bytes.NewReader(data))
		if err != nil {
			if coo != nil {
				t.Fatalf("error %v with a non-nil COO", err)
			}
			return
		}
		if coo.Rows != h.Rows || coo.Cols != h.Cols {
			t.Fatalf("COO is %dx%d, header says %dx%d", coo.Rows, coo.Cols, h.Rows, h.Cols)
		}
		if len(coo.Row) != len(coo.Val) || len(coo.Col) != len(coo.Val) {
			t.Fatalf("COO arrays differ in length: %d %d %d", len(coo.Row), len(coo.Col), len(coo.Val))
		}
		if h.Symmetry == "general" && coo.NNZ() > h.Entries {
			t.Fatalf("general file: %d entries from %d stored", coo.NNZ(), h.Entries)
		}
		if coo.NNZ() > 2*h.Entries {
			t.Fatalf("%d entries from %d stored", coo.NNZ(), h.Entries)
		}
		// Beyond the CSR limit, ToCSR refuses before allocating, and
		// ReadCSR at the size line.
		if coo.Rows > DimLimit(coo.NNZ()) || coo.Cols > DimLimit(coo.NNZ()) {
			var dl *DimLimitError
			if _, err := ToCSR(coo); !errors.As(err, &dl) {
				t.Fatalf("%dx%d with %d entries: ToCSR %v, want a *DimLimitError", coo.Rows, coo.Cols, coo.NNZ(), err)
			}
			var pe *ParseError
			if _, _, err := ReadCSR(bytes.NewReader(data)); !errors.As(err, &pe) || !errors.As(err, &dl) || pe.Line < 2 {
				t.Fatalf("%dx%d with %d entries: ReadCSR %v, want a *ParseError at the size line wrapping a *DimLimitError", coo.Rows, coo.Cols, coo.NNZ(), err)
			}
			return
		}
		// Inside it ToCSR still allocates one pointer per row, up to
		// 2^24 of them: keep the fuzzer fast.
		if coo.Rows > 1<<20 {
			return
		}
		c, err := ToCSR(coo)
		if err != nil {
			t.Fatalf("parsed COO does not convert: %v", err)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("CSR does not validate: %v", err)
		}
		c.SortRows()
		for r := 0; r < c.Rows; r++ {
			for j := c.RowPtr[r] + 1; j < c.RowPtr[r+1]; j++ {
				if c.ColIdx[j-1] >= c.ColIdx[j] {
					t.Fatalf("row %d: columns %d, %d not strictly ascending (duplicate left uncombined?)", r, c.ColIdx[j-1], c.ColIdx[j])
				}
			}
		}
	})
}
