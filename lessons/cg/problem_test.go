package cg

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// neighbours builds the 27-point structure from grid coordinates, without
// HPCCG's column arithmetic, as an independent check of Generate: j is a
// neighbour of i when every coordinate differs by at most one.
func neighbours(g Grid) [][]int {
	n := g.NX * g.NY * g.NZ
	coord := func(i int) (x, y, z int) { return i % g.NX, (i / g.NX) % g.NY, i / (g.NX * g.NY) }
	abs := func(v int) int { return max(v, -v) }
	out := make([][]int, n)
	for i := 0; i < n; i++ {
		xi, yi, zi := coord(i)
		for j := 0; j < n; j++ {
			xj, yj, zj := coord(j)
			if abs(xi-xj) <= 1 && abs(yi-yj) <= 1 && abs(zi-zj) <= 1 {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

func TestGenerateStructure(t *testing.T) {
	for _, g := range []Grid{{1, 1, 1}, {2, 2, 2}, {3, 1, 1}, {1, 4, 1}, {1, 1, 5}, {4, 5, 6}, {6, 5, 4}, {7, 3, 2}, Cube(8)} {
		t.Run(g.String(), func(t *testing.T) {
			p, err := Generate(g, GenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			a := p.A
			// The lessons' one CSR type checks what the kernels rely on.
			if err := a.Validate(); err != nil || a.Cols != a.Rows {
				t.Fatalf("generated matrix: %v (cols %d, rows %d)", err, a.Cols, a.Rows)
			}
			n := g.NX * g.NY * g.NZ
			want := (3*g.NX - 2) * (3*g.NY - 2) * (3*g.NZ - 2)
			if a.Rows != n || a.NNZ() != want {
				t.Fatalf("n=%d nnz=%d, want n=%d nnz=(3nx-2)(3ny-2)(3nz-2)=%d", a.Rows, a.NNZ(), n, want)
			}
			ref := neighbours(g)
			var sumB float64
			for i := 0; i < n; i++ {
				lo, hi := a.RowPtr[i], a.RowPtr[i+1]
				got := make([]int, 0, hi-lo)
				diag := 0
				for j := lo; j < hi; j++ {
					c := int(a.ColIdx[j])
					got = append(got, c)
					switch {
					case c == i && a.Val[j] == 27:
						diag++
					case c != i && a.Val[j] == -1:
					default:
						t.Fatalf("row %d col %d: value %v", i, c, a.Val[j])
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(ref[i]) {
					t.Fatalf("row %d: columns %v, want %v (ascending)", i, got, ref[i])
				}
				if diag != 1 {
					t.Fatalf("row %d: %d diagonal entries", i, diag)
				}
				if wantB := 27 - float64(len(got)-1); p.B[i] != wantB {
					t.Fatalf("b[%d] = %v, want 27 − (%d − 1) = %v", i, p.B[i], len(got), wantB)
				}
				sumB += p.B[i]
			}
			// Σ b = Σ (28 − nnz_i) = 28n − nnz, and A·1 = b exactly.
			if sumB != float64(28*n-want) {
				t.Errorf("Σ b = %v, want 28n − nnz = %d", sumB, 28*n-want)
			}
			ones := make([]float64, n)
			for i := range ones {
				ones[i] = 1
			}
			ax := make([]float64, n)
			spmv(a, ones, ax)
			for i := range ax {
				if ax[i] != p.B[i] {
					t.Fatalf("(A·1)[%d] = %v, b = %v: the exact solution is not ones", i, ax[i], p.B[i])
				}
			}
		})
	}
}

func TestGenerateNNZFormulaLarge(t *testing.T) {
	for _, g := range []Grid{Cube(20), {4, 5, 6}, {33, 17, 9}} {
		p, err := Generate(g, GenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nnz := testenv.Must(g.NNZ())(t)
		if int64(p.A.NNZ()) != nnz || nnz != int64((3*g.NX-2)*(3*g.NY-2)*(3*g.NZ-2)) {
			t.Errorf("%v: nnz %d, Grid.NNZ %d", g, p.A.NNZ(), nnz)
		}
		var sumB float64
		for _, v := range p.B {
			sumB += v
		}
		if want := float64(28*p.A.Rows - p.A.NNZ()); sumB != want {
			t.Errorf("%v: Σ b = %v, want %v", g, sumB, want)
		}
	}
}

// TestNormB20 is the first bit-level check against HPCCG: at 20³ its ‖b‖
// prints as 508.65312345448149.
func TestNormB20(t *testing.T) {
	p, err := Generate(Cube(20), GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "508.65312345448149"
	got := p.NormB()
	wantF := testenv.Must(strconv.ParseFloat(want, 64))(t)
	if s := strconv.FormatFloat(got, 'g', 17, 64); s != want || math.Float64bits(got) != math.Float64bits(wantF) {
		t.Errorf("‖b‖ = %s (bits %#x), want %s (bits %#x)", s, math.Float64bits(got), want, math.Float64bits(wantF))
	}
}

func TestGenerateBadGrids(t *testing.T) {
	tests := []struct {
		g       Grid
		opt     GenOptions
		invalid bool   // want ErrInvalidGrid
		msg     string // the error must contain this
	}{
		{g: Grid{0, 5, 5}, invalid: true, msg: "at least 1"},
		{g: Grid{5, 0, 5}, invalid: true, msg: "at least 1"},
		{g: Grid{5, 5, 0}, invalid: true, msg: "at least 1"},
		{g: Grid{-1, 5, 5}, invalid: true, msg: "-1x5x5"},
		{g: Grid{5, 5, -3}, invalid: true},
		{g: Cube(-100), invalid: true},
		// 2000³ needs 8e9 rows: far over the 8 GiB default.
		{g: Cube(2000), msg: "bytes"},
		// Fits the default but not a small explicit limit.
		{g: Cube(20), opt: GenOptions{MaxBytes: 1 << 20}, msg: "over the limit of 1048576 bytes"},
		// Overflow in the row count and in the nonzero count.
		{g: Grid{math.MaxInt64, 2, 2}, msg: "overflows"},
		{g: Grid{1 << 61, 1, 1}, msg: "overflows"},
		{g: Grid{math.MaxInt32, math.MaxInt32, math.MaxInt32}, msg: "overflows"},
		// No byte limit, but the nonzeros do not fit int32 indices.
		{g: Cube(1000), opt: GenOptions{MaxBytes: -1}, msg: "int32"},
	}
	for _, tt := range tests {
		t.Run(tt.g.String(), func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p, err := Generate(tt.g, tt.opt)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatalf("Generate(%v) returned a problem with %d rows, want an error", tt.g, p.A.Rows)
			}
			if errors.Is(err, ErrInvalidGrid) != tt.invalid {
				t.Errorf("errors.Is(err, ErrInvalidGrid) = %v, want %v: %v", !tt.invalid, tt.invalid, err)
			}
			var se *SizeError
			if !tt.invalid && !errors.As(err, &se) {
				t.Errorf("want a *SizeError, got %T: %v", err, err)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "cg: ") {
				t.Errorf("error %q should start with \"cg: \" and contain %q", err, tt.msg)
			}
			// Refused before allocating: far less than any matrix.
			if d := after.TotalAlloc - before.TotalAlloc; d > 64<<10 {
				t.Errorf("refusing %v allocated %d bytes", tt.g, d)
			}
		})
	}
}

func TestSizeErrorNamesBytes(t *testing.T) {
	_, err := Generate(Cube(2000), GenOptions{})
	var se *SizeError
	if !errors.As(err, &se) {
		t.Fatalf("got %v", err)
	}
	want := testenv.Must(EstimateBytes(Cube(2000)))(t)
	if se.Bytes != want || se.Max != DefaultMaxBytes || !strings.Contains(err.Error(), strconv.FormatInt(want, 10)) {
		t.Errorf("SizeError %+v, message %q: want Bytes %d, Max %d, bytes named", se, err, want, DefaultMaxBytes)
	}
}

func TestEstimateBytes(t *testing.T) {
	for _, g := range []Grid{{1, 1, 1}, Cube(20), Cube(100), {4, 5, 6}} {
		n := int64(g.NX * g.NY * g.NZ)
		nnz := int64((3*g.NX - 2) * (3*g.NY - 2) * (3*g.NZ - 2))
		want := 4*(n+1) + 4*nnz + 8*nnz + 5*8*n
		if got, err := EstimateBytes(g); err != nil || got != want {
			t.Errorf("EstimateBytes(%v) = %d, %v; want %d", g, got, err, want)
		}
	}
}

func TestParseGrid(t *testing.T) {
	tests := []struct {
		in   string
		want Grid
		err  bool
	}{
		{"100", Cube(100), false},
		{"4,5,6", Grid{4, 5, 6}, false},
		{" 4x5x6 ", Grid{4, 5, 6}, false},
		{"4, 5, 6", Grid{4, 5, 6}, false},
		{"0", Cube(0), false}, // parses; Generate refuses it
		{"", Grid{}, true},
		{"4,5", Grid{}, true},
		{"a,b,c", Grid{}, true},
		{"1,2,3,4", Grid{}, true},
	}
	for _, tt := range tests {
		got, err := ParseGrid(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseGrid(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}
