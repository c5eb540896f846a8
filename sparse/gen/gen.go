// Package gen generates the sparse matrices the SpMV lessons and the time
// model's sweep run on: families of row-length distributions and column
// patterns that real matrices show, at any size, deterministic from a seed.
//
// A real collection (SuiteSparse) gives a few sizes of each shape; a model
// or a chooser judged on it sees sizes and shapes together. A generated
// family holds the shape fixed while the size runs from launch-bound to
// DRAM-bound (2^12 to 2^23 rows), so a prediction can be judged one family
// at a time, with that family left out of whatever was fitted.
//
// Every family is a pure function of (rows, seed): the same call gives the
// same matrix on every machine (math/rand/v2's PCG, no floating point in
// the structure). The matrices are square, rows ascending in column order,
// no duplicate entries, values in [0.5, 1.5) so sums neither cancel nor
// overflow.
package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/warplab/warplab/sparse"
)

// Size limits. MinRows keeps every family's structure (a 32-row block, a
// band of 17) inside the matrix; MaxRows is 2^23, the largest size the
// lessons and the sweep use, which keeps the densest family (power-law at
// exponent 1.5, mean 10 a row) near 10^8 entries, under int32 offsets.
const (
	MinRows = 64
	MaxRows = 1 << 23
)

// Family is one matrix shape: its name (what a corpus lists and a
// leave-one-family-out check groups by), a line saying what it is and why
// it is in the corpus, and its generator.
type Family struct {
	Name string
	Doc  string
	gen  func(rows int, r *rand.Rand) lengthsAndCols
}

// lengthsAndCols is a family's recipe: each row's length, then its columns
// (called once a row, in order, with a buffer of that length to fill with
// distinct columns in any order).
type lengthsAndCols struct {
	lengths []int
	cols    func(row int, out []int32, r *rand.Rand)
}

// Families returns the corpus's families in a fixed order. The list is the
// one issue 27's sweep and issue 29's corpus name; adding a family is
// adding a shape, never tuning one.
func Families() []Family {
	fs := []Family{
		{Name: "uniform", Doc: "every row 12-20 entries at uniformly random columns: balanced rows, a scattered x gather", gen: uniform},
		{Name: "banded", Doc: "a band of 17 around the diagonal: balanced rows, a perfectly local x gather", gen: banded},
		{Name: "denserows", Doc: "3 random entries a row, plus 4 rows that are full: one row holds a thread-per-row launch up", gen: denseRows},
		{Name: "blockdiag", Doc: "dense 32x32 blocks on the diagonal: rows of one warp share their columns", gen: blockDiag},
		{Name: "road", Doc: "2-4 entries a row at random columns: short rows, the launch and latency regime", gen: road},
		{Name: "stencil27", Doc: "the 27-point stencil on an n^3 grid (rows rounded down to a cube): CG's matrix", gen: stencil27},
	}
	for _, a := range []float64{1.5, 2.0, 2.5} {
		for _, clustered := range []bool{false, true} {
			name := fmt.Sprintf("powerlaw%02.0f", a*10)
			what := "random columns"
			if clustered {
				name += "c"
				what = "columns clustered near the diagonal"
			}
			fs = append(fs, Family{
				Name: name,
				Doc:  fmt.Sprintf("Pareto row lengths, exponent %.1f, mean 10, %s: a few very long rows", a, what),
				gen:  powerLaw(a, clustered),
			})
		}
	}
	return fs
}

// Lookup returns the family with the given name.
func Lookup(name string) (Family, error) {
	var names []string
	for _, f := range Families() {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Family{}, fmt.Errorf("gen: no matrix family %q; the families are %s", name, strings.Join(names, ", "))
}

// Generate builds family's matrix with rows rows (stencil27: the largest
// cube not above rows) from seed. It refuses rows outside [MinRows,
// MaxRows] before allocating anything.
func (f Family) Generate(rows int, seed uint64) (*sparse.CSR, error) {
	if rows < MinRows || rows > MaxRows {
		return nil, fmt.Errorf("gen: %s: rows %d out of range [%d, %d]", f.Name, rows, MinRows, MaxRows)
	}
	r := rand.New(rand.NewPCG(seed, uint64(len(f.Name))<<32|uint64(rows)))
	lc := f.gen(rows, r)
	n := len(lc.lengths)
	rowPtr := make([]int32, n+1)
	total := 0
	for i, l := range lc.lengths {
		total += l
		if total > math.MaxInt32 {
			return nil, fmt.Errorf("gen: %s at %d rows: more than 2^31-1 entries", f.Name, rows)
		}
		rowPtr[i+1] = int32(total)
	}
	colIdx := make([]int32, total)
	val := make([]float32, total)
	for i := 0; i < n; i++ {
		row := colIdx[rowPtr[i]:rowPtr[i+1]]
		lc.cols(i, row, r)
		slices.Sort(row)
		for j := range row {
			val[int(rowPtr[i])+j] = 0.5 + float32(r.IntN(1<<16))/(1<<16)
		}
	}
	m := &sparse.CSR{Rows: n, Cols: n, RowPtr: rowPtr, ColIdx: colIdx, Val: val}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("gen: %s at %d rows: %w", f.Name, rows, err)
	}
	return m, nil
}

