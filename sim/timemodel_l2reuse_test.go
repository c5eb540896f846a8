package sim

import (
	"math"
	"testing"
)

// TestL2ReuseConstant: the H200's reuse capacity, fitted to the l2reuse
// run alone, gives each of its twelve gathers' miss shares within 0.15 of
// Nsight Compute's (the rule has one number to fit twelve points, so this
// can fail), none below 16 MB; a model without the run has none (the
// overflow rule), and rows the fit cannot use leave it as it was.
func TestL2ReuseConstant(t *testing.T) {
	m := testModel(t, "h200")
	if m.L2ReuseBytes < 16<<20 || m.L2ReuseBytes > float64(m.L2Bytes) {
		t.Fatalf("L2ReuseBytes %.1f MiB, want between 16 MiB and the L2's %d", m.L2ReuseBytes/(1<<20), m.L2Bytes>>20)
	}
	c := calibrations()[l2reuseFile("h200")]
	if c == nil || c.err != nil {
		t.Fatalf("no h200 l2reuse calibration: %+v", c)
	}
	checked := 0
	for _, p := range l2reusePoints(m, c.rows) {
		mb := p.x / (1 << 20)
		modeled := l2reuseModeled(m, p.x, m.L2ReuseBytes)
		t.Logf("x %4.0f MB: misses %.3f measured, %.3f modeled", mb, p.measured, modeled)
		if math.Abs(modeled-p.measured) > 0.15 || (mb <= 16 && modeled > 0.02) {
			t.Errorf("x %.0f MB: modeled miss share %.3f, measured %.3f", mb, modeled, p.measured)
		}
		checked++
	}
	if checked != 12 {
		t.Errorf("%d gather rows checked, want the run's 12", checked)
	}
	if a := testModel(t, "a100"); a.L2ReuseBytes != 0 {
		t.Errorf("a100: L2ReuseBytes %g, want none", a.L2ReuseBytes)
	}
	base := Model{}
	base.SMs, base.L2Bytes, base.DRAMGranuleBytes = 132, 50<<20, 64
	for _, tc := range []struct {
		name string
		rows []MicrobenchRow
	}{
		{"none", nil},
		{"no stream row", []MicrobenchRow{{Name: "l2reuse_dram", Param: "8", Value: 6e8, Unit: "B"}, {Name: "l2reuse_dram", Param: "32", Value: 1e9, Unit: "B"}, {Name: "l2reuse_dram", Param: "64", Value: 3e9, Unit: "B"}}},
		{"two gathers", []MicrobenchRow{{Name: "l2reuse_dram", Param: "0", Value: 5e8, Unit: "B"}, {Name: "l2reuse_dram", Param: "8", Value: 6e8, Unit: "B"}, {Name: "l2reuse_dram", Param: "32", Value: 1e9, Unit: "B"}}},
		{"bad params", []MicrobenchRow{{Name: "l2reuse_dram", Param: "0", Value: 5e8, Unit: "B"}, {Name: "l2reuse_dram", Param: "x", Value: 6e8, Unit: "B"}, {Name: "l2reuse_dram", Param: "-4", Value: 1e9, Unit: "B"}, {Name: "l2reuse_dram", Param: "8", Value: 1e9, Unit: "ms"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := applyL2Reuse(base, tc.rows); got.L2ReuseBytes != 0 {
				t.Errorf("applyL2Reuse set L2ReuseBytes %g from %v", got.L2ReuseBytes, tc.rows)
			}
		})
	}
}
