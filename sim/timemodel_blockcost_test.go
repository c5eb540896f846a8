package sim

import (
	"os"
	"testing"
)

// TestBlockCostRecorded: by applyBlockCost's rule the recorded blockcost
// run gives a block about 150 ns beyond its path (the median over block
// sizes of the empty blocks' slope at one block an SM: 146, 153 and 176
// ns), and no model takes it (not adopted: docs/timemodel.md).
func TestBlockCostRecorded(t *testing.T) {
	data, err := os.ReadFile("../evidence/timemodel-blockcost-h200-2026-12-06/blockcost.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := ParseMicrobench(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := applyBlockCost(Model{}, rows).BlockSeconds; got < 145e-9 || got > 160e-9 {
		t.Errorf("BlockSeconds %.4g s from the recorded rows, want about 152 ns", got)
	}
	// BlockSeconds is not adopted; the warp slots' release and the L1's
	// lines in flight are, for Hopper (the twenty-eighth pass), and only
	// where they were measured.
	for _, tc := range []struct {
		key    string
		hopper bool
	}{{"h200", true}, {"h100", true}, {"a100", false}, {"t4", false}} {
		m := testModel(t, tc.key)
		if m.BlockSeconds != 0 || m.WarpSlotRelease != tc.hopper || m.L1InFlight != tc.hopper {
			t.Errorf("%s: BlockSeconds %g, WarpSlotRelease %v, L1InFlight %v; want 0, %v, %v",
				tc.key, m.BlockSeconds, m.WarpSlotRelease, m.L1InFlight, tc.hopper, tc.hopper)
		}
	}
}

// TestBlockCostRule: the median over block sizes of the least-squares
// slope in generations at one block an SM; rows the rule cannot use leave
// BlockSeconds as it was.
func TestBlockCostRule(t *testing.T) {
	row := func(param string, us float64) MicrobenchRow {
		return MicrobenchRow{Name: "blockcost_empty", Param: param, Value: us, Unit: "us"}
	}
	for _, tc := range []struct {
		name string
		rows []MicrobenchRow
		want float64
	}{
		{"none", nil, 0},
		{"two generations", []MicrobenchRow{row("T=32 b=1 k=1", 2), row("T=32 b=1 k=2", 2.2)}, 0},
		{"two blocks an SM only", []MicrobenchRow{row("T=32 b=2 k=1", 2), row("T=32 b=2 k=2", 2.2), row("T=32 b=2 k=4", 2.6)}, 0},
		{"falling", []MicrobenchRow{row("T=32 b=1 k=1", 3), row("T=32 b=1 k=2", 2), row("T=32 b=1 k=4", 1)}, 0},
		{"bad params", []MicrobenchRow{row("T=32 k=1", 2), row("b=1 k=2", 2.2), row("T=0 b=1 k=4", 2.6)}, 0},
		{"one size", []MicrobenchRow{row("T=32 b=1 k=1", 2), row("T=32 b=1 k=2", 2.2), row("T=32 b=1 k=4", 2.6)}, 200e-9},
		{"median of three", []MicrobenchRow{
			row("T=32 b=1 k=1", 2), row("T=32 b=1 k=2", 2.1), row("T=32 b=1 k=4", 2.3),
			row("T=256 b=1 k=1", 2), row("T=256 b=1 k=2", 2.2), row("T=256 b=1 k=4", 2.6),
			row("T=1024 b=1 k=1", 2), row("T=1024 b=1 k=2", 2.5), row("T=1024 b=1 k=4", 3.5),
		}, 200e-9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := applyBlockCost(Model{}, tc.rows).BlockSeconds
			if d := got - tc.want; d > 1e-12 || d < -1e-12 {
				t.Errorf("BlockSeconds %.4g, want %.4g", got, tc.want)
			}
		})
	}
}
