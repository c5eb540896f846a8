package cg

import (
	"testing"
)

// TestPipelinedMatchesFused: stage 7 reports stage 6's iterations,
// residuals, final residual and x bit for bit whatever ends the loop, and
// its extra work is exactly the one iteration it queued ahead of the check
// that ended the loop: 5 launches for iteration 1 (waxpby, SpMV, ddotPartial,
// ddotFinalDivide, updateXRDotTo), else 6 and one 8-byte read of r·r.
// Ending by max_iter queues nothing extra (the host knows it in advance).
func TestPipelinedMatchesFused(t *testing.T) {
	dev := openSim(t)
	p, err := Generate(Cube(testGrid), GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := RunStage(dev, p, 6, RunOptions{MaxIter: 40})
	if err != nil {
		t.Fatal(err)
	}
	r0 := full.InitialResidual
	tests := []struct {
		name     string
		opt      RunOptions
		specIter int // the discarded iteration, 0 for none
	}{
		{"max_iter 1", RunOptions{MaxIter: 1}, 0},
		{"max_iter 2", RunOptions{MaxIter: 2}, 0},
		{"max_iter 12", RunOptions{MaxIter: 12}, 0},
		{"tolerance above the initial residual", RunOptions{MaxIter: 40, Tolerance: 2 * r0}, 1},
		// normr_1 is normr_0, so no tolerance stops after iteration 1.
		{"tolerance at the initial residual", RunOptions{MaxIter: 40, Tolerance: r0}, 1},
		{"tolerance after 2 iterations", RunOptions{MaxIter: 40, Tolerance: full.Residuals[1]}, 3},
		// Stop after iteration 7: its residual is the first ≤ tol.
		{"tolerance after 7 iterations", RunOptions{MaxIter: 40, Tolerance: full.Residuals[6]}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r6, err := RunStage(dev, p, 6, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			r7, err := RunStage(dev, p, 7, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if r7.Name != "pipelined" || r7.Iterations != r6.Iterations || !equalBits(r7.Residuals, r6.Residuals) ||
				!equalBits(r7.X, r6.X) || r7.FinalResidual != r6.FinalResidual || r7.InitialResidual != r6.InitialResidual {
				t.Fatalf("stage 7: %d iterations, final %v; stage 6: %d, final %v (or the residuals or x differ)",
					r7.Iterations, r7.FinalResidual, r6.Iterations, r6.FinalResidual)
			}
			if tt.specIter > 0 && r7.Iterations != tt.specIter-1 {
				t.Fatalf("%d iterations, want %d", r7.Iterations, tt.specIter-1)
			}
			wantLaunches, wantD2H := 0, 0
			if tt.specIter > 0 {
				wantLaunches, wantD2H = 6, 1
				if tt.specIter == 1 {
					wantLaunches, wantD2H = 5, 0
				}
				sp := r7.Speculative
				if sp == nil || sp.Iteration != tt.specIter || sp.Launches != wantLaunches || sp.D2HCalls != wantD2H {
					t.Errorf("speculative %+v, want iteration %d, %d launches, %d reads", sp, tt.specIter, wantLaunches, wantD2H)
				}
			} else if r7.Speculative != nil {
				t.Errorf("speculative %+v, want none", r7.Speculative)
			}
			t6, t7 := r6.Transfers, r7.Transfers
			if r7.Launches != r6.Launches+wantLaunches || t7.D2HCalls != t6.D2HCalls+wantD2H ||
				t7.D2HBytes != t6.D2HBytes+int64(8*wantD2H) || t7.H2DCalls != t6.H2DCalls || t7.D2DCalls != 0 {
				t.Errorf("stage 7 launches %d, transfers %+v; stage 6 %d, %+v; want %d more launches and %d more reads",
					r7.Launches, t7, r6.Launches, t6, wantLaunches, wantD2H)
			}
			sum := 0
			for _, k := range r7.Kernels {
				sum += k.Launches
			}
			if sum != r7.Launches {
				t.Errorf("kernel launches sum to %d of %d", sum, r7.Launches)
			}
		})
	}
}
