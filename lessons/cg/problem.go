package cg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/warplab/warplab/sparse"
)

// Grid is the size of HPCCG's structured 3D grid: one matrix row per grid
// point, NX·NY·NZ rows in all. HPCCG takes the three numbers on its command
// line; the article's profile uses 100×100×100.
type Grid struct {
	NX, NY, NZ int
}

// String writes the grid the way the article does, "100x100x100".
func (g Grid) String() string { return fmt.Sprintf("%dx%dx%d", g.NX, g.NY, g.NZ) }

// Dims returns the grid as an array, the form StageResult records.
func (g Grid) Dims() [3]int { return [3]int{g.NX, g.NY, g.NZ} }

// Cube returns the n×n×n grid, the only shape the article runs.
func Cube(n int) Grid { return Grid{n, n, n} }

// ParseGrid reads "N" (a cube) or "NX,NY,NZ" (also with x as the
// separator), the forms the command line accepts. It only parses; Generate
// decides whether the grid is usable.
func ParseGrid(s string) (Grid, error) {
	f := strings.FieldsFunc(strings.TrimSpace(s), func(r rune) bool { return r == ',' || r == 'x' || r == 'X' })
	if len(f) != 1 && len(f) != 3 {
		return Grid{}, fmt.Errorf("cg: grid %q: want N or NX,NY,NZ", s)
	}
	v := make([]int, len(f))
	for i, p := range f {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return Grid{}, fmt.Errorf("cg: grid %q: %q is not an integer", s, p)
		}
		v[i] = n
	}
	if len(v) == 1 {
		return Cube(v[0]), nil
	}
	return Grid{v[0], v[1], v[2]}, nil
}

// CSR is a square sparse matrix in compressed sparse row form, float64
// values, as every stage of the lesson uses it: the CPU stages walk it
// directly and the GPU stages upload these three arrays unchanged.
//
// Row i owns Cols and Vals over the half-open range [RowPtr[i], RowPtr[i+1]),
// columns ascending. RowPtr and ColIdx are int32 because that is what the CUDA
// kernels in cg.cu take (and cuSPARSE's 32-bit path): it halves the index
// bytes the SpMV streams, and it caps a matrix at 2^31−1 nonzeros, which
// Generate checks. HPCCG itself keeps per-row pointers into one array; the
// article's first porting step flattens them into exactly this layout.
//
// It is the lessons' one CSR type, sparse.CSROf, in float64: Rows (= Cols,
// the column count) rows, RowPtr, ColIdx and Val.
type CSR = sparse.CSR64

// Problem is one HPCCG linear system A·x = b. The exact solution is all ones
// and CG starts from x0 = 0, so neither is stored.
type Problem struct {
	Grid Grid
	A    *CSR
	B    []float64
}

// NormB returns ‖b‖₂ computed as HPCCG would (sequential dot from 0.0, then
// sqrt). At 20³ it is 508.65312345448149, a first bit-level check that a
// generator matches HPCCG's.
func (p *Problem) NormB() float64 { return math.Sqrt(ddot(p.B, p.B)) }

// DefaultMaxBytes is the memory budget Generate uses when GenOptions.MaxBytes
// is zero. It is a constant, not a fraction of the machine's free memory, so
// that a grid is accepted or refused the same way on every machine; 8 GiB
// holds up to 286³ (the article's 100³ needs 0.4 GB; MaxCube says how far
// a cube goes under a limit). Raise it explicitly for bigger grids.
const DefaultMaxBytes int64 = 8 << 30

// GenOptions configures Generate.
type GenOptions struct {
	// MaxBytes caps EstimateBytes(grid); bigger grids are refused before
	// anything is allocated. Zero means DefaultMaxBytes; negative means no
	// cap beyond what int32 indices allow.
	MaxBytes int64
}

// ErrInvalidGrid is wrapped by every error about a grid that can describe no
// matrix at all (a zero or negative dimension).
var ErrInvalidGrid = errors.New("invalid grid")

