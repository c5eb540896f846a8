package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// roundsPTX has three kernels over a[i], a[i+1], a[i+2], a[i+3]:
// together issues the four loads before adding them (one round a warp);
// interleaved adds each result as soon as it is loaded, as nvcc writes an
// unrolled body (still one round: no load's address depends on another, so
// ptxas issues them together); chained loads b = a[a[i]] (two rounds a
// warp: the second load's address is the first one's result); barrier
// loads a[i], waits at bar.sync, then loads a[i+1] (two rounds: no load
// moves across a barrier).
const roundsPTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry together(.param .u64 p_a, .param .u64 p_y)
{
	.reg .f32 	%f<8>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [p_a];
	ld.param.u64 	%rd2, [p_y];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %tid.x;
	mad.lo.s32 	%r3, %r1, 128, %r2;
	mul.wide.s32 	%rd3, %r3, 16;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.f32 	%f1, [%rd4];
	ld.global.f32 	%f2, [%rd4+4];
	ld.global.f32 	%f3, [%rd4+8];
	ld.global.f32 	%f4, [%rd4+12];
	add.f32 	%f5, %f1, %f2;
	add.f32 	%f6, %f3, %f4;
	add.f32 	%f7, %f5, %f6;
	mul.wide.s32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd2, %rd5;
	st.global.f32 	[%rd6], %f7;
	ret;
}

.visible .entry interleaved(.param .u64 p_a, .param .u64 p_y)
{
	.reg .f32 	%f<8>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [p_a];
	ld.param.u64 	%rd2, [p_y];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %tid.x;
	mad.lo.s32 	%r3, %r1, 128, %r2;
	mul.wide.s32 	%rd3, %r3, 16;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.f32 	%f1, [%rd4];
	ld.global.f32 	%f2, [%rd4+4];
	add.f32 	%f5, %f1, %f2;
	ld.global.f32 	%f3, [%rd4+8];
	add.f32 	%f6, %f5, %f3;
	ld.global.f32 	%f4, [%rd4+12];
	add.f32 	%f7, %f6, %f4;
	mul.wide.s32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd2, %rd5;
	st.global.f32 	[%rd6], %f7;
	ret;
}

.visible .entry barrier(.param .u64 p_a, .param .u64 p_y)
{
	.reg .f32 	%f<4>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [p_a];
	ld.param.u64 	%rd2, [p_y];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %tid.x;
	mad.lo.s32 	%r3, %r1, 128, %r2;
	mul.wide.s32 	%rd3, %r3, 16;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.f32 	%f1, [%rd4];
	bar.sync 	0;
	ld.global.f32 	%f2, [%rd4+4];
	add.f32 	%f3, %f1, %f2;
	mul.wide.s32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd2, %rd5;
	st.global.f32 	[%rd6], %f3;
	ret;
}

