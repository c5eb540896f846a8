package libs

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ptxcheck"
	"github.com/warplab/warplab/sparse"
	"github.com/warplab/warplab/sparse/spmvref"
)

// TestPTXMatchesSource fails when libs.cu changed and libs.ptx was not
// regenerated (scripts/cuda/gen-ptx.sh).
func TestPTXMatchesSource(t *testing.T) {
	cu, ptx := Source()
	if err := ptxcheck.Check("libs.cu", []byte(cu), []byte(ptx)); err != nil {
		t.Fatal(err)
	}
	for _, k := range KernelNames() {
		if !strings.Contains(ptx, ".entry "+k+"(") {
			t.Errorf("libs.ptx has no entry %s", k)
		}
	}
}

// irregular has random row lengths from 0 to 1500 (some rows empty, some
// longer than a block's 1024 threshold) and small-integer values, so every
// float32 sum is exact in any order and every method must match the
// reference bit for bit.
func irregular(rows int) Input {
	r := rand.New(rand.NewPCG(5, 11))
	csr := &sparse.CSR{Rows: rows, Cols: rows, RowPtr: make([]int32, rows+1)}
	for i := range rows {
		n := r.IntN(12)
		switch {
		case i%7 == 3:
			n = 0
		case i%97 == 5:
			n = 1100 + r.IntN(400)
		case i%13 == 2:
			n = 40 + r.IntN(200)
		}
		n = min(n, rows)
		start := r.IntN(rows - n + 1)
		for j := range n {
			csr.ColIdx = append(csr.ColIdx, int32(start+j))
			csr.Val = append(csr.Val, float32(r.IntN(9)-4))
		}
		csr.RowPtr[i+1] = int32(len(csr.Val))
	}
	return NewInput("irregular", csr)
}

