package sim

import (
	"context"
	"sync"
	"testing"

	"github.com/warplab/warplab/sim/timing"
)

// flightPTX: kernels whose warps load lines other warps of their block
// load, at the same load round, at an earlier one, or before a barrier.
const flightPTX = `
.version 7.0
.target sm_75
.address_size 64

// same: every warp loads a[lane], one line, in its first round.
.visible .entry same(.param .u64 p_a, .param .u64 p_y)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [p_a];
	ld.param.u64 	%rd2, [p_y];
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 31;
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.u32 	%r3, [%rd4];
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd2, %rd5;
	st.global.u32 	[%rd6], %r3;
	ret;
}

// barrier: each warp loads its own line, waits at bar.sync, then loads
// the next warp's line.
.visible .entry barrier(.param .u64 p_a, .param .u64 p_y)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [p_a];
	ld.param.u64 	%rd2, [p_y];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.u32 	%r2, [%rd4];
	bar.sync 	0;
	add.s32 	%r3, %r1, 32;
	and.b32 	%r3, %r3, 127;
	mul.wide.u32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd1, %rd5;
	ld.global.u32 	%r4, [%rd6];
	add.s32 	%r5, %r2, %r4;
	add.s64 	%rd7, %rd2, %rd3;
	st.global.u32 	[%rd7], %r5;
	ret;
}

// chain: i = a[tid], then a[i] (two rounds, the second waits for the first).
.visible .entry chain(.param .u64 p_a, .param .u64 p_y)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [p_a];
	ld.param.u64 	%rd2, [p_y];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.u32 	%r2, [%rd4];
	mul.wide.u32 	%rd5, %r2, 4;
	add.s64 	%rd6, %rd1, %rd5;
	ld.global.u32 	%r3, [%rd6];
	add.s64 	%rd7, %rd2, %rd3;
	st.global.u32 	[%rd7], %r3;
	ret;
}
`

// TestL1InFlight: with Constants.L1InFlight a warp that loads a line
// another warp of its block fetches at the same load round, or at a later
// one, waits for it (a miss round, as linewait.cu measured), where the
// executor, running the warps one after another, would give every warp
// after the first an L1 hit; a line fetched at an earlier round or before
// a barrier is a hit either way. The launch's counters do not change.
func TestL1InFlight(t *testing.T) {
	lane := func(f func(i int) uint32) []uint32 {
		a := make([]uint32, 128)
		for i := range a {
			a[i] = f(i)
		}
		return a
	}
	for _, tc := range []struct {
		kernel  string
		threads int
		a       []uint32
		// each warp's rounds, flight off and on
		off, on []timing.Rounds
	}{
		{"same", 128, lane(func(int) uint32 { return 0 }),
			[]timing.Rounds{{Miss: 1}, {Hit: 1}, {Hit: 1}, {Hit: 1}},
			[]timing.Rounds{{Miss: 1}, {Miss: 1}, {Miss: 1}, {Miss: 1}}},
		{"barrier", 128, lane(func(int) uint32 { return 0 }),
			[]timing.Rounds{{Miss: 1, Hit: 1}, {Miss: 1, Hit: 1}, {Miss: 1, Hit: 1}, {Miss: 1, Hit: 1}},
			[]timing.Rounds{{Miss: 1, Hit: 1}, {Miss: 1, Hit: 1}, {Miss: 1, Hit: 1}, {Miss: 1, Hit: 1}}},
		// warp 1's second round reads warp 0's first line, back by then
		{"chain", 64, lane(func(i int) uint32 { return [4]uint32{64, 0, 96, 96}[i/32] + uint32(i%32) }),
			[]timing.Rounds{{Miss: 2}, {Miss: 1, Hit: 1}},
			[]timing.Rounds{{Miss: 2}, {Miss: 1, Hit: 1}}},
		// warp 0's second round reads warp 1's first line: warp 1 asks
		// first on the GPU, so its first round waits in either order
		{"chain", 64, lane(func(i int) uint32 { return [4]uint32{32, 64, 96, 96}[i/32] + uint32(i%32) }),
			[]timing.Rounds{{Miss: 2}, {Miss: 1, Hit: 1}},
			[]timing.Rounds{{Miss: 2}, {Miss: 2}}},
	} {
		var counters [2]Stats
		for i, flight := range []bool{false, true} {
			m := testModel(t, "h200")
			m.L1InFlight = flight
			d := NewDevice(m)
			var mu sync.Mutex
			got := make([]timing.Rounds, tc.threads/32)
			recordHook = func(w *timing.Warp) {
				mu.Lock()
				defer mu.Unlock()
				got[w.Warp] = w.Rounds
			}
			st, err := d.LaunchPTX(context.Background(), textKernel(t, "flight.ptx", flightPTX, tc.kernel), Dim1(1), Dim1(tc.threads), 0,
				mustUpload(t, d, "a", tc.a), mustUpload(t, d, "y", make([]uint32, 128)))
			recordHook = nil
			if err != nil {
				t.Fatal(err)
			}
			want := tc.off
			if flight {
				want = tc.on
			}
			for w := range got {
				if got[w] != want[w] {
					t.Errorf("%s (flight %v): warp %d rounds %+v, want %+v", tc.kernel, flight, w, got[w], want[w])
				}
			}
			counters[i] = *st
		}
		off, on := counters[0], counters[1]
		if off.L2Sectors != on.L2Sectors || off.GlobalLoad != on.GlobalLoad || off.L1Wavefronts != on.L1Wavefronts {
			t.Errorf("%s: counters moved with flight: L2 sectors %d -> %d, loads %+v -> %+v", tc.kernel,
				off.L2Sectors, on.L2Sectors, off.GlobalLoad, on.GlobalLoad)
		}
	}
}

// TestInFlightPlaces: the rule on two places, table-driven.
func TestInFlightPlaces(t *testing.T) {
	for _, tc := range []struct {
		name       string
		first, now uint32
		want       bool
		keep       uint32 // the entry's place after the touch
	}{
		{"off", flightPos(0, 0, 1), 0, false, flightPos(0, 0, 1)},
		{"fetched with flight off", 0, flightPos(1, 0, 1), false, 0},
		{"own line", flightPos(0, 0, 1), flightPos(0, 0, 1), false, flightPos(0, 0, 1)},
		{"same round", flightPos(0, 0, 3), flightPos(5, 0, 3), true, flightPos(0, 0, 3)},
		{"earlier round takes over", flightPos(0, 0, 3), flightPos(5, 0, 2), true, flightPos(5, 0, 2)},
		{"later round: back", flightPos(0, 0, 3), flightPos(5, 0, 4), false, flightPos(0, 0, 3)},
		{"before a barrier: back", flightPos(0, 0, 3), flightPos(5, 1, 1), false, flightPos(0, 0, 3)},
		{"rounds past the field", flightPos(0, 0, 1<<20), flightPos(1, 0, 1<<20), true, flightPos(0, 0, posRoundMax)},
	} {
		e := l1Entry{pos: tc.first}
		if got := e.inFlight(tc.now); got != tc.want || e.pos != tc.keep {
			t.Errorf("%s: inFlight %v, entry at %#x; want %v, %#x", tc.name, got, e.pos, tc.want, tc.keep)
		}
	}
}