.visible .entry chained(.param .u64 p_a, .param .u64 p_y)
{
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<10>;
	ld.param.u64 	%rd1, [p_a];
	ld.param.u64 	%rd2, [p_y];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %tid.x;
	mad.lo.s32 	%r3, %r1, 128, %r2;
	mul.wide.s32 	%rd3, %r3, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.u32 	%r4, [%rd4];
	mul.wide.u32 	%rd5, %r4, 4;
	add.s64 	%rd6, %rd1, %rd5;
	ld.global.u32 	%r5, [%rd6];
	add.s64 	%rd7, %rd2, %rd3;
	st.global.u32 	[%rd7], %r5;
	ret;
}
`

func roundsKernel(t *testing.T, name string) *PTXKernel {
	t.Helper()
	mod, err := ptx.Parse("rounds.ptx", roundsPTX)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewPTXKernel(mod, name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestLoadRounds: which loads start a round is read off the PTX, and a
// launch counts one round per round-starting load each warp executes.
func TestLoadRounds(t *testing.T) {
	for _, tc := range []struct {
		kernel       string
		starts, join int
		perWarp      int64
	}{
		{"together", 1, 3, 1},
		{"interleaved", 1, 3, 1},
		{"barrier", 2, 0, 2},
		{"chained", 2, 0, 2},
	} {
		k := roundsKernel(t, tc.kernel)
		starts, joins := 0, 0
		for _, x := range k.code {
			switch {
			case x.tmRound == tmNoLoad:
			case x.tmRound&tmRoundJoin == 0:
				starts++
			default:
				joins++
			}
		}
		if starts != tc.starts || joins != tc.join {
			t.Errorf("%s: %d round starts and %d joins, want %d and %d", tc.kernel, starts, joins, tc.starts, tc.join)
		}
		m := testModel(t, "h200")
		d := NewDevice(m)
		const n = 4 * 128 * 8
		a, err := Alloc[uint32](d, "a", n)
		if err != nil {
			t.Fatal(err)
		}
		y, err := Alloc[uint32](d, "y", n)
		if err != nil {
			t.Fatal(err)
		}
		st, err := d.LaunchPTX(context.Background(), k, Dim1(8), Dim1(128), 0, a, y)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.LoadRounds(); got != tc.perWarp*st.Warps {
			t.Errorf("%s: %d load rounds over %d warps, want %d a warp", tc.kernel, got, st.Warps, tc.perWarp)
		}
		if st.Time.Seconds < st.Time.GPUSeconds || st.Time.GPUSeconds < m.LaunchOverhead || st.Time.KernelSeconds < st.Time.GPUSeconds {
			t.Errorf("%s: time %+v: want seconds >= GPU >= overhead, and the cold kernel no faster than the warm one", tc.kernel, st.Time)
		}
	}
}

// TestCriticalPathSlowWarp: the latency term follows the slowest warp, so
// one block whose warp waits many rounds takes longer than the same rounds
// spread over many warps would suggest. A warp with r rounds that miss
// waits at least r × the L2 latency (a small warm footprint).
func TestCriticalPathSlowWarp(t *testing.T) {
	m := testModel(t, "h200")
	tm := &launchTM{blocksPerSM: 8, warpsPerBlock: 8}
	for b := range 1000 {
		rec := blockTM{b: int64(b), instr: 10, hit: 0, miss: 2, warps: 8, sum: 80}
		if b == 500 {
			rec.miss = 400
		}
		tm.blocks = append(tm.blocks, rec)
	}
	finish, _ := m.schedule(tm, m.L2Latency)
	if want := 400 * m.L2Latency; finish < want {
		t.Errorf("critical path %g s, want at least the slow warp's %g s", finish, want)
	}
	// Without the slow warp, 1000 blocks fit in one wave of 132 × 8 slots.
	tm.blocks[500].miss = 2
	even, _ := m.schedule(tm, m.L2Latency)
	if want := 10*m.WarpCPI/m.ClockHz + 2*m.L2Latency; even < want*0.999 || even > want*1.001 {
		t.Errorf("one wave: %g s, want one block's %g s", even, want)
	}
	// Twice the blocks: two waves.
	tm.blocks = append(tm.blocks, tm.blocks...)
	two, _ := m.schedule(tm, m.L2Latency)
	if two < 1.999*even {
		t.Errorf("two waves: %g s, want twice one wave's %g s", two, even)
	}
}

func TestParseMicrobench(t *testing.T) {
	good := "# device: NVIDIA H200, 132 SMs\nname,param,value,unit,note\nchase_l2,8388608B/stride128,160.5,ns,n\nclock,20ms spin,1.98e+09,Hz,x\n"
	rows, comments, err := ParseMicrobench([]byte(good))
	if err != nil || len(rows) != 2 || rows[0].Value != 160.5 || comments[0] != "device: NVIDIA H200, 132 SMs" {
		t.Fatalf("rows %+v comments %q err %v", rows, comments, err)
	}
	// The recorded 2026-12-01 run has params and notes with commas in them.
	rows, _, err = ParseMicrobench([]byte("name,param,value,unit,note\nlaunch_event_empty_grid,3 warm-ups, 10 runs,4.064,us,a, b\ndevice_sms,,132,count,H200\n"))
	if err != nil || len(rows) != 2 || rows[0].Param != "3 warm-ups, 10 runs" || rows[0].Value != 4.064 || rows[0].Unit != "us" || rows[0].Note != "a, b" || rows[1].Param != "" || rows[1].Value != 132 {
		t.Fatalf("rows with commas: %+v err %v", rows, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"name,param\n", "line 1"},
		{"name,param,value,unit,note\nclock,x,fast,Hz,n\n", "line 2"},
		{"name,param,value,unit,note\nclock\n", "line 2"},
		{"# only a comment\n", "no header"},
	} {
		if _, _, err := ParseMicrobench([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want one naming %q", tc.in, err, tc.want)
		}
	}
	// Rows set the constants the rules name; an implausible one is ignored.
	m := testModel(t, "h200")
	rows, _, err = ParseMicrobench([]byte(good + "issue_ffma1,1 warps/SM,0.25,warp_instr/SM/cycle,n\nissue_ffma8,64 warps/SM,40,warp_instr/SM/cycle,n\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := applyCalibration(m, rows)
	if math.Abs(c.L2Latency-160.5e-9) > 1e-15 || c.ClockHz != 1.98e9 || c.WarpCPI != 4 || c.IssuePerSMCycle != m.IssuePerSMCycle {
		t.Errorf("calibrated %+v", c)
	}
}

// TestScheduleMatchesLinearScan holds the schedule's heap to the rule it
// implements, written the slow way: each warp takes the slot that frees
// first (lowest slot number on a tie), on blocks of random lengths.
func TestScheduleMatchesLinearScan(t *testing.T) {
	m := testModel(t, "h200")
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ blocks, perSM, warps int }{{10, 1, 1}, {3000, 2, 8}, {5000, 8, 4}, {700, 3, 7}} {
		tm := &launchTM{blocksPerSM: tc.perSM, warpsPerBlock: tc.warps}
		for b := range tc.blocks {
			// Few distinct lengths, so that ties are common.
			tm.blocks = append(tm.blocks, blockTM{b: int64(b), instr: int32(10 * rng.IntN(4)), miss: int32(rng.IntN(3)),
				warps: int32(tc.warps), sum: int64(rng.IntN(1000))})
		}
		finish, most := m.schedule(tm, m.L2Latency)

		cpi := m.WarpCPI / m.ClockHz
		free := make([]float64, m.SMs*tc.perSM*tc.warps)
		perSM := make([]float64, m.SMs)
		var wantFinish float64
		for _, b := range tm.blocks {
			d := float64(b.instr)*cpi + float64(b.hit)*m.L1Latency + float64(b.miss)*m.L2Latency
			for range b.warps {
				k := 0
				for i := range free {
					if free[i] < free[k] {
						k = i
					}
				}
				free[k] += d
				wantFinish = max(wantFinish, free[k])
				perSM[k%m.SMs] += float64(b.sum) / float64(b.warps)
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
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			q := newSlotQueue(c.slots)
			ref := make([]warpSlot, c.slots)
			for i := range ref {
				ref[i].k = i
			}
			for i := range 2000 {
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
