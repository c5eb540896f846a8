package libs

import (
	"math"
	"testing"
)

// TestLocalityRule is the locality choice inside rules 1 and 3: the float4
// tiles where a balancing rule fired and the columns are local, the rule's
// own method where they are scattered or not known, and never for an even
// matrix (CSR-vector) or with LocalTile 0.
func TestLocalityRule(t *testing.T) {
	const h200 = 132 * 2048
	long := StatsOf(append(fill(46_499, 3), 46_500))
	spread := StatsOf(append(fill(200_000, 2), fill(200_000, 9)...))
	even := StatsOf(fill(1<<19, 16))
	rules := Rules{LongFactor: 4, SpreadCV: 0.5, LaneWork: 8, V4MinMean: 32, LocalTile: 0.4}
	off := rules
	off.LocalTile = 0
	with := func(s RowStats, xs float64) RowStats { s.XSectors = xs; return s }
	for _, tc := range []struct {
		name  string
		r     Rules
		s     RowStats
		local bool
	}{
		{"long row, local columns", rules, with(long, 0.25), true},
		{"long row, at the threshold", rules, with(long, 0.4), true},
		{"long row, scattered columns", rules, with(long, 1), false},
		{"long row, locality unknown", rules, with(long, 0), false},
		{"spread, local columns", rules, with(spread, 0.3), true},
		{"spread, scattered columns", rules, with(spread, 0.9), false},
		{"even, local columns", rules, with(even, 0.1), false},
		{"long row, local, rule off", off, with(long, 0.25), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := ChooseWith(off, tc.s, h200)
			c := ChooseWith(tc.r, tc.s, h200)
			if tc.local && c.Method != MethodTileV4 {
				t.Errorf("%s (%s), want %s", c.Method, c.Reason, MethodTileV4)
			}
			if !tc.local && c.Method != base.Method {
				t.Errorf("%s (%s), want the rules' own %s", c.Method, c.Reason, base.Method)
			}
			if p := pickWith(tc.r, tc.s, h200); p != c.Method {
				t.Errorf("pickWith %s, ChooseWith %s", p, c.Method)
			}
		})
	}
}

// TestLocalityFit: Fit applies the locality choice to the rules' picks
// (once per base rules); its loss must be Loss of the rules it returns,
// which picks through choose. On the 06:41 H200 run, which records each
// matrix's locality, it logs the fit and leave one family out.
func TestLocalityFit(t *testing.T) {
	rec, err := LoadCorpus("../../evidence/libs-binning-h200-2026-12-04")
	if err != nil {
		t.Skipf("no recorded run with locality: %v", err)
	}
	resident, err := ResidentThreadsOf(rec.Ours)
	if err != nil {
		t.Fatal(err)
	}
	r, loss := Fit(rec.Ours.Matrices, resident)
	if l := Loss(r, rec.Ours.Matrices, resident); math.Abs(l-loss) > 1e-12 {
		t.Fatalf("Fit's loss %.6f, Loss of its rules %.6f", loss, l)
	}
	if testing.Short() {
		return // leave one family out: 17 fits, a few seconds
	}
	hs, err := LeaveOneFamilyOut(rec.Ours, rec.Peer)
	if err != nil {
		t.Fatal(err)
	}
	within, logs := 0, 0.0
	for _, h := range hs {
		if h.OverBest() <= 1.1 {
			within++
		}
		logs += math.Log(h.OverBest())
	}
	t.Logf("fit: %v, loss %.4f; leave one family out: %d of %d within 1.1× of our fastest, geometric mean %.3f×",
		r, loss, within, len(hs), math.Exp(logs/float64(len(hs))))
}