// distinct fills out with distinct columns drawn uniformly from
// [lo, lo+n).
// Rows are short next to the column count, so drawing again on a repeat
// is cheap; a row longer than half the columns is a prefix of a
// permutation instead, where repeats would make the drawing slow.
func distinct(out []int32, lo, n int, r *rand.Rand) {
	if 2*len(out) > n {
		for j, c := range r.Perm(n)[:len(out)] {
			out[j] = int32(lo + c)
		}
		return
	}
	var seen map[int32]struct{}
	if len(out) > 32 {
		seen = make(map[int32]struct{}, len(out))
	}
	for i := 0; i < len(out); {
		c := int32(lo + r.IntN(n))
		if seen != nil {
			if _, dup := seen[c]; dup {
				continue
			}
			seen[c] = struct{}{}
		} else if slices.Contains(out[:i], c) {
			continue
		}
		out[i] = c
		i++
	}
}

func constLengths(rows, l int) []int {
	out := make([]int, rows)
	for i := range out {
		out[i] = l
	}
	return out
}

func randomCols(cols int) func(int, []int32, *rand.Rand) {
	return func(_ int, out []int32, r *rand.Rand) {
		distinct(out, 0, cols, r)
	}
}

func uniform(rows int, r *rand.Rand) lengthsAndCols {
	l := make([]int, rows)
	for i := range l {
		l[i] = 12 + r.IntN(9)
	}
	return lengthsAndCols{l, randomCols(rows)}
}

func road(rows int, r *rand.Rand) lengthsAndCols {
	l := make([]int, rows)
	for i := range l {
		l[i] = 2 + r.IntN(3)
	}
	return lengthsAndCols{l, randomCols(rows)}
}

const halfBand = 8

func banded(rows int, _ *rand.Rand) lengthsAndCols {
	l := make([]int, rows)
	for i := range l {
		l[i] = min(i+halfBand, rows-1) - max(i-halfBand, 0) + 1
	}
	return lengthsAndCols{l, func(i int, out []int32, _ *rand.Rand) {
		for j := range out {
			out[j] = int32(max(i-halfBand, 0) + j)
		}
	}}
}

const denseCount = 4

func denseRows(rows int, r *rand.Rand) lengthsAndCols {
	l := constLengths(rows, 3)
	for _, i := range r.Perm(rows)[:denseCount] {
		l[i] = rows
	}
	random := randomCols(rows)
	return lengthsAndCols{l, func(i int, out []int32, r *rand.Rand) {
		if len(out) == rows {
			for j := range out {
				out[j] = int32(j)
			}
			return
		}
		random(i, out, r)
	}}
}

const blockSize = 32

func blockDiag(rows int, _ *rand.Rand) lengthsAndCols {
	l := make([]int, rows)
	for i := range l {
		first := i / blockSize * blockSize
		l[i] = min(first+blockSize, rows) - first
	}
	return lengthsAndCols{l, func(i int, out []int32, _ *rand.Rand) {
		first := i / blockSize * blockSize
		for j := range out {
			out[j] = int32(first + j)
		}
	}}
}

func stencil27(rows int, _ *rand.Rand) lengthsAndCols {
	n := int(math.Cbrt(float64(rows)))
	for (n+1)*(n+1)*(n+1) <= rows {
		n++
	}
	for n*n*n > rows {
		n--
	}
	size := n * n * n
	neighbours := func(i int, visit func(int)) {
		x, y, z := i%n, i/n%n, i/(n*n)
		for dz := -1; dz <= 1; dz++ {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy, zz := x+dx, y+dy, z+dz
					if xx >= 0 && xx < n && yy >= 0 && yy < n && zz >= 0 && zz < n {
						visit(xx + n*(yy+n*zz))
					}
				}
			}
		}
	}
	l := make([]int, size)
	for i := range l {
		neighbours(i, func(int) { l[i]++ })
	}
	return lengthsAndCols{l, func(i int, out []int32, _ *rand.Rand) {
		k := 0
		neighbours(i, func(c int) { out[k] = int32(c); k++ })
	}}
}

// powerLaw draws row lengths from a Pareto law with exponent a and mean 10
// (scale 10(a-1)/a), capped at the column count. clustered puts a row's
// columns in a window near its diagonal, a few times wider than the row,
// so a long row's x gather stays local; otherwise they are uniform.
func powerLaw(a float64, clustered bool) func(int, *rand.Rand) lengthsAndCols {
	const mean = 10
	scale := mean * (a - 1) / a
	return func(rows int, r *rand.Rand) lengthsAndCols {
		l := make([]int, rows)
		for i := range l {
			u := 1 - r.Float64() // (0, 1]
			l[i] = min(rows, max(1, int(math.Round(scale*math.Pow(u, -1/a)))))
		}
		if !clustered {
			return lengthsAndCols{l, randomCols(rows)}
		}
		return lengthsAndCols{l, func(i int, out []int32, r *rand.Rand) {
			width := min(rows, 4*len(out))
			lo := min(max(0, i-width/2), rows-width)
			if width == len(out) {
				for j := range out {
					out[j] = int32(lo + j)
				}
				return
			}
			distinct(out, lo, width, r)
		}}
	}
}

// Describe summarizes a generated matrix the way a corpus table lists it:
// rows, entries, mean and longest row, and the coefficient of variation of
// the row lengths (how unbalanced a thread per row is).
func Describe(m *sparse.CSR) string {
	s := m.Stats()
	var sq float64
	for i := 0; i < m.Rows; i++ {
		d := float64(m.RowLen(i)) - s.Mean
		sq += d * d
	}
	cv := 0.0
	if s.Mean > 0 {
		cv = math.Sqrt(sq/float64(max(m.Rows, 1))) / s.Mean
	}
	return fmt.Sprintf("%d rows, %d entries, mean %.1f, max %d, CV %.2f", m.Rows, m.NNZ(), s.Mean, s.Max, cv)
}

// Names returns the family names in Families' order.
func Names() []string {
	var out []string
	for _, f := range Families() {
		out = append(out, f.Name)
	}
	return out
}
