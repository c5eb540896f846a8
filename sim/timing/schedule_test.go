package timing

import (
	"math/rand/v2"
	"testing"
)

// h200 is the H200 as far as the schedule's tests need it (sim.Models
// has the whole model).
func h200(t testing.TB) (*GPU, *Constants) {
	t.Helper()
	return &GPU{Key: "h200", SMs: 132, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerSM: 2048, ClockHz: 1.98e9},
		&Constants{WarpCPI: 4, L1Latency: 20e-9, L2Latency: 150e-9, DRAMLatency: 450e-9}
}

// TestCriticalPathSlowWarp: the latency term follows the slowest warp, so
// one block whose warp waits many rounds takes longer than the same rounds
// spread over many warps would suggest. A warp with r rounds that miss
// waits at least r × the L2 latency (a small warm footprint).
func TestCriticalPathSlowWarp(t *testing.T) {
	g, m := h200(t)
	tm := &Launch{BlocksPerSM: 8, WarpsPerBlock: 8}
	for b := range 1000 {
		rec := Block{B: int64(b), Instr: 10, Hit: 0, Miss: 2, Warps: 8, Sum: 80}
		if b == 500 {
			rec.Miss = 400
		}
		tm.Blocks = append(tm.Blocks, rec)
	}
	finish, _, _ := schedule(g, m, tm, m.L2Latency, m.L2Latency)
	if want := 400 * m.L2Latency; finish < want {
		t.Errorf("critical path %g s, want at least the slow warp's %g s", finish, want)
	}
	// Without the slow warp, 1000 blocks fit in one wave of 132 × 8 slots.
	tm.Blocks[500].Miss = 2
	even, _, _ := schedule(g, m, tm, m.L2Latency, m.L2Latency)
	if want := 10*m.WarpCPI/g.ClockHz + 2*m.L2Latency; even < want*0.999 || even > want*1.001 {
		t.Errorf("one wave: %g s, want one block's %g s", even, want)
	}
	// Twice the blocks: two waves.
	tm.Blocks = append(tm.Blocks, tm.Blocks...)
	two, _, _ := schedule(g, m, tm, m.L2Latency, m.L2Latency)
	if two < 1.999*even {
		t.Errorf("two waves: %g s, want twice one wave's %g s", two, even)
	}
}

// TestScheduleMatchesLinearScan holds the schedule's heap to the rule it
// implements, written the slow way: each warp takes the slot that frees
// first (lowest slot number on a tie), on blocks of random lengths.
func TestScheduleMatchesLinearScan(t *testing.T) {
	g, m := h200(t)
	rng := rand.New(rand.NewPCG(1, 2))
	// ragged: one block has a warp fewer than the launch's, which takes
	// the schedule's warp-at-a-time path.
	for _, tc := range []struct {
		blocks, perSM, warps int
		ragged               bool
	}{{10, 1, 1, false}, {3000, 2, 8, false}, {5000, 8, 4, false}, {700, 3, 7, false}, {3000, 2, 8, true}, {700, 3, 7, true}} {
		tm := &Launch{BlocksPerSM: tc.perSM, WarpsPerBlock: tc.warps}
		for b := range tc.blocks {
			// Few distinct lengths, so that ties are common. Every block
			// takes time (a kernel's block executes at least one
			// instruction): a block of none would put all its warps back
			// on the one slot that frees first, where the schedule's
			// block-at-a-time path spreads them over its group.
			tm.Blocks = append(tm.Blocks, Block{B: int64(b), Instr: int32(10 * (1 + rng.IntN(4))), Miss: int32(rng.IntN(3)),
				Warps: int32(tc.warps), Sum: int64(rng.IntN(1000))})
		}
		if tc.ragged {
			tm.Blocks[tc.blocks/2].Warps--
		}
		finish, most, _ := schedule(g, m, tm, m.L2Latency, m.L2Latency)

		cpi := m.WarpCPI / g.ClockHz
		free := make([]float64, g.SMs*tc.perSM*tc.warps)
		perSM := make([]float64, g.SMs)
		var wantFinish float64
		for _, b := range tm.Blocks {
			d := float64(b.Instr)*cpi + float64(b.Hit)*m.L1Latency + float64(b.Miss)*m.L2Latency
			for range b.Warps {
				k := 0
				for i := range free {
					if free[i] < free[k] {
						k = i
					}
				}
				free[k] += d
				wantFinish = max(wantFinish, free[k])
				perSM[k%g.SMs] += float64(b.Sum) / float64(b.Warps)
			}
		}
		var wantMost int64
		for _, n := range perSM {
			wantMost = max(wantMost, int64(n))
		}
		if finish != wantFinish || most != wantMost {
			t.Errorf("%+v: schedule gives finish %g, busiest SM %d; the linear scan %g, %d", tc, finish, most, wantFinish, wantMost)
		}
	}
}

