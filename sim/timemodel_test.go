package sim

import (
	"context"
	"math"
	"strings"
	"testing"
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

.visible .entry guarded(.param .u64 p_a, .param .u64 p_y)
{
	.reg .pred 	%p<3>;
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
	setp.gt.s32 	%p1, %r2, 1000;
	mov.f32 	%f1, 0f00000000;
	mov.f32 	%f2, 0f00000000;
	@%p1 bra 	$L__G1;
	ld.global.f32 	%f1, [%rd4];
$L__G1:
	setp.gt.s32 	%p2, %r2, 2000;
	@%p2 bra 	$L__G2;
	ld.global.f32 	%f2, [%rd4+4];
$L__G2:
	add.f32 	%f3, %f1, %f2;
	mul.wide.s32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd2, %rd5;
	st.global.f32 	[%rd6], %f3;
	ret;
}

.visible .entry guardedOnLoad(.param .u64 p_a, .param .u64 p_y)
{
	.reg .pred 	%p<2>;
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
	mov.f32 	%f2, 0f00000000;
	setp.eq.f32 	%p1, %f1, 0f3F800000;
	@%p1 bra 	$L__O1;
	ld.global.f32 	%f2, [%rd4+4];
$L__O1:
	add.f32 	%f3, %f1, %f2;
	mul.wide.s32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd2, %rd5;
	st.global.f32 	[%rd6], %f3;
	ret;
}
`

func roundsKernel(t *testing.T, name string) *PTXKernel {
	return textKernel(t, "rounds.ptx", roundsPTX, name)
}

// roundMarks counts k's global loads marked to open a round and to join
// one (markLoadRounds).
func roundMarks(k *PTXKernel) (starts, joins int) {
	for _, x := range k.code {
		switch {
		case x.tmRound == tmNoLoad:
		case x.tmRound&tmRoundJoin == 0:
			starts++
		default:
			joins++
		}
	}
	return starts, joins
}

// TestLoadRounds: which loads start a round is read off the PTX, and a
// launch counts one round per round-starting load each warp executes.
// (guarded's loads run in every lane: its guards are never taken.)
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
		// each load alone in a block a branch goes around: ptxas
		// predicates both and issues them together (guardedJoins)
		{"guarded", 1, 1, 1},
		// a guard that needs a loaded value: the guarded load waits for
		// it (a is all zeros, so the branch is never taken)
		{"guardedOnLoad", 2, 0, 2},
	} {
		k := roundsKernel(t, tc.kernel)
		starts, joins := roundMarks(k)
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
