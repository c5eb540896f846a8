package sparse

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// matricesDir finds the real matrices or skips the test: they are not part
// of the repository.
func matricesDir(t testing.TB) string { return testenv.Matrices(t) }

// TestRealMatrices checks the reader against the numbers recorded in
// shared/matrices/README.md.
func TestRealMatrices(t *testing.T) {
	dir := matricesDir(t)
	tests := []struct {
		file               string
		field, symmetry    string
		rows, entries, nnz int
		minLen, maxLen     int
		mean               float64 // README rounds to one decimal
		explicitZeros      int     // -1: not checked
	}{
		{"bcsstk13.mtx", "real", "symmetric", 2003, 42943, 83883, 5, 95, 41.9, -1},
		{"cryg2500.mtx", "real", "general", 2500, 12349, 12349, 3, 5, 4.9, -1},
		{"bayer10.mtx", "real", "general", 13436, 94926, 94926, 1, 27, 7.1, 23332},
		{"rajat01.mtx", "pattern", "general", 6833, 43250, 43250, 1, 1442, 6.3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("real matrix missing: %v", err)
			}
			c, h, err := ReadCSRFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if h.Field != tt.field || h.Symmetry != tt.symmetry || h.Rows != tt.rows || h.Cols != tt.rows || h.Entries != tt.entries {
				t.Errorf("header %+v, want %s %s %dx%d with %d entries", h, tt.field, tt.symmetry, tt.rows, tt.rows, tt.entries)
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if c.Rows != tt.rows || c.NNZ() != tt.nnz {
				t.Errorf("rows %d nnz %d, want %d and %d", c.Rows, c.NNZ(), tt.rows, tt.nnz)
			}
			s := c.Stats()
			if s.Min != tt.minLen || s.Max != tt.maxLen || math.Abs(s.Mean-tt.mean) > 0.05 {
				t.Errorf("row lengths %d / %.2f / %d, want %d / %.1f / %d", s.Min, s.Mean, s.Max, tt.minLen, tt.mean, tt.maxLen)
			}
			if tt.explicitZeros >= 0 {
				// The README counts zeros as written in the file; values too
				// small for float32 also become zeros, and stay entries.
				written, underflow := countZeros(t, path)
				if written != tt.explicitZeros {
					t.Errorf("file stores %d zeros, README says %d", written, tt.explicitZeros)
				}
				zeros := 0
				for _, v := range c.Val {
					if v == 0 {
						zeros++
					}
				}
				if zeros != written+underflow {
					t.Errorf("CSR holds %d zeros, want %d written + %d underflowing float32", zeros, written, underflow)
				}
			}
			for r := 0; r < c.Rows; r++ {
				for j := c.RowPtr[r] + 1; j < c.RowPtr[r+1]; j++ {
					if c.ColIdx[j-1] >= c.ColIdx[j] {
						t.Fatalf("row %d: columns not strictly ascending at entry %d", r, j)
					}
				}
			}
			if tt.symmetry == "symmetric" {
				checkSymmetric(t, c)
			}
		})
	}
}

// countZeros counts, independently of the reader, the values of a general
// real file that are written as zero and those that are nonzero but round to
// zero in float32. Pattern files have no values and count none.
func countZeros(t *testing.T, path string) (written, underflow int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sizeSeen := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "%") {
			continue
		}
		if !sizeSeen {
			sizeSeen = true
			continue
		}
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch {
		case v == 0:
			written++
		case float32(v) == 0:
			underflow++
		}
	}
	return written, underflow
}

// checkSymmetric asserts that every stored (i, j) has a stored (j, i) with
// the same value: the expansion really mirrored the file's triangle.
func checkSymmetric(t *testing.T, c *CSR) {
	t.Helper()
	type key struct{ r, c int32 }
	m := make(map[key]float32, c.NNZ())
	for r := 0; r < c.Rows; r++ {
		for j := c.RowPtr[r]; j < c.RowPtr[r+1]; j++ {
			m[key{int32(r), c.ColIdx[j]}] = c.Val[j]
		}
	}
	for k, v := range m {
		if w, ok := m[key{k.c, k.r}]; !ok || w != v {
			t.Fatalf("entry (%d,%d) = %v has mirror %v (present %v)", k.r, k.c, v, w, ok)
		}
	}
}

func BenchmarkReadRealMatrices(b *testing.B) {
	dir := matricesDir(b)
	for _, f := range []string{"bcsstk13.mtx", "cryg2500.mtx", "bayer10.mtx", "rajat01.mtx"} {
		b.Run(f, func(b *testing.B) {
			path := filepath.Join(dir, f)
			for b.Loop() {
				if _, _, err := ReadCSRFile(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
