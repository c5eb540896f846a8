package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// traceWalkPTX is nvcc 11.8's PTX (compute_75, -O3) of
//
//	extern "C" __global__ void walk(int stride, const float *x, float *y) {
//	    __shared__ float s[1024];
//	    int t = threadIdx.x;
//	    s[t * stride] = x[t * stride];
//	    __syncthreads();
//	    y[t] = s[t * stride];
//	}
//
// and of spin, `while (flag[0] == 0) {}` on a volatile int*: a kernel that
// never ends while the flag is 0.
const traceWalkPTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry walk(
	.param .u32 walk_param_0,
	.param .u64 walk_param_1,
	.param .u64 walk_param_2
)
{
	.reg .f32 	%f<3>;
	.reg .b32 	%r<7>;
	.reg .b64 	%rd<9>;
	.shared .align 4 .b8 _ZZ4walkE1s[4096];

	ld.param.u32 	%r1, [walk_param_0];
	ld.param.u64 	%rd1, [walk_param_1];
	ld.param.u64 	%rd2, [walk_param_2];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.u32 	%r2, %tid.x;
	mul.lo.s32 	%r3, %r2, %r1;
	mul.wide.s32 	%rd5, %r3, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd6];
	shl.b32 	%r4, %r3, 2;
	mov.u32 	%r5, _ZZ4walkE1s;
	add.s32 	%r6, %r5, %r4;
	st.shared.f32 	[%r6], %f1;
	bar.sync 	0;
	ld.shared.f32 	%f2, [%r6];
	mul.wide.s32 	%rd7, %r2, 4;
	add.s64 	%rd8, %rd3, %rd7;
	st.global.f32 	[%rd8], %f2;
	ret;
}

