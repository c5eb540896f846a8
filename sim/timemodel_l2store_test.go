package sim

import "testing"

// TestL2StoreConstant: on the H200 a store's line transaction takes about
// 14 ps, about twice a load's (the col_store rows' slope, not fitted to
// any lesson or sweep run); a model without the run has none; rows the fit
// cannot use leave it as it was.
func TestL2StoreConstant(t *testing.T) {
	m := testModel(t, "h200")
	if m.L2StoreLineSeconds < 12e-12 || m.L2StoreLineSeconds > 16e-12 {
		t.Errorf("L2StoreLineSeconds %.3g s, want about 14 ps", m.L2StoreLineSeconds)
	}
	if load := 32 / (m.L2LineShare * m.L2Bandwidth); m.L2StoreLineSeconds < 1.5*load {
		t.Errorf("a store's line transaction %.3g s, a load's %.3g s: the run has stores about twice as slow", m.L2StoreLineSeconds, load)
	}
	if a := testModel(t, "a100"); a.L2StoreLineSeconds != 0 {
		t.Errorf("a100: L2StoreLineSeconds %g, want none", a.L2StoreLineSeconds)
	}
	row := func(n string, us float64) MicrobenchRow {
		return MicrobenchRow{Name: "col_store", Param: n, Value: us, Unit: "us"}
	}
	for _, tc := range []struct {
		name string
		rows []MicrobenchRow
	}{
		{"none", nil},
		{"two rows", []MicrobenchRow{row("1024", 18), row("2048", 72)}},
		{"bad params", []MicrobenchRow{row("x", 18), row("0", 72), row("-4", 250), {Name: "col_store", Param: "4096", Value: 250, Unit: "ms"}}},
		{"falling", []MicrobenchRow{row("1024", 900), row("2048", 250), row("4096", 18)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := applyL2Store(Model{}, tc.rows); got.L2StoreLineSeconds != 0 {
				t.Errorf("applyL2Store set L2StoreLineSeconds %g from %v", got.L2StoreLineSeconds, tc.rows)
			}
		})
	}
}
