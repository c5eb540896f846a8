package cg

import (
	"math"
	"testing"
)

func TestCompareResiduals(t *testing.T) {
	ref := &StageResult{Rows: 1000, Iterations: 4, InitialResidual: 1, Residuals: []float64{1, 1e-3, 1e-9, 1e-20}}
	bump := func(v float64, ulps int) float64 { return math.Float64frombits(math.Float64bits(v) + uint64(ulps)) }
	tests := []struct {
		name      string
		got       []float64
		iters     int
		identical bool
		first     int
		within    bool
	}{
		{"same", []float64{1, 1e-3, 1e-9, 1e-20}, 4, true, 0, true},
		{"late drift is not compared", []float64{1, 1e-3, 1e-9, 3e-20}, 4, false, 4, true},
		{"a few ulps early", []float64{1, bump(1e-3, 3), 1e-9, 1e-20}, 4, false, 2, true},
		{"early difference", []float64{1, 1.001e-3, 1e-9, 1e-20}, 4, false, 2, false},
		{"fewer iterations", []float64{1, 1e-3, 1e-9}, 3, false, 4, false},
	}
	for _, tt := range tests {
		c := CompareResiduals(ref, &StageResult{Iterations: tt.iters, Residuals: tt.got})
		if c.Identical != tt.identical || c.FirstDiff != tt.first || c.WithinTolerance != tt.within || c.EarlyIters != 2 {
			t.Errorf("%s: %+v", tt.name, c)
		}
	}
	if EarlyTolerance(8) != 1e-12 || EarlyTolerance(1e6) != 1e6*0x1p-52 {
		t.Errorf("EarlyTolerance: %v %v", EarlyTolerance(8), EarlyTolerance(1e6))
	}
}
