package sim

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

const loneRowRecorded = "../evidence/timemodel-lonerow-h200-2026-12-05/lonerow.csv"

// TestLoneRow runs lonerow.cu's launch on the simulator: the SpMV lesson's
// spmvCsrThreadPerRow on one row of 16,384 entries, one lane alone, x of
// 2^10, 2^20 and 2^25 floats, columns in order or random (the program's
// LCG), with ptxas's loop passes where ptxas is present. It logs the
// modeled time against the H200's warm and cold rows
// (evidence/timemodel-lonerow-h200-2026-12-05) and holds the model to the
// order the H200 gives both ways: x in L1 (2^10) cheapest, then columns in
// order, then random columns, at 2^20. The model's footprint fits the L2,
// so it prices the warm launch: docs/timemodel.md says how far off it is.
func TestLoneRow(t *testing.T) {
	if testing.Short() {
		t.Skip("three 16,384-entry launches")
	}
	h200 := microValues(readMicrobench(t, loneRowRecorded), 1e-6)
	var sass SASSWidths
	if Ptxas() != "" {
		sass = ptxasSASS(t, "../lessons/spmv/spmv.ptx", "")
	}
	mod := parsePTXFile(t, "../lessons/spmv/spmv.ptx")
	const L = 16384
	modeled := map[string]float64{}
	for _, c := range []struct {
		lg     int
		random bool
	}{{10, false}, {20, false}, {20, true}} {
		xn := 1 << c.lg
		col := make([]int32, L)
		s := uint64(27)
		for j := range col {
			s = s*6364136223846793005 + 1442695040888963407
			col[j] = int32(j % xn)
			if c.random {
				col[j] = int32((s >> 33) % uint64(xn))
			}
		}
		st := loneRowLaunch(t, mod, sass, 0, col, xn)
		cols := "in order"
		if c.random {
			cols = "random"
		}
		p := fmt.Sprintf("x=2^%d cols=%s", c.lg, cols)
		modeled[p] = st.Time.Seconds
		warm, cold := h200["lonerow_warm "+p], h200["lonerow_cold "+p]
		if warm == 0 || cold == 0 {
			t.Fatalf("%s: no H200 rows", p)
		}
		t.Logf("%s: modeled %.1f µs, the H200 %.1f warm (%.2f), %.1f cold (%.2f)", p, st.Time.Seconds*1e6,
			warm*1e6, st.Time.Seconds/warm, cold*1e6, st.Time.Seconds/cold)
	}
	order := []string{"x=2^10 cols=in order", "x=2^20 cols=in order", "x=2^20 cols=random"}
	for i := 1; i < len(order); i++ {
		a, b := order[i-1], order[i]
		if h200["lonerow_warm "+a] >= h200["lonerow_warm "+b] || h200["lonerow_cold "+a] >= h200["lonerow_cold "+b] {
			t.Fatalf("the H200's rows are not ordered %s < %s", a, b)
		}
		if modeled[a] >= modeled[b] {
			t.Errorf("modeled %s %.1f µs, not below %s %.1f µs", a, modeled[a]*1e6, b, modeled[b]*1e6)
		}
	}
}

// TestLoneRowStart runs TestLoneRow's launch (x of 2^20 floats, columns in
// order, ptxas's loop passes) with the row starting 0 to 7 entries into
// col and val. Where a row starts moves which load of a compiled pass
// first touches each 32-byte sector of col and val, not how many sectors
// a pass brings in. Until 2026-12-05 a compiled pass's round waited only
// for the miss of the load that opened it, so a row starting 1 to 3
// entries past a multiple of 4 waited for none of its col and val
// sectors: 510.8 µs against 668.3 at a start of 0 (0.76), and the
// dense-rows family's long row at 2^21 and 2^23 rows came out at
// 0.64-0.66 of the H200's time, against 0.98-0.99 at 2^15 and 2^18
// where it started on one. Now a compiled pass waits at each level for a
// miss none of its rounds waited for (timing.RoundState): 609.1 against
// 707.6 µs. What is left is the opener rule itself: at a start of 0 some
// compiled passes have two rounds opened by a load that misses and wait
// twice. The bound, 20%, holds the fix without claiming more.
func TestLoneRowStart(t *testing.T) {
	if testing.Short() {
		t.Skip("eight 16,384-entry launches")
	}
	if Ptxas() == "" {
		t.Skip("no ptxas: the PTX's passes have a round a PTX pass, whose waits cannot move with the start")
	}
	sass := ptxasSASS(t, "../lessons/spmv/spmv.ptx", "")
	mod := parsePTXFile(t, "../lessons/spmv/spmv.ptx")
	const L, xn = 16384, 1 << 20
	var times []float64
	for start := range 8 {
		col := make([]int32, L)
		for j := range col {
			col[j] = int32(j)
		}
		st := loneRowLaunch(t, mod, sass, start, col, xn)
		times = append(times, st.Time.Seconds)
		t.Logf("row starting %d entries in: modeled %.1f µs", start, st.Time.Seconds*1e6)
	}
	lo, hi := slices.Min(times), slices.Max(times)
	if hi > 1.2*lo {
		t.Errorf("the modeled time moves with where the row starts: %.1f to %.1f µs (more than 20%%)", lo*1e6, hi*1e6)
	}
}

// loneRowLaunch runs the SpMV lesson's spmvCsrThreadPerRow (with sass's
// loop passes; nil: the PTX's) as one warp on a fresh H200 device whose
// only row holds cols (values 1) and starts start entries into col and
// val, x of xn zeros: one lane walks the row alone.
func loneRowLaunch(t *testing.T, mod *ptx.Module, sass SASSWidths, start int, cols []int32, xn int) *Stats {
	t.Helper()
	k, err := NewPTXKernel(mod, "spmvCsrThreadPerRow")
	if err != nil {
		t.Fatal(err)
	}
	k.SetLoadPasses(sass, "ptxas")
	n := start + len(cols)
	col, val := make([]int32, n), make([]float32, n)
	copy(col[start:], cols)
	for j := start; j < n; j++ {
		val[j] = 1
	}
	d := NewDevice(testModel(t, "h200"))
	st, err := d.LaunchPTX(context.Background(), k, Dim1(1), Dim1(32), 0,
		mustUpload(t, d, "rowPtr", []int32{int32(start), int32(n)}), mustUpload(t, d, "col", col), mustUpload(t, d, "val", val),
		mustUpload(t, d, "x", make([]float32, xn)), mustUpload(t, d, "y", make([]float32, 1)), uint64(1))
	if err != nil {
		t.Fatal(err)
	}
	return st
}
