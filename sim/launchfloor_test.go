package sim_test

import (
	"context"
	"math"
	"testing"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// launchFloorPTX is internal/launchbench's empty.cu as nvcc 11.8 compiles
// it, without line information: kernels that do nothing, so that what the
// model times is the launch floor alone.
const launchFloorPTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry emptyKernel()
{
	ret;
}
.visible .entry argsKernel(
	.param .u64 argsKernel_param_0,
	.param .u64 argsKernel_param_1,
	.param .u64 argsKernel_param_2,
	.param .u64 argsKernel_param_3,
	.param .u64 argsKernel_param_4,
	.param .u64 argsKernel_param_5
)
{
	ret;
}
`

// TestLaunchFloor: a launch's Stats count its arguments by kind, and a
// kernel that does nothing is modeled at the host's launch interval for
// those arguments (Model.LaunchFloor), bound "launch"; every buffer and
// scalar adds its measured cost.
func TestLaunchFloor(t *testing.T) {
	mod, err := ptx.Parse("launchfloor.ptx", launchFloorPTX)
	if err != nil {
		t.Fatal(err)
	}
	d := newDevice(t)
	m, err := sim.ModelByKey("h200")
	if err != nil {
		t.Fatal(err)
	}
	if m.TimedLaunchPerBuffer <= 0 || m.TimedLaunchPerScalar < 0 {
		t.Fatalf("per-argument costs %g and %g: want a positive cost per buffer", m.TimedLaunchPerBuffer, m.TimedLaunchPerScalar)
	}
	bufs := make([]*sim.Global[float32], 6)
	for i := range bufs {
		bufs[i] = mustAlloc[float32](t, d, "b", 64)
	}
	tests := []struct {
		kernel string
		args   []any
		want   sim.LaunchArgs
	}{
		{"emptyKernel", nil, sim.LaunchArgs{}},
		{"argsKernel", []any{bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], uint64(256)}, sim.LaunchArgs{Buffers: 5, Scalars: 1}},
		{"argsKernel", []any{uint64(1), uint64(2), uint64(3), uint64(4), uint64(5), uint64(6)}, sim.LaunchArgs{Scalars: 6}},
		{"argsKernel", []any{bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5]}, sim.LaunchArgs{Buffers: 6}},
	}
	for _, tc := range tests {
		k, err := sim.NewPTXKernel(mod, tc.kernel)
		if err != nil {
			t.Fatal(err)
		}
		st, err := d.LaunchPTX(context.Background(), k, sim.Dim1(1), sim.Dim1(32), 0, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		if st.Args != tc.want {
			t.Errorf("%s %v: Args %+v, want %+v", tc.kernel, tc.want, st.Args, tc.want)
		}
		want := m.TimedLaunch + float64(tc.want.Buffers)*m.TimedLaunchPerBuffer + float64(tc.want.Scalars)*m.TimedLaunchPerScalar
		if got := m.LaunchFloor(st.Args); math.Abs(got-want) > 1e-15 {
			t.Errorf("%s %v: LaunchFloor %g, want %g", tc.kernel, tc.want, got, want)
		}
		if st.Time.Bound != "launch" || math.Abs(st.Time.Seconds-want) > 1e-15 {
			t.Errorf("%s %v: modeled %g s bound %q; want the floor %g s, bound launch", tc.kernel, tc.want, st.Time.Seconds, st.Time.Bound, want)
		}
	}
}
