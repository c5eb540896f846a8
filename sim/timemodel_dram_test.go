package sim

import (
	"context"
	"math"
	"testing"
)

const dramRecorded = "../evidence/timemodel-micro-dram-scatter-h200-2026-12-04/dram.csv"

// TestDRAMConstants: the H200's granule is 64 bytes and its loaded-latency
// curve rises from the pointer chase's 350 ns to about 1 µs at 4.4 TB/s
// (the rows, not fitted); a model without a DRAM run has neither.
func TestDRAMConstants(t *testing.T) {
	m := testModel(t, "h200")
	if m.DRAMGranuleBytes != 64 {
		t.Errorf("DRAMGranuleBytes %g, want 64", m.DRAMGranuleBytes)
	}
	if len(m.DRAMLoaded) != 3 {
		t.Fatalf("DRAMLoaded %v, want 3 points", m.DRAMLoaded)
	}
	prev := m.DRAMLatency
	for _, p := range m.DRAMLoaded {
		if p.Seconds <= prev || p.Rate < 1e12 || p.Rate > 5e12 {
			t.Errorf("curve point %+v: want rising latencies above %g s at 1-5 TB/s", p, prev)
		}
		prev = p.Seconds
	}
	if a := testModel(t, "a100"); a.DRAMGranuleBytes != 0 || len(a.DRAMLoaded) != 0 {
		t.Errorf("a100: granule %g, curve %v: want none", a.DRAMGranuleBytes, a.DRAMLoaded)
	}
}

// TestDRAMGranule runs the microbenchmark's strided read on the simulator
// (8 floats a thread, one a touched sector at s >= 32 bytes apart) over a
// span larger than the L2: the DRAM bytes a cold launch reads are 64 a
// touched sector, as Nsight Compute measured on the H200
// (evidence/timemodel-micro-dram-h200-2026-12-04/ncu-stride.csv:
// dram__bytes_read is the span at s = 4, 32 and 64, half of it at 128 and
// a quarter at 256).
func TestDRAMGranule(t *testing.T) {
	const span = 64 << 20
	read := strideReads(t, span)
	for _, c := range []struct {
		s    uint64
		want float64 // DRAM bytes read, a share of the span
	}{{4, 1}, {32, 1}, {64, 1}, {128, 0.5}, {256, 0.25}} {
		st := read(c.s)
		if got := float64(st.DRAMReadBytes) / span; math.Abs(got-c.want) > 0.01 {
			t.Errorf("s = %d B: DRAM read %.3f of the span, want %.2f (the H200's, by ncu)", c.s, got, c.want)
		}
	}
}

