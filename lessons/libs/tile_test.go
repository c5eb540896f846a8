package libs

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/warplab/warplab/sparse"
)

// lengthsInput is a matrix with the given row lengths, integer values and
// columns spread over the row (so every sum is exact in float32 whatever
// its order, and a lost or doubled piece fails the check exactly).
func lengthsInput(key string, lengths []int) Input {
	rows := len(lengths)
	cols := max(1, slices.Max(append([]int{1}, lengths...)))
	c := &sparse.CSR{Rows: rows, Cols: cols, RowPtr: make([]int32, rows+1)}
	for i, n := range lengths {
		for j := range n {
			c.ColIdx = append(c.ColIdx, int32(j*7%cols))
			c.Val = append(c.Val, float32((i+j)%7-3))
		}
		c.RowPtr[i+1] = int32(len(c.Val))
	}
	return NewInput(key, c)
}

// tileCases are the nonzero tiles' edge cases: rows that end exactly on a
// tile boundary and one past it, empty rows inside and at the ends of the
// matrix (and a run of them longer than a warp's 32 rows), one row
// crossing many tiles, a single row, nnz not a multiple of TileNZ (nor of
// 4, for the float4 tail), no nonzeros at all, tiles of more than 32 rows
// (their y stored 32 rows a pass); then four corpus families at a small
// size.
func tileCases(t *testing.T) []Input {
	t.Helper()
	rep := func(n, l int) []int { return fill(n, l) }
	cat := func(parts ...[]int) []int { return slices.Concat(parts...) }
	ins := []Input{
		lengthsInput("boundaries", cat(rep(8, 32), rep(8, 32), []int{1, 255}, rep(3, 0), []int{TileNZ + 1, 3})),
		lengthsInput("empties", cat(rep(40, 0), []int{5}, rep(70, 0), []int{300}, rep(33, 0), rep(100, 3), rep(45, 0))),
		lengthsInput("one-huge-row", cat(rep(50, 2), []int{46_500}, rep(50, 2))),
		lengthsInput("single-row", []int{1000}),
		lengthsInput("single-short-row", []int{7}),
		lengthsInput("odd-nnz", cat(rep(61, 33), []int{29, 1})),
		lengthsInput("lane-max", cat(rep(7, 32), []int{33}, rep(5, 32))),
		lengthsInput("lane-runs", cat(rep(9, 8), rep(4, 1), []int{7, 9, 16, 8, 24}, rep(40, 1), []int{0, 0, 250, 0, 6}, rep(30, 2))),
		lengthsInput("no-nonzeros", rep(70, 0)),
		// Tiles of more than 32 rows: steps 2 and 4 go over their rows 32
		// at a time (a tile of 256 one-nonzero rows, then ones between
		// runs of empty rows, a row ending on a tile boundary with empty
		// rows on both sides of it).
		lengthsInput("many-rows", cat(rep(600, 1), rep(37, 0), rep(100, 1), []int{0, 2, 0, 0, 1, 0, 3}, rep(200, 1))),
		lengthsInput("sparse-ones", func() []int {
			l := make([]int, 3000)
			for i := range l {
				if i%3 == 0 || i%7 == 0 {
					l[i] = 1
				}
			}
			return l
		}()),
		lengthsInput("boundary-empties", cat([]int{TileNZ}, rep(40, 0), []int{TileNZ - 1, 1}, rep(5, 0), []int{2*TileNZ + 3}, rep(3, 0))),
		irregular(3000),
	}
	return append(ins, familyInputs(t, 4096, "powerlaw15", "powerlaw25c", "denserows", "road")...)
}

// hostTileRows is spmvTilePrep's answer computed on the host: the first row
// starting at or after each tile's first nonzero, and nRows at the end.
func hostTileRows(rowPtr []int32) []int32 {
	rows := len(rowPtr) - 1
	n := TileCount(int(rowPtr[rows]))
	out := make([]int32, n+1)
	for t := range n {
		out[t] = int32(sort.Search(rows, func(r int) bool { return int(rowPtr[r]) >= t*TileNZ }))
	}
	out[n] = int32(rows)
	return out
}

