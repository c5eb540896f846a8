package sim

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestDependentChainIssue runs microbench.cu's ffma1 (one dependent FFMA
// chain a thread, blocks of 256 threads, or one block of w warps below 8)
// on the simulator at 1 to 64 warps an SM and holds the modeled rate, warp
// FFMAs an SM a cycle, within 15% of the H200's issue_ffma1 rows (the
// embedded calibration, sim/calibration/h200.csv). A chain issues one FFMA
// every WarpCPI cycles, so with w warps an SM the SM issues w/WarpCPI a
// cycle until its schedulers are full (issue_ffma8's IssuePerSMCycle):
// 1.91 at 8 warps, 3.66 at 16 on the H200. An issue rate that fell in
// proportion with the warps below half the SM's slots (the model before
// 2026-12-05) gave 0.95 and 1.89 there: the latency term already holds a
// warp's own dependences, and the issue term charged them a second time.
func TestDependentChainIssue(t *testing.T) {
	m := testModel(t, "h200")
	h200 := microValues(readMicrobench(t, "calibration/h200.csv"), 1)
	k, err := NewPTXKernel(parsePTXFile(t, "testdata/issue_micro.ptx"), "ffma1")
	if err != nil {
		t.Fatal(err)
	}
	for w := 1; w <= 64; w *= 2 {
		blocks, threads := m.SMs, 32*w
		if w >= 8 {
			blocks, threads = m.SMs*(w/8), 256
		}
		d := NewDevice(m)
		out := mustUpload(t, d, "out", make([]float32, blocks))
		// Two chain lengths: the difference leaves out the launch's fixed
		// cost, as the GPU's 512 iterations make it small.
		var sec [2]float64
		for i, iters := range []int32{64, 128} {
			st, err := d.LaunchPTX(context.Background(), k, Dim1(blocks), Dim1(threads), 0, out, iters, float32(1.0001), float32(0.5))
			if err != nil {
				t.Fatal(err)
			}
			sec[i] = st.Time.GPUSeconds
		}
		ffma := float64(blocks*threads/32) * 64 * 64
		modeled := ffma / (sec[1] - sec[0]) / float64(m.SMs) / m.ClockHz
		p := fmt.Sprintf("%d warps/SM", w)
		want := h200["issue_ffma1 "+p]
		if want == 0 {
			t.Fatalf("no issue_ffma1 row for %s", p)
		}
		t.Logf("%s: modeled %.2f warp FFMAs an SM a cycle, the H200 %.2f (%.2f)", p, modeled, want, modeled/want)
		if math.Abs(modeled/want-1) > 0.15 {
			t.Errorf("%s: modeled %.2f warp FFMAs an SM a cycle, the H200 %.2f", p, modeled, want)
		}
	}
}