// SizeError reports a grid that is valid but too big: its matrix and CG
// vectors need Bytes, over Max, or its indices do not fit int32.
type SizeError struct {
	Grid   Grid
	Bytes  int64  // bytes EstimateBytes computed (math.MaxInt64 when it overflowed)
	Max    int64  // the limit that refused it (0 when the cause is Reason)
	Reason string // set when the cause is not the byte limit
}

// Error names the grid, the bytes it needs and the limit, or the reason.
func (e *SizeError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("cg: grid %v is too big: %s", e.Grid, e.Reason)
	}
	return fmt.Sprintf("cg: grid %v needs %d bytes (%s) for the matrix and the CG vectors, over the limit of %d bytes (%s); raise GenOptions.MaxBytes to allow it",
		e.Grid, e.Bytes, human(e.Bytes), e.Max, human(e.Max))
}

func human(b int64) string {
	const gib = 1 << 30
	if b >= gib {
		return fmt.Sprintf("%.1f GiB", float64(b)/gib)
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// MaxCube returns the largest N whose N³ grid EstimateBytes puts within
// maxBytes (DefaultMaxBytes when zero): 286 for the default 8 GiB.
func MaxCube(maxBytes int64) int {
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	lo, hi := 0, 1<<21 // (2^21)³ rows overflow every limit EstimateBytes reports
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if b, err := EstimateBytes(Cube(mid)); err == nil && b <= maxBytes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// vectorsPerSolve counts the float64 vectors of length n a CG solve holds:
// b, x, r, p and Ap.
const vectorsPerSolve = 5

// Rows returns NX·NY·NZ, or an error when a dimension is not positive or the
// product overflows.
func (g Grid) Rows() (int64, error) {
	if g.NX <= 0 || g.NY <= 0 || g.NZ <= 0 {
		return 0, fmt.Errorf("cg: grid %v: %w: every dimension must be at least 1", g, ErrInvalidGrid)
	}
	n, ok := mul3(uint64(g.NX), uint64(g.NY), uint64(g.NZ))
	if !ok || n > math.MaxInt64 {
		return 0, &SizeError{Grid: g, Bytes: math.MaxInt64, Reason: "the number of rows overflows 64 bits"}
	}
	return int64(n), nil
}

// NNZ returns the number of stored entries of the grid's 27-point matrix,
// (3NX−2)(3NY−2)(3NZ−2): along one axis a point has 3 neighbours in range
// (itself included) except the two end points, which have 2, so an axis
// contributes 3N−2 and the stencil is the product of the three axes.
func (g Grid) NNZ() (int64, error) {
	if _, err := g.Rows(); err != nil {
		return 0, err
	}
	const dimLim = 1 << 60 // 3·dim must not wrap in uint64
	if g.NX >= dimLim || g.NY >= dimLim || g.NZ >= dimLim {
		return 0, &SizeError{Grid: g, Bytes: math.MaxInt64, Reason: "the number of nonzeros overflows 64 bits"}
	}
	nnz, ok := mul3(3*uint64(g.NX)-2, 3*uint64(g.NY)-2, 3*uint64(g.NZ)-2)
	if !ok || nnz > math.MaxInt64 {
		return 0, &SizeError{Grid: g, Bytes: math.MaxInt64, Reason: "the number of nonzeros overflows 64 bits"}
	}
	return int64(nnz), nil
}

func mul3(a, b, c uint64) (uint64, bool) {
	hi, ab := bits.Mul64(a, b)
	if hi != 0 {
		return 0, false
	}
	hi, abc := bits.Mul64(ab, c)
	return abc, hi == 0
}

// EstimateBytes returns the bytes a CG solve on g holds: the CSR matrix
// (4(n+1) + 4·nnz + 8·nnz) plus five float64 vectors of n (b, x, r, p, Ap).
// Generate checks it before allocating anything.
func EstimateBytes(g Grid) (int64, error) {
	n, err := g.Rows()
	if err != nil {
		return 0, err
	}
	nnz, err := g.NNZ()
	if err != nil {
		return 0, err
	}
	// n and nnz are below 2^63; the sums below are checked in uint64 with
	// n, nnz < 2^60 (beyond that the products overflow and we say so).
	const lim = 1 << 58
	if n >= lim || nnz >= lim {
		return math.MaxInt64, nil
	}
	b := uint64(4*(n+1)) + 12*uint64(nnz) + vectorsPerSolve*8*uint64(n)
	if b > math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(b), nil
}

// Generate builds HPCCG's 27-point problem on g, exactly as HPCCG's
// generate_matrix does, so that stage 0 can reproduce HPCCG's residual
// history bit for bit:
//
//   - row = iz·NX·NY + iy·NX + ix;
//   - neighbours in the order sz = −1..1 (outer), sy = −1..1, sx = −1..1
//     (inner), column = row + sz·NX·NY + sy·NX + sx, kept when
//     0 ≤ ix+sx < NX, 0 ≤ iy+sy < NY and 0 ≤ column < n (the z check is
//     the column range), so columns ascend within a row;
//   - 27.0 on the diagonal, −1.0 off it;
//   - b[i] = 27 − (nnz in row i − 1), so that A·1 = b.
//
// It refuses, before allocating, a grid with a dimension below 1, a grid
// whose EstimateBytes exceeds opt.MaxBytes, and a grid whose rows or
// nonzeros do not fit int32.
func Generate(g Grid, opt GenOptions) (*Problem, error) {
	return GenerateContext(context.Background(), g, opt)
}

// GenerateContext is Generate that gives up when ctx is done, looking at it
// before each z-plane of the grid (DefaultMaxBytes' largest grid takes
// seconds to generate), and returns ctx's error.
func GenerateContext(ctx context.Context, g Grid, opt GenOptions) (*Problem, error) {
	n64, err := g.Rows()
	if err != nil {
		return nil, err
	}
	nnz64, err := g.NNZ()
	if err != nil {
		return nil, err
	}
	bytes, err := EstimateBytes(g)
	if err != nil {
		return nil, err
	}
	max := opt.MaxBytes
	if max == 0 {
		max = DefaultMaxBytes
	}
	if max > 0 && bytes > max {
		return nil, &SizeError{Grid: g, Bytes: bytes, Max: max}
	}
	if nnz64 > math.MaxInt32 {
		return nil, &SizeError{Grid: g, Bytes: bytes, Reason: fmt.Sprintf("%d nonzeros do not fit the int32 indices of CSR (at most %d)", nnz64, math.MaxInt32)}
	}
	nx, ny, nz := g.NX, g.NY, g.NZ
	n, nnz := int(n64), int(nnz64)
	a := &CSR{
		Rows: n, Cols: n,
		RowPtr: make([]int32, n+1),
		ColIdx: make([]int32, 0, nnz),
		Val:    make([]float64, 0, nnz),
	}
	b := make([]float64, n)
	for iz := 0; iz < nz; iz++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for iy := 0; iy < ny; iy++ {
			for ix := 0; ix < nx; ix++ {
				row := iz*nx*ny + iy*nx + ix
				start := len(a.ColIdx)
				for sz := -1; sz <= 1; sz++ {
					for sy := -1; sy <= 1; sy++ {
						for sx := -1; sx <= 1; sx++ {
							col := row + sz*nx*ny + sy*nx + sx
							if ix+sx >= 0 && ix+sx < nx && iy+sy >= 0 && iy+sy < ny && col >= 0 && col < n {
								v := -1.0
								if col == row {
									v = 27.0
								}
								a.ColIdx = append(a.ColIdx, int32(col))
								a.Val = append(a.Val, v)
							}
						}
					}
				}
				nnzRow := len(a.ColIdx) - start
				b[row] = 27.0 - float64(nnzRow-1)
				a.RowPtr[row+1] = int32(len(a.ColIdx))
			}
		}
	}
	if len(a.ColIdx) != nnz {
		return nil, fmt.Errorf("cg: internal error: grid %v generated %d nonzeros, the formula says %d", g, len(a.ColIdx), nnz)
	}
	return &Problem{Grid: g, A: a, B: b}, nil
}
