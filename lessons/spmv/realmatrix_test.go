package spmv

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// matricesDir finds the SuiteSparse matrices kept beside the repository,
// "" when there are none.
func matricesDir() string { return testenv.MatricesDir() }

// TestRealMatrixCounters runs the _unroll1 kernels on the four SuiteSparse
// matrices and compares the simulator's global-load requests and sectors
// with DESIGN.md's second table (Nsight Compute on an H200, #pragma unroll
// 1, 256 threads a block, warp per row 8 rows a block). These are the
// rules' numbers and ncu's, equal to the unit.
func TestRealMatrixCounters(t *testing.T) {
	dir := matricesDir()
	if dir == "" {
		t.Skip("no SuiteSparse matrices: set WARPLAB_MATRICES or keep shared/matrices beside the repository")
	}
	type traffic struct{ req, sec int64 }
	cases := []struct {
		name         string
		thread, warp traffic
	}{
		{"bayer10", traffic{23466, 184920}, traffic{67180, 122329}},
		{"bcsstk13", traffic{13047, 199032}, traffic{14353, 56598}},
		{"cryg2500", traffic{1340, 18227}, traffic{12500, 20452}},
		{"rajat01", traffic{20519, 88345}, traffic{34783, 61329}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".mtx")
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s: %v", path, err)
			}
			r, err := Run(context.Background(), openSim(t), Options{Matrix: path, Unroll: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !r.OK() {
				t.Errorf("checks failed: %q", r.Failures)
			}
			if len(r.Runs) != 3 {
				t.Fatalf("%d runs, want 3", len(r.Runs))
			}
			for _, run := range r.Runs[1:] {
				want := c.thread
				if run.Kernel == WarpPerRowRun {
					want = c.warp
				}
				if *run.Requests != want.req || *run.Sectors != want.sec {
					t.Errorf("%s: %d requests / %d sectors, want %d / %d (ncu)", run.Kernel, *run.Requests, *run.Sectors, want.req, want.sec)
				}
			}
		})
	}
}