// TestDependentLatencies runs two of the microbenchmark's kernels on the
// simulator and holds the time a step adds to the modeled launch to what
// the H200 took (evidence/timemodel-micro-dram-h200-2026-12-04, less the
// launch's share of a step: shfl_chain_1step / 4,096 steps): shflChain,
// one warp's dependent shfl.down + add steps, 36.4 − 2.2 = 34.2 cycles a
// step; redStep, one block of 256 threads a step of ld.shared, use,
// bar.sync, st.shared, bar.sync, 86.0 − 8.7 (the same launch cost over
// 1,024 steps) = 77.3 cycles. Within 15%. Without the stalls (no shared
// load or shuffle latency in the constants) redStep is 63.5 cycles, more
// than 15% below; shflChain is 34.4 either way, since its PTX's eight
// instructions a step (index arithmetic and movs ptxas folds) at WarpCPI
// take as long as the SASS's chain: the shuffle's latency shows only in
// code whose chain outruns its instructions (the reductions' trees).
func TestDependentLatencies(t *testing.T) {
	mod := parsePTXFile(t, "testdata/dram_micro.ptx")
	with := testModel(t, "h200")
	without := with
	without.SharedLoadCycles, without.ShflCycles = 0, 0
	step := func(m Model, kernel string, threads int) float64 {
		k, err := NewPTXKernel(mod, kernel)
		if err != nil {
			t.Fatal(err)
		}
		d := NewDevice(m)
		out := mustUpload(t, d, "out", make([]float32, 4))
		var lat [2]float64
		for i, steps := range []int32{256, 512} {
			st, err := d.LaunchPTX(context.Background(), k, Dim1(1), Dim1(threads), 0, out, steps)
			if err != nil {
				t.Fatal(err)
			}
			lat[i] = st.Time.Terms.Latency
		}
		return (lat[1] - lat[0]) / 256 * m.ClockHz
	}
	for _, c := range []struct {
		kernel  string
		threads int
		h200    float64
		tells   bool // the model without the stalls is off by more than 15%
	}{{"shflChain", 32, 34.2, false}, {"redStep", 256, 77.3, true}} {
		got, before := step(with, c.kernel, c.threads), step(without, c.kernel, c.threads)
		t.Logf("%s: %.1f cycles a step modeled (%.1f without the stalls), the H200 %.1f", c.kernel, got, before, c.h200)
		if math.Abs(got-c.h200)/c.h200 > 0.15 {
			t.Errorf("%s: %.1f cycles a step modeled, the H200 %.1f", c.kernel, got, c.h200)
		}
		if c.tells && before > 0.85*c.h200 {
			t.Errorf("%s: %.1f cycles a step without the stalls: the test cannot tell the mechanism", c.kernel, before)
		}
	}
}

// TestBufferReadsLines runs the same strided read at s = 32 and 128 bytes:
// the buffer's loads touch every sector of a line in the first and one
// sector a line in the second, so its distinct 128-byte lines are a
// quarter of its sectors and then as many (the L2's reuse rule holds a
// line whole: timing.BufferReads.Lines); each line is sent to L2 by one
// request, with all four of its sectors at 32 and one at 128.
func TestBufferReadsLines(t *testing.T) {
	read := strideReads(t, 16<<20)
	for _, c := range []struct {
		s              uint64
		linesPerSector float64
		touchesPerLine float64 // line transactions over distinct lines
	}{{32, 0.25, 1}, {128, 1, 1}} {
		st := read(c.s)
		if len(st.reads) != 1 {
			t.Fatalf("s = %d B: %d buffers read, want 1", c.s, len(st.reads))
		}
		r := st.reads[0]
		sectors := float64(r.Unique) / 32
		if got := float64(r.Lines) / sectors; math.Abs(got-c.linesPerSector) > 1e-9 {
			t.Errorf("s = %d B: %d lines for %.0f sectors (%.3f a sector), want %.2f", c.s, r.Lines, sectors, got, c.linesPerSector)
		}
		if got := float64(r.LineTouches) / float64(r.Lines); math.Abs(got-c.touchesPerLine) > 1e-9 {
			t.Errorf("s = %d B: %d line transactions for %d lines, want %.0f a line", c.s, r.LineTouches, r.Lines, c.touchesPerLine)
		}
	}
}

// strideReads sets up the DRAM microbenchmark's strideRead (8 floats a
// thread, s bytes apart) over span bytes on a fresh H200 device and
// returns a function that launches it at stride s and returns the stats.
func strideReads(t *testing.T, span uint64) func(s uint64) *Stats {
	t.Helper()
	mod := parsePTXFile(t, "testdata/dram_micro.ptx")
	d := NewDevice(testModel(t, "h200"))
	buf, err := Alloc[float32](d, "p", int(span/4))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Alloc[float32](d, "out", 64)
	if err != nil {
		t.Fatal(err)
	}
	return func(s uint64) *Stats {
		t.Helper()
		k, err := NewPTXKernel(mod, "strideRead")
		if err != nil {
			t.Fatal(err)
		}
		n8 := span / s / 8
		st, err := d.LaunchPTX(context.Background(), k, Dim1(int(n8/256)), Dim1(256), 0, buf, out, n8, s/4)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}
