package gen

import (
	"cmp"
	"slices"
	"strings"
	"testing"
)

// TestFamilies holds each family to the shape its Doc promises, at two
// sizes, and checks that the structure is valid CSR with sorted, distinct
// columns.
func TestFamilies(t *testing.T) {
	type shape struct {
		minLen, maxLen int     // every row's length in [minLen, maxLen] (0: unchecked)
		mean           float64 // mean row length within tol (0: unchecked)
		tol            float64 // relative; 0 means 15%
		longRow        int     // at least one row this long (0: unchecked)
	}
	want := map[string]func(rows int) shape{
		"uniform":   func(int) shape { return shape{minLen: 12, maxLen: 20, mean: 16} },
		"road":      func(int) shape { return shape{minLen: 2, maxLen: 4, mean: 3} },
		"banded":    func(int) shape { return shape{minLen: halfBand + 1, maxLen: 2*halfBand + 1} },
		"blockdiag": func(int) shape { return shape{minLen: blockSize, maxLen: blockSize} },
		"denserows": func(rows int) shape { return shape{minLen: 3, maxLen: rows, longRow: rows} },
		"stencil27": func(int) shape { return shape{minLen: 8, maxLen: 27} },
	}
	for _, name := range []string{"powerlaw15", "powerlaw15c", "powerlaw20", "powerlaw20c", "powerlaw25", "powerlaw25c"} {
		want[name] = func(int) shape { return shape{minLen: 1, mean: 10, tol: 0.25, longRow: 100} }
	}
	if got := len(Families()); got != len(want) {
		t.Fatalf("%d families, the test knows %d", got, len(want))
	}
	for _, f := range Families() {
		for _, rows := range []int{1 << 12, 1 << 15} {
			m, err := f.Generate(rows, 1)
			if err != nil {
				t.Fatalf("%s at %d: %v", f.Name, rows, err)
			}
			sh := want[f.Name](m.Rows)
			for i := 0; i < m.Rows; i++ {
				row := m.ColIdx[m.RowPtr[i]:m.RowPtr[i+1]]
				if !slices.IsSorted(row) || len(slices.Compact(slices.Clone(row))) != len(row) {
					t.Fatalf("%s at %d: row %d columns not sorted and distinct: %v", f.Name, rows, i, row)
				}
				if l := len(row); l < sh.minLen || (sh.maxLen > 0 && l > sh.maxLen) {
					t.Fatalf("%s at %d: row %d has %d entries, want [%d, %d]", f.Name, rows, i, l, sh.minLen, sh.maxLen)
				}
			}
			st := m.Stats()
			tol := cmp.Or(sh.tol, 0.15) // a Pareto mean at exponent 1.5 converges slowly (infinite variance)
			if sh.mean > 0 && (st.Mean < (1-tol)*sh.mean || st.Mean > (1+tol)*sh.mean) {
				t.Errorf("%s at %d: mean row %.2f, want %.1f ± %.0f%%", f.Name, rows, st.Mean, sh.mean, 100*tol)
			}
			if st.Max < sh.longRow {
				t.Errorf("%s at %d: longest row %d, want at least %d", f.Name, rows, st.Max, sh.longRow)
			}
			t.Logf("%-12s %s", f.Name, Describe(m))
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, f := range Families() {
		a, err := f.Generate(4096, 7)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := f.Generate(4096, 7)
		c, _ := f.Generate(4096, 8)
		if !slices.Equal(a.RowPtr, b.RowPtr) || !slices.Equal(a.ColIdx, b.ColIdx) || !slices.Equal(a.Val, b.Val) {
			t.Errorf("%s: two calls with seed 7 differ", f.Name)
		}
		if slices.Equal(a.Val, c.Val) {
			t.Errorf("%s: seeds 7 and 8 give the same values", f.Name)
		}
	}
}

// TestClusteredColumns: the clustered power-law families keep a row's
// columns near its diagonal (within four times its length), the random ones
// do not.
func TestClusteredColumns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		local bool
	}{{"powerlaw20c", true}, {"powerlaw20", false}} {
		f, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := f.Generate(1<<14, 3)
		if err != nil {
			t.Fatal(err)
		}
		far := 0
		for i := 0; i < m.Rows; i++ {
			l := m.RowLen(i)
			for _, c := range m.ColIdx[m.RowPtr[i]:m.RowPtr[i+1]] {
				if d := int(c) - i; d > 4*l || d < -4*l {
					far++
				}
			}
		}
		if local := far == 0; local != tc.local {
			t.Errorf("%s: %d entries farther than 4 row lengths from the diagonal; want local=%v", tc.name, far, tc.local)
		}
	}
}

func TestErrors(t *testing.T) {
	f, _ := Lookup("uniform")
	for _, rows := range []int{0, MinRows - 1, MaxRows + 1, 1 << 40} {
		if _, err := f.Generate(rows, 1); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("rows %d: err %v, want out of range", rows, err)
		}
	}
	if _, err := Lookup("nosuch"); err == nil || !strings.Contains(err.Error(), "powerlaw20c") {
		t.Errorf("unknown family: err %v, want the list of families", err)
	}
}

// BenchmarkGenerate2p23 is the largest matrix the sweep generates, the
// family with the most entries.
func BenchmarkGenerate2p23(b *testing.B) {
	f, _ := Lookup("powerlaw15")
	for b.Loop() {
		if _, err := f.Generate(MaxRows, 1); err != nil {
			b.Fatal(err)
		}
	}
}
