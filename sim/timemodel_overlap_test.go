package sim

import (
	"context"
	"fmt"
	"math"
	"testing"
)

const overlapRecorded = "../evidence/timemodel-overlap-h200-2026-12-05/overlap.csv"

// TestOverlapSteps runs overlap.cu's overlap_dep (every warp walks a chain
// of random 128-byte lines resident in L2, with K dependent FMAs a step)
// on the simulator at 8, 16, 32 and 64 warps an SM and compares the
// modeled time a step with the H200's rows (evidence/timemodel-overlap-
// h200-2026-12-05). Up to 16 warps a step is its own path, a load and K
// FMAs at WarpCPI, and the model holds those rows within 15%: an issue
// rate that fell in proportion below half the SM's warps (the model to
// 2026-12-05) put K = 128 at 1.33 of the H200's. At 32 and 64 warps the
// H200 adds the scheduler's queue to the path (500 ns at K = 32 and 64
// warps, where the path is 241 and the issue 291) and the model takes the
// longer of the two; those rows are logged, and held only to the order of
// the sizes (docs/timemodel.md, "Instructions and memory waits on a full
// SM").
func TestOverlapSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("sixteen launches of up to 8,448 warps")
	}
	h200 := microValues(readMicrobench(t, overlapRecorded), 1e-9)
	mod := parsePTXFile(t, "testdata/overlap_micro.ptx")
	m := testModel(t, "h200")
	const lg = 17 // overlap.cu's mem=l2: 2^17 lines, 16 MiB
	p := make([]uint32, (1<<lg)*32)
	for i := range p {
		line := uint32(i / 32)
		p[i] = (line*2891336453 + 12345) & (1<<lg - 1) // overlap.cu's fillChase
	}
	for _, K := range []int{0, 8, 32, 128} {
		k, err := NewPTXKernel(mod, fmt.Sprintf("overlapDep%d", K))
		if err != nil {
			t.Fatal(err)
		}
		prev := 0.0
		for _, w := range []int{8, 16, 32, 64} {
			d := NewDevice(m)
			pb := mustUpload(t, d, "p", p)
			out := mustUpload(t, d, "out", make([]float32, 4))
			// Two chain lengths, each launched twice (the second finds the
			// lines in L2, as the GPU's timed launches do): the difference
			// a step leaves the launch's fixed cost out.
			var sec [2]float64
			for i, steps := range []int32{32, 64} {
				for range 2 {
					st, err := d.LaunchPTX(context.Background(), k, Dim1(m.SMs*w/8), Dim1(256), 0, pb, out, steps, int32(lg), float32(1.0001), float32(0.5))
					if err != nil {
						t.Fatal(err)
					}
					sec[i] = st.Time.GPUSeconds
				}
			}
			modeled := (sec[1] - sec[0]) / 32
			param := fmt.Sprintf("mem=l2 w=%d k=%d", w, K)
			want := h200["overlap_dep "+param]
			if want == 0 {
				t.Fatalf("no overlap_dep row for %s", param)
			}
			t.Logf("%s: modeled %.0f ns a step, the H200 %.0f (%.2f)", param, modeled*1e9, want*1e9, modeled/want)
			if w <= 16 && math.Abs(modeled/want-1) > 0.15 {
				t.Errorf("%s: modeled %.0f ns a step, the H200 %.0f: a step at few warps is its path", param, modeled*1e9, want*1e9)
			}
			if modeled < prev*(1-1e-9) {
				t.Errorf("%s: modeled %.0f ns a step, less than with fewer warps (%.0f)", param, modeled*1e9, prev*1e9)
			}
			prev = modeled
		}
	}
}