// TestSlotQueueOrder holds the schedule's slot queue to the plain rule it
// replaces: every pop takes the slot that frees first, ties to the lowest
// slot number. Durations mix runs of equal times (the FIFO's case), ties
// and shorter ones (the heap's).
func TestSlotQueueOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		slots int
		d     func(r *rand.Rand, i int) float64
	}{
		{"equal", 7, func(*rand.Rand, int) float64 { return 3 }},
		{"runs", 16, func(_ *rand.Rand, i int) float64 { return float64(1 + i/40%3) }},
		{"ties", 9, func(r *rand.Rand, _ int) float64 { return float64(r.IntN(3)) }},
		{"random", 33, func(r *rand.Rand, _ int) float64 { return r.Float64() * 10 }},
		// One slot in eight held 20 times longer (a warp on a long row):
		// the run's evictions.
		{"outliers", 64, func(r *rand.Rand, _ int) float64 { return 1 + 19*float64(r.IntN(8)/7) }},
		// Times an ulp apart whose sums meet: one bucket's slots put back
		// out of slot order.
		{"ulps", 40, func(r *rand.Rand, i int) float64 { return 0.1 + float64(r.IntN(2))*1e-17 }},
		{"empty", 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			q := newSlotQueue(c.slots)
			ref := make([]warpSlot, c.slots)
			for i := range ref {
				ref[i].k = i
			}
			for i := range 2000 {
				if c.slots == 0 {
					break
				}
				first := 0
				for j := range ref {
					if ref[j].before(ref[first]) {
						first = j
					}
				}
				got := q.pop()
				if got != ref[first] {
					t.Fatalf("pop %d: got %+v, want %+v", i, got, ref[first])
				}
				d := c.d(r, i)
				ref[first].free += d
				got.free += d
				q.push(got)
			}
		})
	}
}

// TestBlockDispatch: with a dispatch rate, a grid of short blocks takes at
// least its blocks × BlockDispatch (dispatch.cu's empty grids: one wave or
// 64, the GPU hands out a block each 0.6 ns), and one of long blocks
// what its waves take, the dispatch hidden under them.
func TestBlockDispatch(t *testing.T) {
	g, m := h200(t)
	m.BlockDispatch = 0.6e-9
	for _, tc := range []struct {
		name   string
		blocks int
		instr  int32
		want   float64
	}{
		{"one wave of short blocks", 1056, 1, 1056 * 0.6e-9},
		{"64 waves of short blocks", 64 * 1056, 1, 64 * 1056 * 0.6e-9},
		{"two waves of long blocks", 2 * 1056, 10000, 2 * 10000 * 4 / 1.98e9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := &Launch{BlocksPerSM: 8, WarpsPerBlock: 8}
			for b := range tc.blocks {
				tm.Blocks = append(tm.Blocks, Block{B: int64(b), Instr: tc.instr, Warps: 8, Sum: 8 * int64(tc.instr)})
			}
			finish, _, _ := schedule(g, m, tm, m.L2Latency, m.L2Latency)
			if finish < tc.want || finish > 1.05*tc.want+1e-8 {
				t.Errorf("finish %.3g s, want %.3g s (within 5%% above)", finish, tc.want)
			}
		})
	}
}

// TestBlockSeconds: a block holds its slots BlockSeconds beyond its path,
// so k generations of short blocks take k × BlockSeconds at one block an
// SM and the same at four (the blocks an SM holds pay it side by side)
// unless the GPU's dispatch rate is slower, while long blocks add it once
// a generation; without it, one block an SM is held only by the dispatch
// rate.
func TestBlockSeconds(t *testing.T) {
	g, m := h200(t)
	m.BlockDispatch = 0.6e-9
	path := 10000 * 4 / 1.98e9 // 10,000 instructions at WarpCPI 4 (h200's test constants)
	for _, tc := range []struct {
		name            string
		perSM, k        int
		instr           int32
		fixed, min, max float64
	}{
		{"one block an SM, 16 generations", 1, 16, 1, 300e-9, 16 * 300e-9, 16*300e-9 + 200e-9},
		{"four blocks an SM, 16 generations", 4, 16, 1, 1e-6, 16 * 1e-6, 16*1e-6 + 400e-9},
		{"four blocks an SM, held by the dispatch rate", 4, 16, 1, 300e-9, 16 * 4 * 132 * 0.6e-9, 16*4*132*0.6e-9 + 400e-9},
		{"long blocks, 2 generations", 8, 2, 10000, 300e-9, 2 * (path + 300e-9), 2*(path+300e-9) + 1e-6},
		{"none: the dispatch rate", 1, 16, 1, 0, 16 * 132 * 0.6e-9, 16*132*0.6e-9 + 100e-9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := m
			m.BlockSeconds = tc.fixed
			tm := &Launch{BlocksPerSM: tc.perSM, WarpsPerBlock: 8}
			for b := range tc.k * tc.perSM * g.SMs {
				tm.Blocks = append(tm.Blocks, Block{B: int64(b), Instr: tc.instr, Warps: 8, Sum: 8 * int64(tc.instr)})
			}
			finish, _, _ := schedule(g, m, tm, m.L2Latency, m.L2Latency)
			if finish < tc.min || finish > tc.max {
				t.Errorf("finish %.4g s, want %.4g to %.4g s", finish, tc.min, tc.max)
			}
		})
	}
}
