package sim

import (
	"context"
	"math"
	"testing"
)

const contentionRecorded = "../evidence/timemodel-contention-h200-2026-12-04/contention.csv"

// TestContentionConstants: a warp's bar.sync takes about 2.1 cycles of
// its SM on the H200; rows the rule cannot use leave it; a model without
// the run has none.
func TestContentionConstants(t *testing.T) {
	if m := testModel(t, "h200"); math.Abs(m.BarrierWarpCycles-2.11) > 0.02 {
		t.Errorf("BarrierWarpCycles %g, want about 2.11", m.BarrierWarpCycles)
	}
	if a := testModel(t, "a100"); a.BarrierWarpCycles != 0 {
		t.Errorf("a100: BarrierWarpCycles %g, want none", a.BarrierWarpCycles)
	}
	for _, rows := range [][]MicrobenchRow{
		nil,
		{{Name: "cont_bar", Param: "T=256 b=4", Value: 74, Unit: "cycles"}},    // 32 warps: not the rate
		{{Name: "cont_bar", Param: "T=256 b=8", Value: 135, Unit: "us"}},       // wrong unit
		{{Name: "cont_bar", Param: "T=256 b=8", Value: -1, Unit: "cycles"}},    // implausible
		{{Name: "cont_red", Param: "T=256 b=8", Value: 274, Unit: "cycles"}},   // another row
		{{Name: "cont_bar", Param: "256 threads", Value: 135, Unit: "cycles"}}, // unreadable param
	} {
		if got := applyContention(Model{}, rows); got.BarrierWarpCycles != 0 {
			t.Errorf("applyContention(%v) set BarrierWarpCycles %g", rows, got.BarrierWarpCycles)
		}
	}
}

// TestReductionStepInStep runs dram.cu's redStep (a shared load, a
// barrier, a store, a barrier a step: a block reduction's step) on the
// simulator with one and eight blocks of 256 threads an SM, and holds the
// modeled cycles a step within 15% of the H200's (dram.csv's red_step and
// contention.csv's cont_red, the same kernel): one block is its path, eight
// share the SM's barrier rate. Without the sharing eight blocks would take
// what one does.
func TestReductionStepInStep(t *testing.T) {
	mod := parsePTXFile(t, "testdata/dram_micro.ptx")
	m := testModel(t, "h200")
	k, err := NewPTXKernel(mod, "redStep")
	if err != nil {
		t.Fatal(err)
	}
	step := func(m Model, blocksPerSM int) float64 {
		d := NewDevice(m)
		out := mustUpload(t, d, "out", make([]float32, 4))
		var lat [2]float64
		for i, steps := range []int32{32, 64} {
			st, err := d.LaunchPTX(context.Background(), k, Dim1(m.SMs*blocksPerSM), Dim1(256), 0, out, steps)
			if err != nil {
				t.Fatal(err)
			}
			lat[i] = st.Time.Terms.Latency
		}
		return (lat[1] - lat[0]) / 32 * m.ClockHz
	}
	alone := m
	alone.BarrierWarpCycles = 0
	for _, c := range []struct {
		blocks int
		h200   float64 // cycles a step: red_step (dram.csv) and cont_red, their mean
	}{{1, (86.3 + 83.2) / 2}, {8, (277.7 + 274.5) / 2}} {
		got, before := step(m, c.blocks), step(alone, c.blocks)
		t.Logf("%d blocks an SM: %.1f cycles a step modeled (%.1f without the sharing), the H200 %.1f", c.blocks, got, before, c.h200)
		if math.Abs(got-c.h200)/c.h200 > 0.15 {
			t.Errorf("%d blocks an SM: %.1f cycles a step modeled, the H200 %.1f", c.blocks, got, c.h200)
		}
		if c.blocks == 8 && before > 0.5*c.h200 {
			t.Errorf("without the sharing, eight blocks take %.1f cycles a step: the test cannot tell the mechanism", before)
		}
	}
}
