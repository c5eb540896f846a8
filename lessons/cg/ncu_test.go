package cg

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/warplab/warplab/internal/ncu"
	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// The thread-per-row SpMV at 100³, as HPCCG's first port runs it, against
// Nsight Compute on the H200 (evidence/cg-ncu-100-h200-2026-11-29/ncu.csv, the
// first launch of stage 1): global load requests and sectors. The kernel is
// compiled with nvcc's default unrolling, which the mirror models as by four,
// remainder first. Recorded: simulator 2,562,142 requests / 60,656,006
// sectors, ncu 2,577,814 / 60,660,710: sectors within 0.01%, requests 0.6%
// fewer (nvcc 13's code for this loop pairs a few more lane iterations
// apart than the model; no unroll factor 1, 2, 4 or 8 gives ncu's count).
// The test holds them to 1% and 0.1%. It takes a few seconds at this size,
// so it runs with WARPLAB_LONG=1.
func TestSpMVEqualsNCUAt100(t *testing.T) {
	if os.Getenv("WARPLAB_LONG") == "" {
		t.Skip("set WARPLAB_LONG=1 to compare the 100³ SpMV with ncu")
	}
	launches, err := ncu.ReadFile(filepath.Join("../../evidence/cg-ncu-100-h200-2026-11-29", "ncu.csv"))
	if err != nil {
		t.Fatal(err)
	}
	hw := launches[0]
	p, err := Generate(Cube(100), GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := testenv.Must(sim.ModelByKey("h200"))(t)
	d := sim.NewDevice(m)
	rowPtr := testenv.Must(sim.Upload(d, "rowPtr", p.A.RowPtr))(t)
	cols := testenv.Must(sim.Upload(d, "cols", p.A.Cols))(t)
	vals := testenv.Must(sim.Upload(d, "vals", p.A.Vals))(t)
	x := testenv.Must(sim.Upload(d, "x", p.B))(t)
	y := testenv.Must(sim.Alloc[float64](d, "y", p.A.N))(t)
	k := spmvThreadPerRowMirror(kSpMVThreadPerRow, p.A.N, rowPtr, cols, vals, x, y, 4)
	st, err := d.Launch(k, sim.Dim1((p.A.N+255)/256), sim.Dim1(256), 0)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := hw.Metric(ncu.LoadRequests)
	sec, _ := hw.Metric(ncu.LoadSectors)
	t.Logf("simulator %d requests / %d sectors; ncu %d / %d", st.GlobalLoad.Requests, st.GlobalLoad.Sectors, int64(req), int64(sec))
	off := func(a int64, b float64) float64 { return math.Abs(float64(a)-b) / b }
	if off(st.GlobalLoad.Requests, req) > 0.01 || off(st.GlobalLoad.Sectors, sec) > 0.001 {
		t.Errorf("simulator %d requests / %d sectors, ncu %d / %d", st.GlobalLoad.Requests, st.GlobalLoad.Sectors, int64(req), int64(sec))
	}
}
