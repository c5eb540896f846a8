package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// shortRowsLaunch runs shortrows.cu's launch on the simulator: the SpMV
// lesson's spmvCsrWarpPerRow (with sass's loop passes; nil: the PTX's) on
// rows rows of L entries each, columns random over x of xn floats (the
// program's LCG, values 1), blocks of 256 threads asking for shared bytes
// of dynamic shared memory, which sets how many blocks an SM holds.
func shortRowsLaunch(t *testing.T, k *PTXKernel, rows, L, xn, shared int) *Stats {
	t.Helper()
	rp := make([]int32, rows+1)
	for r := range rp {
		rp[r] = int32(r * L)
	}
	col, val := make([]int32, rows*L+1), make([]float32, rows*L+1)
	s := uint64(27)
	for j := 0; j < rows*L; j++ {
		s = s*6364136223846793005 + 1442695040888963407
		col[j] = int32((s >> 33) % uint64(xn))
		val[j] = 1
	}
	d := NewDevice(testModel(t, "h200"))
	st, err := d.LaunchPTX(context.Background(), k, Dim1(rows*32/256), Dim1(256), shared,
		mustUpload(t, d, "rowPtr", rp), mustUpload(t, d, "col", col), mustUpload(t, d, "val", val),
		mustUpload(t, d, "x", make([]float32, xn)), mustUpload(t, d, "y", make([]float32, rows)), uint64(rows))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// shortRowsRecorded is the newest recorded shortrows.csv, "" when none.
func shortRowsRecorded() string {
	m, _ := filepath.Glob("../evidence/timemodel-shortrows-h200-*/shortrows.csv")
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

// TestShortRows logs the model's time for shortrows.cu's launches beside
// the H200's (evidence/timemodel-shortrows-h200-2026-12-06): the
// warp-per-row SpMV on 2^18 rows of 0 to 32 random columns, x in L1 or in
// L2, at 8 to 64 resident warps an SM. A report, not a bound: the
// evidence README keeps its table; it fails only when a launch has no
// recorded counterpart.
func TestShortRows(t *testing.T) {
	if testing.Short() || os.Getenv("WARPLAB_SHORTROWS") == "" {
		t.Skip("set WARPLAB_SHORTROWS=1: forty launches of 2^18 warps")
	}
	var h200 map[string]float64
	if p := shortRowsRecorded(); p != "" {
		h200 = microValues(readMicrobench(t, p), 1e-6)
	}
	var sass SASSWidths
	if Ptxas() != "" {
		sass = ptxasSASS(t, "../lessons/spmv/spmv.ptx", "")
	}
	k, err := NewPTXKernel(parsePTXFile(t, "../lessons/spmv/spmv.ptx"), "spmvCsrWarpPerRow")
	if err != nil {
		t.Fatal(err)
	}
	k.SetLoadPasses(sass, "ptxas")
	const rows, smem = 1 << 18, 233472
	for _, L := range []int{0, 1, 3, 8, 32} {
		for _, lg := range []int{10, 20} {
			for _, perSM := range []int{1, 2, 4, 8} {
				shared := 0
				if perSM < 8 {
					shared = smem/(perSM+1) + 1024
				}
				st := shortRowsLaunch(t, k, rows, L, 1<<lg, shared)
				xs := "l2"
				if lg == 10 {
					xs = "l1"
				}
				p := fmt.Sprintf("L=%d x=%s w=%d", L, xs, perSM*8)
				line := fmt.Sprintf("%s: modeled %.2f µs (%s)", p, st.Time.Seconds*1e6, st.Time.Bound)
				if m := h200["shortrows "+p]; m > 0 {
					line += fmt.Sprintf(", the H200 %.2f (%.2f)", m*1e6, st.Time.Seconds/m)
				} else if h200 != nil {
					t.Errorf("%s: not in the recorded shortrows.csv (its grid and this test's differ)", p)
				}
				t.Log(line)
			}
		}
	}
}
