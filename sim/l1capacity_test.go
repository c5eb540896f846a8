package sim_test

import (
	"math"
	"reflect"
	"runtime"
	"testing"

	"github.com/warplab/warplab/sim"
)

// TestL1CapacityMicrobenchmark runs the microbenchmark the L1's capacity
// curve (Model.L1MissFrom, L1MissTo) was read from, rowsUnroll1 of
// scripts/evidence/timemodel-l1reuse.sh, on the simulator, and compares the
// share of re-reads the L1 lost with what Nsight Compute measured on the
// H200 (evidence/timemodel-l1reuse-h200-2026-12-01, README's table:
// (L2 read sectors − footprint) / (L1 sectors − footprint)). It checks that
// the line clock and the occupancy the simulator derives from the executed
// PTX give the ρ the curve was fitted for: nothing lost while the SM's live
// lines fit, about half at 64 warps of 32 lines each.
func TestL1CapacityMicrobenchmark(t *testing.T) {
	k, m := l1ReuseKernel(t)
	cases := []struct {
		rowBytes, warpsPerSM int
		measured             float64 // H200, ncu, 2026-12-01
	}{
		{128, 16, 0.000},
		{128, 32, 0.008},
		{128, 64, 0.445},
		{256, 16, 0.000},
		{256, 32, 0.027},
		{256, 64, 0.460},
	}
	for _, c := range cases {
		// One wave, as the microbenchmark launches it: blocks of up to
		// 1,024 threads, SMs × blocks per SM.
		threads := min(c.warpsPerSM*32, 1024)
		blocks := m.SMs * c.warpsPerSM * 32 / threads
		n := c.rowBytes / 8
		st, out0 := runRows(t, k, m, blocks, threads, n)
		if out0 != sumRow(n) {
			t.Fatalf("row %d bytes: out[0] = %v, want %v", c.rowBytes, out0, sumRow(n))
		}
		var site sim.SiteStats
		for _, s := range st.Sites {
			if s.Space == "global" && s.Op == "ld" {
				site = s
			}
		}
		footprint := int64(blocks * threads * c.rowBytes / 32)
		lost := float64(site.L2Sectors-footprint) / float64(site.Sectors-footprint)
		t.Logf("%4d-byte rows, %2d warps/SM: lost %.3f of re-reads (H200 %.3f); L2 sectors %d, footprint %d",
			c.rowBytes, c.warpsPerSM, lost, c.measured, site.L2Sectors, footprint)
		if math.Abs(lost-c.measured) > 0.1 {
			t.Errorf("%d-byte rows at %d warps per SM: the L1 lost %.3f of re-reads, the H200 %.3f", c.rowBytes, c.warpsPerSM, lost, c.measured)
		}
	}
}

// sumRow is a row's sum in rowsUnroll1's order: row 0 holds i%7 for i < n.
func sumRow(n int) float64 {
	var s float64
	for i := range n {
		s += float64(i % 7)
	}
	return s
}

// TestL1CapacityDeterministic: which re-touches the L1's capacity loses is
// a hash of the sector, block and line clock, so the counters and the
// modeled time do not depend on how many workers ran the blocks.
func TestL1CapacityDeterministic(t *testing.T) {
	k, m := l1ReuseKernel(t)
	run := func(procs int) *sim.Stats {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		st, _ := runRows(t, k, m, 2*m.SMs, 1024, 32)
		return st
	}
	one, four := run(1), run(4)
	if !reflect.DeepEqual(one, four) {
		t.Errorf("GOMAXPROCS 1 and 4 differ: L2 sectors %d / %d, modeled %g / %g s", one.L2Sectors, four.L2Sectors, one.Time.Seconds, four.Time.Seconds)
	}
}

// runRows launches rowsUnroll1 on a fresh device of model m: blocks ×
// threads threads, each summing its own row of n doubles (row 0 holds i%7),
// and returns the launch's counters and thread 0's sum.
func runRows(t *testing.T, k *sim.PTXKernel, m sim.Model, blocks, threads, n int) (*sim.Stats, float64) {
	t.Helper()
	dev := sim.NewDevice(m)
	a, err := sim.Alloc[float64](dev, "a", blocks*threads*n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Data {
		a.Data[i] = float64(i % 7)
	}
	out, err := sim.Alloc[float64](dev, "out", blocks*threads)
	if err != nil {
		t.Fatal(err)
	}
	st, err := dev.LaunchPTX(t.Context(), k, sim.Dim1(blocks), sim.Dim1(threads), 0, a, int32(n), out)
	if err != nil {
		t.Fatal(err)
	}
	return st, out.Data[0]
}

// l1ReuseKernel is rowsUnroll1 of testdata/ptx/l1reuse.ptx, and the H200
// model it is held to.
func l1ReuseKernel(t *testing.T) (*sim.PTXKernel, sim.Model) {
	t.Helper()
	k := ptxKernel(t, "testdata/ptx/l1reuse.ptx", "rowsUnroll1")
	m, err := sim.ModelByKey("h200")
	if err != nil {
		t.Fatal(err)
	}
	return k, m
}