// TestTileOnSimulator runs both nonzero-tile kernels twice on every edge
// case: y must be the CPU reference (exactly, on the integer-valued cases),
// the device's tile rows the host's, and every done-count and piece slot
// back at 0 after each SpMV (a count left over would keep the next SpMV's
// last piece from summing its row; a slot left full would let it read the
// last SpMV's piece where this one's is not yet visible, which the
// simulator, whose stores are seen at once, would not show otherwise). The staging loads read each nonzero once (the active
// lanes of the val loads equal nnz), in Predict's lane-slots.
func TestTileOnSimulator(t *testing.T) {
	onSimulator(t, tileCases(t), func(t *testing.T, c simCase) {
		in, d := c.in, c.d
		exact := in.Key != "powerlaw15-2^12" && in.Key != "powerlaw25c-2^12" && in.Key != "denserows-2^12" && in.Key != "road-2^12"
		for _, m := range []string{MethodTile, MethodTileV4} {
			if _, err := d.prepare(c.ctx, c.dev, c.mod, c.o, m); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
			got := make([]int32, d.tile.nTiles+1)
			if err := d.tile.tileRow.Download(got); err != nil {
				t.Fatal(err)
			}
			if want := hostTileRows(in.CSR.RowPtr); !slices.Equal(got, want) {
				t.Fatalf("%s: tile rows %v, want %v", m, head(got), head(want))
			}
			for rep := range 2 {
				y := make([]float32, in.CSR.Rows)
				ls, names, err := d.checkedLaunch(c.ctx, c.dev, c.mod, m, y)
				if err != nil {
					t.Fatalf("%s: %v", m, err)
				}
				e, ok := maxRelErr(y, in.Want, in.Scale)
				if !ok || (exact && e != 0) {
					t.Errorf("%s, SpMV %d: max relative error %.3g (first bad row %d)", m, rep+1, e, firstBad(y, in.Want))
				}
				var run KernelRun
				simCounters(&run, ls, names)
				if run.SimNonzero == nil || *run.SimNonzero != int64(in.CSR.NNZ()) {
					t.Errorf("%s: active lanes at the val loads %v, want nnz %d", m, run.SimNonzero, in.CSR.NNZ())
				}
				// nvcc unrolls the scalar staging loop by 4, remainder
				// first (DESIGN.md), so where the last tile's lanes run
				// unequal trips it pairs passes Predict does not: exact
				// only when every tile is whole quads of warp passes.
				unrolled := m == MethodTile && in.CSR.NNZ()%(4*WarpSize) != 0
				if p, _ := Predict(in.CSR, m); run.SimSlots == nil || (!unrolled && *run.SimSlots != p) {
					t.Errorf("%s: staging lane-slots %d, Predict %d", m, *run.SimSlots, p)
				}
				allZero(t, m+": done-count of tile", d.tile.tileDone, d.tile.nTiles)
				slots := make([]float32, 4*d.tile.nTiles)
				if err := d.tile.partial.Download(slots); err != nil {
					t.Fatal(err)
				}
				if i := slices.IndexFunc(slots, func(v float32) bool { return math.Float32bits(v) != 0 }); i >= 0 {
					t.Errorf("%s: piece slot %d of tile %d not cleared after the SpMV (word %#x)", m, i/2%2, i/4, math.Float32bits(slots[i]))
				}
			}
		}
	})
}

func head(s []int32) string {
	if len(s) > 12 {
		return fmt.Sprint(s[:12], "...")
	}
	return fmt.Sprint(s)
}

func firstBad(got, want []float32) int {
	for i := range want {
		if got[i] != want[i] {
			return i
		}
	}
	return -1
}
