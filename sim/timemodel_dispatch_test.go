package sim

import (
	"testing"
)

const dispatchRecorded = "../evidence/timemodel-dispatch-h200-2026-12-04/dispatch.csv"

// TestDispatchConstants: the H200 hands out a block each 0.60 ns and a
// launch's own cost is about 1.5 µs (the line through the empty grids,
// not fitted to any lesson or sweep run); rows the fit cannot use leave
// the constants as they were; a model without a dispatch run has none.
func TestDispatchConstants(t *testing.T) {
	m := testModel(t, "h200")
	if m.BlockDispatch < 0.55e-9 || m.BlockDispatch > 0.65e-9 {
		t.Errorf("BlockDispatch %.3g s, want about 0.60 ns", m.BlockDispatch)
	}
	if m.LaunchOverhead < 1.3e-6 || m.LaunchOverhead > 1.7e-6 {
		t.Errorf("LaunchOverhead %.3g s, want about 1.5 µs", m.LaunchOverhead)
	}
	if a := testModel(t, "a100"); a.BlockDispatch != 0 {
		t.Errorf("a100: BlockDispatch %g, want none", a.BlockDispatch)
	}
	base := Model{}
	base.SMs, base.LaunchOverhead = 132, 2e-6
	for _, tc := range []struct {
		name string
		rows []MicrobenchRow
	}{
		{"none", nil},
		{"two rows", []MicrobenchRow{{Name: "dispatch_empty", Param: "256t x 1 waves", Value: 2, Unit: "us"}, {Name: "dispatch_empty", Param: "256t x 2 waves", Value: 2.6, Unit: "us"}}},
		{"bad params", []MicrobenchRow{{Name: "dispatch_empty", Param: "x", Value: 2, Unit: "us"}, {Name: "dispatch_empty", Param: "0t x 2 waves", Value: 2.6, Unit: "us"}, {Name: "dispatch_empty", Param: "256t", Value: 3, Unit: "us"}}},
		{"falling", []MicrobenchRow{{Name: "dispatch_empty", Param: "256t x 1 waves", Value: 3, Unit: "us"}, {Name: "dispatch_empty", Param: "256t x 2 waves", Value: 2, Unit: "us"}, {Name: "dispatch_empty", Param: "256t x 4 waves", Value: 1, Unit: "us"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := applyDispatch(base, tc.rows)
			if got.BlockDispatch != 0 || got.LaunchOverhead != 2e-6 {
				t.Errorf("applyDispatch set BlockDispatch %g, LaunchOverhead %g from %v", got.BlockDispatch, got.LaunchOverhead, tc.rows)
			}
		})
	}
}
