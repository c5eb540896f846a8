package timing

import (
	"math"
	"testing"
)

// The H200's loaded-latency curve as sim derives it from
// evidence/timemodel-micro-dram-h200-2026-12-04 (dram_chase_v4 at 16, 32
// and 64 warps per SM).
var h200Loaded = []LoadedLatency{{2.41e12, 448e-9}, {3.86e12, 560e-9}, {4.39e12, 986e-9}}

func TestLatencyAt(t *testing.T) {
	const idle = 350e-9
	for _, c := range []struct{ rate, want float64 }{
		{0, idle},
		{-1, idle},
		{1.205e12, (350e-9 + 448e-9) / 2}, // halfway to the first point
		{2.41e12, 448e-9},
		{3.135e12, (448e-9 + 560e-9) / 2},
		{4.39e12, 986e-9},
		{9e12, 986e-9}, // beyond the curve: its last latency
	} {
		if got := LatencyAt(h200Loaded, idle, c.rate); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("LatencyAt(%g B/s) = %g s, want %g", c.rate, got, c.want)
		}
	}
	if got := LatencyAt(nil, idle, 3e12); got != idle {
		t.Errorf("no curve: %g, want the idle latency", got)
	}
}

// TestColdLoadedLatency: a cold launch of one DRAM round a warp (the
// reductions' load: 64 warps an SM, 128 bytes a warp, many waves) waits
// the loaded latency at the throughput it reaches, which lies between
// the idle latency and the latency at the idle time's throughput, and
// whose throughput gives it back (the fixed point, within 3%); without a
// curve, or with no DRAM bytes, the idle latency.
func TestColdLoadedLatency(t *testing.T) {
	g, m := h200(t)
	m.WarpCPI, m.DRAMLatency = 4.17, 350e-9
	m.DRAMAchievable, m.L2Bandwidth, m.IssuePerSMCycle = 3.92e12, 8e12, 3.87
	s, bytes, blocks := oneRoundLaunch(60)
	idle, _, _ := coldTime(g, m, s, bytes)
	m.DRAMLoaded = h200Loaded
	loaded, terms, bound := coldTime(g, m, s, bytes)
	if bound != "latency" || loaded <= idle {
		t.Fatalf("with the curve: %g s (%s), idle %g s: want a longer latency-bound time", loaded, bound, idle)
	}
	checkFixedPoint(t, h200Loaded, m.DRAMLatency, waitedARound(g, m, terms, blocks, 60), float64(bytes), loaded, idle)
}

// The H200's L2 loaded-latency curve as sim derives it from bw_l2
// (evidence/timemodel-micro-mechanisms-h200-2026-12-04, u = 2).
var h200L2Loaded = []LoadedLatency{{3.74e11, 181e-9}, {1.44e12, 187e-9}, {2.74e12, 197e-9}, {4.79e12, 226e-9}, {6.23e12, 347e-9}, {6.30e12, 687e-9}}

// TestWarmLoadedLatency: a warm launch of one L2 round a warp and few
// instructions (its data in L2, 64 warps an SM, many waves) waits the L2's loaded latency at
// the throughput it reaches, between the idle latency and the latency at
// the idle time's throughput, and whose throughput gives it back (the
// fixed point, within 3%); a gather's latency grows in proportion;
// without a curve, the idle latency, to the bit.
func TestWarmLoadedLatency(t *testing.T) {
	g, m := h200(t)
	m.WarpCPI, m.L2Latency, m.L2ScatterLatency, m.DRAMScatterLatency = 4.17, 145e-9, 174e-9, 601e-9
	m.DRAMAchievable, m.L2Bandwidth, m.IssuePerSMCycle = 3.92e12, 8e12, 3.87
	s, bytes, blocks := oneRoundLaunch(10)
	tm := s.Records
	idle, _, _ := warmTime(g, m, s, bytes)
	if plain, _, _ := kernelTime(g, m, s, bytes, true, m.DRAMLatency); plain != idle {
		t.Fatalf("no curve: %g s, kernelTime's warm %g s", idle, plain)
	}
	m.L2Loaded = h200L2Loaded
	loaded, terms, bound := warmTime(g, m, s, bytes)
	if bound != "latency" || loaded <= idle {
		t.Fatalf("with the curve: %g s (%s), idle %g s: want a longer latency-bound time", loaded, bound, idle)
	}
	lat := waitedARound(g, m, terms, blocks, 10)
	checkFixedPoint(t, h200L2Loaded, m.L2Latency, lat, float64(bytes), loaded, idle)
	// The same rounds as gathers wait the scattered latency scaled alike.
	for i := range tm.Blocks {
		tm.Blocks[i].MissWide = 1
	}
	wide, wterms, _ := warmTime(g, m, s, bytes)
	wlat := waitedARound(g, m, wterms, blocks, 10)
	if wide <= loaded || math.Abs(wlat/lat-174.0/145) > 0.05 {
		t.Errorf("gathers: %g s, waited %g s a round against %g coalesced: want about %.2f×", wide, wlat, lat, 174.0/145)
	}
}