func suiteSparse(t *testing.T) []Input {
	dir := spmvref.MatricesDir(os.Getenv("WARPLAB_MATRICES"))
	if dir == "" {
		t.Log("no shared/matrices folder: SuiteSparse rows skipped")
		return nil
	}
	var out []Input
	for _, name := range spmvref.SuiteSparseNames {
		p := filepath.Join(dir, name+".mtx")
		if _, err := os.Stat(p); err != nil {
			t.Logf("%s: %v (skipped)", p, err)
			continue
		}
		ins, err := Inputs(Options{SeedRows: []int{}, Matrices: []string{p}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ins...)
	}
	return out
}

// TestMethodsOnSimulator runs every method from the PTX on the simulator
// over the seed pair at 2^10 rows, the irregular matrix and the four
// SuiteSparse matrices, and checks each output against the CPU reference
// (Tolerance; bit for bit on the integer-valued irregular matrix), and that
// the nonzero loop's colIdx loads had exactly nnz active lanes: every
// nonzero read once, none twice, whatever the mapping.
func TestMethodsOnSimulator(t *testing.T) {
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ins, err := Inputs(Options{SeedRows: []int{1 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	ins = append(ins, irregular(3000))
	ins = append(ins, suiteSparse(t)...)
	res, err := RunInputs(context.Background(), dev, ins, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matrices) != len(ins) {
		t.Fatalf("%d matrices in the result, want %d", len(res.Matrices), len(ins))
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	for i, m := range res.Matrices {
		if len(m.Runs) != len(Methods()) {
			t.Errorf("%s: %d runs, want %d", m.Key, len(m.Runs), len(Methods()))
		}
		for _, r := range m.Runs {
			t.Run(m.Key+"/"+r.Method, func(t *testing.T) {
				if !r.Correct {
					t.Errorf("wrong output, max relative error %.3g", r.MaxErr)
				}
				if ins[i].Key == "irregular" && r.MaxErr != 0 {
					t.Errorf("integer-valued matrix: max relative error %.3g, want exact", r.MaxErr)
				}
				if r.SimNonzero == nil || *r.SimNonzero != int64(m.NNZ) {
					t.Errorf("active lanes at the colIdx loads %v, want nnz %d", r.SimNonzero, m.NNZ)
				}
				if r.TimeKind != gpuext.Modeled || r.TimeMs <= 0 {
					t.Errorf("time %v %q, want a positive modeled time", r.TimeMs, r.TimeKind)
				}
				if r.PredSlots < int64(m.NNZ) || r.PredUseful > 1 {
					t.Errorf("prediction %d slots (useful %.3f) for %d nonzeros", r.PredSlots, r.PredUseful, m.NNZ)
				}
				// On the even matrix every row is alike, so nvcc's
				// unrolling cannot split a warp's passes, and the host's
				// lane-slot count is the simulator's exactly; merge path's
				// staging loop is unrolled over tiles of unequal length.
				if strings.HasPrefix(m.Key, "even") && r.Method != MethodMerge && *r.SimSlots != r.PredSlots {
					t.Errorf("even matrix: predicted %d nonzero-slots, simulator %d", r.PredSlots, *r.SimSlots)
				}
			})
		}
	}
}

// fill is n rows of length l.
func fill(n, l int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = l
	}
	return out
}

// TestChoose holds the rule order for every rules Fit may pick: the
// issue's case (one dense row of 46,500 in 46,500 rows of 3) gets a
// long-row method (split or nonzero tiles) however small the matrix is; an even matrix never gets a balancing
// method; a small even one gets one wide launch; an empty one any kernel.
// Then DefaultRules' picks on named cases.
func TestChoose(t *testing.T) {
	const h200 = 132 * 2048
	dense := append(fill(46_499, 3), 46_500)
	seed := spmvref.SeedRowLengths(1<<10, false)
	denseS, evenS, seedS := StatsOf(dense), StatsOf(spmvref.SeedRowLengths(1<<19, false)), StatsOf(seed)
	for _, r := range RulesGrid() {
		if c := ChooseWith(r, denseS, h200); !strings.HasPrefix(c.Method, "split") && !strings.HasPrefix(c.Method, MethodTile) {
			t.Fatalf("rules %v: one dense row in 46,500 small rows: %s (%s), want split or tile", r, c.Method, c.Reason)
		}
		if c := ChooseWith(r, evenS, h200); !strings.HasPrefix(c.Method, "vector") {
			t.Fatalf("rules %v: even seed 2^19: %s, want CSR-vector", r, c.Method)
		}
		// Small: one wide CSR-vector launch, or the nonzero tiles
		// (SmallTile), float4 as V4MinMean says for the median of 16.
		wantSmall := VectorMethod(32, false)
		if r.SmallTile {
			wantSmall = TileMethod(16 >= r.V4MinMean)
		}
		if c := ChooseWith(r, seedS, 1<<20); c.Method != wantSmall {
			t.Fatalf("rules %v: small even seed: %s, want %s", r, c.Method, wantSmall)
		}
		if c := ChooseWith(r, StatsOf(nil), h200); c.Reason == "" {
			t.Fatalf("rules %v: empty matrix: no reason", r)
		}
	}
	skew := spmvref.SeedRowLengths(1<<10, true)
	// The table holds the rules' logic to fixed rules (the fit of the
	// 2026-12-06 08:07 UTC corpus run), not to DefaultRules, which each
	// corpus run refits (TestCorpusRun): a long row beyond 64× the
	// balanced share to split, small under half the device to one wide
	// CSR-vector launch, spread to the tiles, float4 from a median of 32.
	fixed := Rules{LongFactor: 64, SmallFill: 0.5, SpreadCV: 0.5, SpreadTile: true, LaneWork: 8, V4MinMean: 32, LocalTile: 0.4}
	tests := []struct {
		name     string
		lengths  []int
		resident int
		want     string
	}{
		{"even seed: 16 a row", seed, 0, VectorMethod(2, false)},
		// Median 3: 2 lanes; the 419-long rows are 210 passes of them.
		{"skewed seed, device size unknown", skew, 0, SplitMethod(2, false)},
		// On an H200 the 419-long rows are 210 passes, under 64× the
		// balanced share of 31: not long; spread (CV 4.5) → the tiles.
		{"skewed seed 2^19 on an H200", spmvref.SeedRowLengths(1<<19, true), h200, MethodTile},
		{"one giant row on an H200", append(fill(1<<17, 4), 1_000_000), h200, SplitMethod(2, false)},
		// 46,500 rows × 2 lanes fill under half the H200: small, but
		// the long row outranks it, and the rules' long-row method is
		// split (SmallTile off).
		{"dense row in a small matrix", dense, h200, SplitMethod(2, false)},
		{"short even rows", []int{5, 5, 4, 5, 5, 3, 5}, 0, VectorMethod(2, false)},
		{"long even rows", []int{100, 96, 110, 100}, 0, VectorMethod(16, true)}, // median 100 ≥ 32: float4
		{"spread, no giant", []int{1, 3, 2, 27, 3, 1, 20, 2}, 0, MethodTile},
		{"empty", nil, 0, VectorMethod(2, false)},
		// 1024 rows × 2 lanes = 2048 < half of 16384 resident: small,
		// one wide CSR-vector launch, 16 lanes a row (16384 threads).
		{"small even seed", seed, 16384, VectorMethod(16, false)},
		{"big enough", seed, 2048, VectorMethod(2, false)},
		{"not small: over half the device", seed, 4000, VectorMethod(2, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ChooseWith(fixed, StatsOf(tt.lengths), tt.resident)
			if c.Method != tt.want {
				t.Errorf("Choose = %s (%s), want %s", c.Method, c.Reason, tt.want)
			}
			if c.Reason == "" {
				t.Error("no reason given")
			}
			if got, want := Choose(StatsOf(tt.lengths), tt.resident), ChooseWith(DefaultRules(), StatsOf(tt.lengths), tt.resident); got != want {
				t.Errorf("Choose = %+v, ChooseWith(DefaultRules()) = %+v", got, want)
			}
		})
	}
}

func TestWidthFor(t *testing.T) {
	for _, tt := range []struct {
		mean float64
		want int
	}{{1, 2}, {8, 2}, {8.5, 4}, {16, 4}, {42, 16}, {128, 32}, {5000, 32}} {
		if got := WidthFor(tt.mean); got != tt.want {
			t.Errorf("WidthFor(%v) = %d, want %d", tt.mean, got, tt.want)
		}
	}
}

// TestBins checks that every row lands in exactly one bin, in ascending
// order, in the bin BinWidth names.
func TestBins(t *testing.T) {
	in := irregular(2000)
	seen := make([]int, in.CSR.Rows)
	for _, b := range Bins(in.CSR.RowPtr) {
		if b.Count != len(b.Rows) || b.Count == 0 {
			t.Errorf("bin %d: count %d, %d rows", b.Width, b.Count, len(b.Rows))
		}
		for i, r := range b.Rows {
			seen[r]++
			if w := BinWidth(in.CSR.RowLen(int(r))); w != b.Width {
				t.Errorf("row %d (length %d) in bin %d, want %d", r, in.CSR.RowLen(int(r)), b.Width, w)
			}
			if i > 0 && b.Rows[i-1] >= r {
				t.Errorf("bin %d not ascending at %d", b.Width, i)
			}
		}
	}
	for r, n := range seen {
		if n != 1 {
			t.Fatalf("row %d in %d bins", r, n)
		}
	}
}

// TestMergePartitions checks the per-block search against walking the
// merge path step by step.
func TestMergePartitions(t *testing.T) {
	for _, in := range []Input{irregular(2000), NewInput("one row", &sparse.CSR{Rows: 1, Cols: 1, RowPtr: []int32{0, 0}})} {
		rp := in.CSR.RowPtr
		tr, tz := MergePartitions(rp)
		row, j, step := 0, 0, 0
		rows, nnz := in.CSR.Rows, in.CSR.NNZ()
		for b := range tr {
			want := min(b*MergeTile, rows+nnz)
			for step < want {
				if row < rows && j < int(rp[row+1]) {
					j++
				} else {
					row++
				}
				step++
			}
			if int(tr[b]) != row || int(tz[b]) != j {
				t.Fatalf("%s tile %d: (%d, %d), walking the path gives (%d, %d)", in.Key, b, tr[b], tz[b], row, j)
			}
		}
		if int(tr[len(tr)-1]) != rows || int(tz[len(tz)-1]) != nnz {
			t.Errorf("%s: last coordinate (%d, %d), want (%d, %d)", in.Key, tr[len(tr)-1], tz[len(tz)-1], rows, nnz)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"rows not a multiple of 32", Options{SeedRows: []int{1000}}, "multiple of 32"},
		{"rows too small", Options{SeedRows: []int{32}}, "from 448"},
		{"unknown method", Options{Methods: []string{"vector3"}}, "no method"},
		{"no matrices", Options{SeedRows: []int{}}, "no matrices"},
		{"negative runs", Options{Runs: -1}, "Runs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("zero Options: %v", err)
	}
}

func TestKernelSource(t *testing.T) {
	for _, name := range []string{"rowPartial", "csrVector", "spmvMergePath", "spmvMergeFixup", "spmvBinBlock", "segStep", "tileSpmv", "tileFinish"} {
		src, err := KernelSource(name)
		if err != nil || !strings.Contains(src, name+"(") {
			t.Errorf("KernelSource(%s) = %q, %v", name, src, err)
		}
	}
}

// TestMaxRelErr: a row never written (NaN) fails and still encodes as JSON.
func TestMaxRelErr(t *testing.T) {
	nan := float32(math.NaN())
	for _, tt := range []struct {
		got  []float32
		ok   bool
		want float64
	}{
		{[]float32{1, 2}, true, 0},
		{[]float32{1, 2.00001}, true, 5e-6},
		{[]float32{1, 2.001}, false, 5e-4},
		{[]float32{nan, 2}, false, 1e30},
	} {
		e, ok := maxRelErr(tt.got, []float32{1, 2}, []float32{1, 2})
		if ok != tt.ok || math.Abs(e-tt.want) > 1e-6*max(1, tt.want) {
			t.Errorf("maxRelErr(%v) = %g, %v; want %g, %v", tt.got, e, ok, tt.want, tt.ok)
		}
		if _, err := json.Marshal(KernelRun{MaxErr: e}); err != nil {
			t.Errorf("JSON: %v", err)
		}
	}
}
