package timing

import (
	"math"
	"testing"
)

func TestRateAt(t *testing.T) {
	curve := []InflightRate{{512, 1e11}, {1024, 3e11}, {4096, 5e11}}
	cases := []struct {
		bytes, want float64
	}{
		{256, 0.5e11}, // below the first point: Little's law at its latency
		{512, 1e11},
		{768, 2e11},
		{2560, 4e11},
		{4096, 5e11},
		{1e9, 5e11}, // the last point's rate above it
	}
	for _, c := range cases {
		if got, ok := RateAt(curve, c.bytes); !ok || math.Abs(got-c.want) > 1 {
			t.Errorf("RateAt(%g) = %g, %v; want %g", c.bytes, got, ok, c.want)
		}
	}
	if _, ok := RateAt(nil, 100); ok {
		t.Error("an empty curve gave a rate")
	}
}

// TestBlockTimeBarrier: a block whose warps meet at a barrier waits for
// its warps' wavefronts and the barrier; without barriers a block takes
// its slowest warp's path only; a warp's memory rounds come before its
// issue and do not overlap the wavefronts. The pass is the mechanisms
// microbenchmark's sh_st_bar (w warps, k-way conflicted stores, a
// conflict-free load, two barriers): the model's pass must come within
// 10% of what the H200 took (evidence/timemodel-micro-mechanisms-h200-2026-12-04),
// from constants read off the conflict-free passes (k = 1) only.
func TestBlockTimeBarrier(t *testing.T) {
	g := &GPU{SMs: 132, ClockHz: 1.98e9}
	m := &Constants{WarpCPI: 4.17, SharedWavesPerCycle: 0.998, SharedWaveCycles: 2.0, BarrierCycles: 11.68, BarrierCyclesPerWarp: 1.008}
	cyc := 1 / g.ClockHz
	waveSec := 1 / (m.SharedWavesPerCycle * g.ClockHz)
	for _, c := range []struct {
		w, k int
		h200 float64 // cycles a pass
	}{{32, 32, 1132.4}, {8, 32, 316.1}, {16, 16, 332.2}, {32, 8, 364.4}, {1, 32, 108.0}} {
		// The slowest warp's own path: the store's k−1 extra wavefronts
		// and the load's latency (28.7 cycles), instructions aside.
		extra := (float64(c.k-1)*m.SharedWaveCycles + 28.7) * cyc
		b := Block{Warps: int32(c.w), Bars: 2, Waves: int64(c.w * (c.k + 1)), Extra: extra}
		got := blockTime(g, m, &b, 0, 0, 0, waveSec, 0) / cyc
		if math.Abs(got-c.h200)/c.h200 > 0.10 {
			t.Errorf("%d warps, %d-way stores and two barriers: %.0f cycles a pass, the H200 %.0f", c.w, c.k, got, c.h200)
		}
	}
	extra := 90 * cyc
	b := Block{Warps: 32, Waves: 32 * 33, Extra: extra, Miss: 1}
	// Without barriers the other warps' wavefronts are not on the path.
	if got := blockTime(g, m, &b, 0, 350e-9, 350e-9, waveSec, 0); math.Abs(got-extra-350e-9) > 1e-15 {
		t.Errorf("no barrier: %g s, want the slowest warp's %g s", got, extra+350e-9)
	}
	// With barriers, the load's latency comes before the wavefronts.
	b.Bars = 1
	want := 350e-9 + float64(b.Waves)*waveSec + m.BarrierSeconds(g, 32)
	if got := blockTime(g, m, &b, 0, 350e-9, 350e-9, waveSec, 0); math.Abs(got-want) > 1e-15 {
		t.Errorf("barrier after a load: %g s, want %g s", got, want)
	}
	// Constants without a shared rate or barrier cost leave them out.
	if got := blockTime(g, &Constants{}, &b, 0, 0, 0, 0, 0); math.Abs(got-extra) > 1e-15 {
		t.Errorf("no shared constants: %g s, want %g s", got, extra)
	}
}

// TestBlocksPerSMRegisters: registers limit the blocks as the occupancy
// calculator does (a warp's registers in units of 256), and unknown
// registers (0) leave the other limits.
func TestBlocksPerSMRegisters(t *testing.T) {
	g := &GPU{MaxBlocksPerSM: 32, MaxWarpsPerSM: 64, MaxThreadsPerSM: 2048, SharedPerSM: 228 << 10, RegistersPerSM: 65536, RegAllocUnit: 256}
	cases := []struct{ warps, regs, want int }{
		{8, 0, 8}, {8, 32, 8}, {8, 34, 6}, {8, 52, 4}, {8, 66, 3}, {8, 84, 2}, {8, 130, 1}, {8, 255, 1},
		{32, 14, 2}, {32, 40, 1}, {1, 255, 8},
	}
	for _, c := range cases {
		if got := g.BlocksPerSM(c.warps, c.warps*32, 0, c.regs); got != c.want {
			t.Errorf("%d warps, %d registers: %d blocks, want %d", c.warps, c.regs, got, c.want)
		}
	}
}

// TestInStepBandwidth: with InStepBandwidth, a block that meets barriers
// waits for its memory at least as long as the L2 takes to serve every
// block in step on the GPU (its bytes, or its line transactions at the
// line rate, whichever is longer), then does its own work; a block
// without barriers, or the constant off, keeps its rounds' latency.
func TestInStepBandwidth(t *testing.T) {
	g := &GPU{SMs: 132, ClockHz: 1.98e9}
	m := &Constants{WarpCPI: 4.17, IssuePerSMCycle: 3.87, L2Bandwidth: 8.03e12, L2LineShare: 0.52, InStepBandwidth: true}
	const inStep = 8.0
	work := 100e-9 // the block's instructions, a path of its own
	cpi := work / 1000
	b := Block{Instr: 1000, Warps: 8, Bars: 2, Miss: 1, L2Sectors: 256, L2Lines: 64}
	blocks := float64(g.SMs) * inStep
	bytes := 256 * 32 * blocks / m.L2Bandwidth                  // 1,056 blocks' 8 KiB at 8.03 TB/s: 1.08 µs
	lines := 64 * blocks / (m.L2LineShare * m.L2Bandwidth / 32) // their lines: 0.52 µs
	for _, c := range []struct {
		name string
		b    Block
		m    Constants
		want float64
	}{
		{"bytes bound", b, *m, max(bytes, lines) + work},
		{"lines bound", func() Block { x := b; x.L2Lines = 256; return x }(), *m,
			max(bytes, 256*blocks/(m.L2LineShare*m.L2Bandwidth/32)) + work},
		{"latency longer", func() Block { x := b; x.Miss = 10; return x }(), *m, 10*450e-9 + work},
		{"no barriers", func() Block { x := b; x.Bars = 0; return x }(), *m, 450e-9 + work},
		{"off", b, func() Constants { x := *m; x.InStepBandwidth = false; return x }(), 450e-9 + work},
	} {
		got := blockTime(g, &c.m, &c.b, cpi, 450e-9, 450e-9, 0, inStep)
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %.4g s, want %.4g s", c.name, got, c.want)
		}
	}
	if lines >= bytes {
		t.Fatalf("the first case should be bound by bytes: %g against %g", bytes, lines)
	}
}