// oneRoundLaunch is a launch of 40 waves of blocks of 8 warps at 8 blocks
// an SM, each warp instr instructions and one 128-byte load round that
// misses L1: its counters, the bytes it reads, and its blocks.
func oneRoundLaunch(instr int32) (s *Counters, bytes int64, blocks int) {
	blocks = 132 * 8 * 40
	tm := &Launch{BlocksPerSM: 8, WarpsPerBlock: 8}
	for b := range blocks {
		tm.Blocks = append(tm.Blocks, Block{B: int64(b), Instr: instr, Miss: 1, Warps: 8, Sum: 8 * int64(instr)})
	}
	bytes = int64(blocks * 8 * 128)
	s = &Counters{Blocks: int64(blocks), Warps: int64(blocks) * 8, GlobalLoadRequests: int64(blocks) * 8, MissRequests: int64(blocks) * 8,
		L2Sectors: bytes / 32, L2LoadSectors: bytes / 32, UniqueRead: bytes, Records: tm,
		LoadSites: []LoadSite{{Miss: int64(blocks) * 8}}}
	return s, bytes, blocks
}

// waitedARound reads back from a oneRoundLaunch's latency term the
// latency its one round waited: blocks in waves of 132 × 8, each warp's
// instr instructions at WarpCPI besides.
func waitedARound(g *GPU, m *Constants, terms Terms, blocks int, instr int32) float64 {
	waves := float64(blocks) / (132 * 8)
	return terms.Latency/waves - float64(instr)*m.WarpCPI/g.ClockHz
}

// checkFixedPoint holds a loaded latency lat, waited by a launch that
// moved bytes in loaded seconds (idle seconds at the idle latency), to
// the curve at the launch's own throughput (within 3%) and between the
// idle latency and the curve at the idle time's throughput.
func checkFixedPoint(t *testing.T, curve []LoadedLatency, idleLat, lat, bytes, loaded, idle float64) {
	t.Helper()
	if want := LatencyAt(curve, idleLat, bytes/loaded); math.Abs(lat-want)/want > 0.03 {
		t.Errorf("waited %g s a round; the curve at the launch's own throughput says %g s", lat, want)
	}
	hi := LatencyAt(curve, idleLat, bytes/idle)
	if lat < idleLat || lat > hi*1.0001 {
		t.Errorf("latency %g s outside [idle %g, at the idle throughput %g]", lat, idleLat, hi)
	}
}

// TestDRAMTime: without DRAMWrite a launch's read and written bytes go
// together at the lesser of DRAMAchievable and the in-flight rate (the
// term as it was); with it, writes drain at their own rate and α says how
// much of the shorter side the longer does not hide, never faster than
// all bytes at DRAMAchievable.
func TestDRAMTime(t *testing.T) {
	const gb = 1e9
	for _, c := range []struct {
		name           string
		write, alpha   float64
		r, w, inflight float64
		want           float64
	}{
		{"as before", 0, 0, 4 * gb, 4 * gb, 2e12, 8 * gb / 2e12},
		{"as before, capped", 0, 0, 4 * gb, 4 * gb, 9e12, 8 * gb / 3e12},
		{"hidden writes", 3e12, 0, 4 * gb, 1 * gb, 2e12, 4 * gb / 2e12},
		{"serial", 3e12, 1, 4 * gb, 3 * gb, 2e12, 4*gb/2e12 + 3*gb/3e12},
		{"half", 3e12, 0.5, 4 * gb, 3 * gb, 2e12, 4*gb/2e12 + 0.5*3*gb/3e12},
		{"writes longer", 1e12, 0.5, 1 * gb, 4 * gb, 2e12, 4*gb/1e12 + 0.5*1*gb/2e12},
		{"bus bound", 3e12, 0, 4 * gb, 4 * gb, 9e12, 8 * gb / 3e12},
		{"reads only", 3e12, 0.5, 4 * gb, 0, 2e12, 4 * gb / 2e12},
	} {
		m := &Constants{DRAMAchievable: 3e12, DRAMWrite: c.write, DRAMOverlap: c.alpha}
		if got := m.dramTime(c.r, c.w, c.inflight); math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("%s: %g s, want %g", c.name, got, c.want)
		}
	}
}