.visible .entry spin(
	.param .u64 spin_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd2, [spin_param_0];
	cvta.to.global.u64 	%rd1, %rd2;
$L__BB0_1:
	ld.volatile.global.u32 	%r1, [%rd1];
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_1;
	ret;
}
`

func traceKernel(t *testing.T, name string) (*sim.Device, *sim.PTXKernel) {
	t.Helper()
	mod, err := ptx.Parse("walk.ptx", traceWalkPTX)
	if err != nil {
		t.Fatal(err)
	}
	k, err := sim.NewPTXKernel(mod, name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ModelByKey("t4")
	if err != nil {
		t.Fatal(err)
	}
	return sim.NewDevice(m), k
}

// TestLaunchPTXTrace: the traced warp's events show the lanes' addresses,
// their distinct sectors and wavefronts equal the launch's counters (one
// warp, so the counters are that warp's), and tracing changes no counter.
func TestLaunchPTXTrace(t *testing.T) {
	for _, tc := range []struct {
		stride          int
		sectors, shWave int // per request: the global load, the shared store
	}{
		{1, 4, 1},
		{2, 8, 2},
		{8, 32, 8},
		{33, 32, 1}, // odd stride: one word per bank, no conflict
	} {
		d, k := traceKernel(t, "walk")
		x, err := sim.Alloc[float32](d, "x", 32*tc.stride)
		if err != nil {
			t.Fatal(err)
		}
		y, err := sim.Alloc[float32](d, "y", 32)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := d.LaunchPTX(context.Background(), k, sim.Dim1(1), sim.Dim1(32), 0, int32(tc.stride), x, y)
		if err != nil {
			t.Fatal(err)
		}
		st, tr, err := d.LaunchPTXWith(context.Background(), k, sim.PTXOptions{Trace: []sim.WarpRef{{0, 0}}},
			sim.Dim1(1), sim.Dim1(32), 0, int32(tc.stride), x, y)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Sites) != len(plain.Sites) {
			t.Fatalf("stride %d: %d sites traced, %d not", tc.stride, len(st.Sites), len(plain.Sites))
		}
		for i := range st.Sites {
			a, b := st.Sites[i], plain.Sites[i]
			if a.Requests != b.Requests || a.Sectors != b.Sectors || a.Conflicts != b.Conflicts {
				t.Errorf("stride %d site %s: traced %d req %d sectors %d conflicts, untraced %d %d %d",
					tc.stride, a.Label, a.Requests, a.Sectors, a.Conflicts, b.Requests, b.Sectors, b.Conflicts)
			}
		}
		if len(tr.Events) != 4 {
			t.Fatalf("stride %d: %d events, want 4 (ld.global, st.shared, ld.shared, st.global): %+v", tc.stride, len(tr.Events), tr.Events)
		}
		want := []struct {
			space sim.Space
			op    sim.Op
		}{{sim.SpaceGlobal, sim.OpLoad}, {sim.SpaceShared, sim.OpStore}, {sim.SpaceShared, sim.OpLoad}, {sim.SpaceGlobal, sim.OpStore}}
		for i, ev := range tr.Events {
			if ev.Space != want[i].space || ev.Op != want[i].op || ev.Seq != i || len(ev.Lanes) != 32 || ev.Width != 4 {
				t.Errorf("stride %d event %d: %s %s seq %d, %d lanes, width %d; want %s %s", tc.stride, i, ev.Space, ev.Op, ev.Seq, len(ev.Lanes), ev.Width, want[i].space, want[i].op)
			}
		}
		ld := tr.Events[0]
		for _, la := range ld.Lanes {
			if la.Buffer != "x" || la.Offset != uint64(4*la.Lane*tc.stride) || la.Addr != x.Addr()+la.Offset {
				t.Fatalf("stride %d lane %d: %+v, want x at offset %d", tc.stride, la.Lane, la, 4*la.Lane*tc.stride)
			}
		}
		if got := ld.DistinctSectors(); got != tc.sectors {
			t.Errorf("stride %d: load touches %d sectors, want %d", tc.stride, got, tc.sectors)
		}
		if got := tr.Events[1].Wavefronts(); got != tc.shWave {
			t.Errorf("stride %d: shared store needs %d wavefronts, want %d", tc.stride, got, tc.shWave)
		}
		for _, s := range st.Sites {
			if s.Space == "shared" && s.Op == "st" && s.Conflicts != int64(tc.shWave-1) {
				t.Errorf("stride %d: counters say %d conflicts, the trace %d wavefronts", tc.stride, s.Conflicts, tc.shWave)
			}
			if s.Space == "global" && s.Op == "ld" && s.Sectors != int64(tc.sectors) {
				t.Errorf("stride %d: counters say %d sectors, the trace %d", tc.stride, s.Sectors, tc.sectors)
			}
		}
		if b := tr.Events[1].Banks(tr.Events[1].Lanes[1]); len(b) != 1 || b[0] != tc.stride%32 {
			t.Errorf("stride %d: lane 1's bank %v, want %d", tc.stride, b, tc.stride%32)
		}
	}
}

// TestLaunchPTXTraceBounds: a warp outside the launch is refused, too many
// warps are refused, and events past TraceEvents are counted as dropped.
func TestLaunchPTXTraceBounds(t *testing.T) {
	d, k := traceKernel(t, "walk")
	x := mustAlloc[float32](t, d, "x", 64*4)
	y := mustAlloc[float32](t, d, "y", 64)
	run := func(o sim.PTXOptions) (*sim.Trace, error) {
		_, tr, err := d.LaunchPTXWith(context.Background(), k, o, sim.Dim1(1), sim.Dim1(64), 0, int32(2), x, y)
		return tr, err
	}
	if _, err := run(sim.PTXOptions{Trace: []sim.WarpRef{{0, 2}}}); err == nil || !strings.Contains(err.Error(), "1 blocks of 2 warps") {
		t.Errorf("warp 2 of a 2-warp block: %v", err)
	}
	if _, err := run(sim.PTXOptions{Trace: make([]sim.WarpRef, sim.MaxTraceWarps+1)}); err == nil {
		t.Errorf("%d warps traced without error", sim.MaxTraceWarps+1)
	}
	tr, err := run(sim.PTXOptions{Trace: []sim.WarpRef{{0, 1}, {0, 0}}, TraceEvents: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 6 || tr.Events[0].Warp != (sim.WarpRef{0, 1}) || tr.Dropped[sim.WarpRef{0, 0}] != 1 || tr.Dropped[sim.WarpRef{0, 1}] != 1 {
		t.Errorf("TraceEvents 3: %d events, first of %v, dropped %v; want 6, warp 1 first, one dropped each", len(tr.Events), tr.Events[0].Warp, tr.Dropped)
	}
	if l := tr.Events[0].Lanes[0]; l.Lane != 0 || l.Offset != 4*32*2 {
		t.Errorf("warp 1 lane 0 reads offset %d, want %d", l.Offset, 4*32*2)
	}
}

// TestLaunchPTXRunaway: a kernel that never ends is stopped by the
// launch's instruction limit and by its context, each with a fault that
// says so.
func TestLaunchPTXRunaway(t *testing.T) {
	d, k := traceKernel(t, "spin")
	flag := mustAlloc[int32](t, d, "flag", 1)
	start := time.Now()
	_, _, err := d.LaunchPTXWith(context.Background(), k, sim.PTXOptions{MaxInstructions: 100_000}, sim.Dim1(4), sim.Dim1(64), 0, flag)
	var f *sim.Fault
	if !errors.As(err, &f) || f.Kind != "runaway warp" || !strings.Contains(f.Error(), "100000") || !strings.Contains(f.Error(), "never ends") {
		t.Fatalf("limit: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the limit of 100000 took %v", el)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = d.LaunchPTX(ctx, k, sim.Dim1(4), sim.Dim1(64), 0, flag)
	if !errors.As(err, &f) || f.Kind != "cancelled" {
		t.Fatalf("cancel: %v", err)
	}
}
