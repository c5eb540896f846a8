package libs

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sparse/gen"
)

// TestLeaveOneFamilyOutOnSimulator runs the machinery of the judgement on
// modeled times: every family at two small sizes plus the seed pair, every
// method, on the simulator; then for each family the rules are fitted
// without it. Each matrix must be judged exactly once, by rules that are
// Fit's answer on the other families (recomputed here), with a pick that
// was measured and is never faster than our fastest.
func TestLeaveOneFamilyOutOnSimulator(t *testing.T) {
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	o := Options{SeedRows: []int{1024}, Families: gen.Names(), FamilyRows: []int{512, 2048}, CopyBytes: -1}
	res, err := Run(context.Background(), dev, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	hs, err := LeaveOneFamilyOut(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != len(res.Matrices) {
		t.Fatalf("%d judged, want every matrix once (%d)", len(hs), len(res.Matrices))
	}
	resident, _ := ResidentThreadsOf(res)
	seen := map[string]bool{}
	fits := map[string]Rules{} // by family: one fit each, not one a matrix
	for _, h := range hs {
		if seen[h.Key] {
			t.Errorf("%s judged twice", h.Key)
		}
		seen[h.Key] = true
		r, ok := fits[h.Family]
		if !ok {
			var train []MatrixResult
			for _, m := range res.Matrices {
				if Family(m.Key) != h.Family {
					train = append(train, m)
				}
			}
			r, _ = Fit(train, resident)
			fits[h.Family] = r
		}
		if r != h.Rules {
			t.Errorf("%s: judged by %v, Fit without %s gives %v", h.Key, h.Rules, h.Family, r)
		}
		if h.OverBest() < 1 || h.PickMs <= 0 {
			t.Errorf("%s: pick %s %.4f ms over best %s %.4f ms", h.Key, h.Pick, h.PickMs, h.Best, h.BestMs)
		}
	}
	sum := SummarizeHeldout(hs)
	if len(sum) != len(gen.Names())+1 {
		t.Errorf("%d families summarized, want %d", len(sum), len(gen.Names())+1)
	}
	for _, s := range sum {
		t.Logf("%-12s %d matrices, worst %.2f× (%s), geomean %.2f×; rules %v", s.Family, s.Matrices, s.WorstBest, s.WorstKey, s.GeoBest, s.Rules)
	}
}

// TestFit: on made-up times where split4 is fastest on every matrix with a
// row of 1000 and vector4 elsewhere, Fit must find rules with zero loss,
// and Loss must be +Inf for rules whose pick was not measured.
func TestFit(t *testing.T) {
	mk := func(key string, lengths []int, fast string) MatrixResult {
		m := MatrixResult{Key: key, Stats: StatsOf(lengths)}
		for _, meth := range Methods() {
			ms := 2.0
			if meth == fast {
				ms = 1
			}
			m.Runs = append(m.Runs, KernelRun{Method: meth, TimeMs: ms, Correct: true})
		}
		return m
	}
	long := append(fill(1<<16, 12), 1000)
	ms := []MatrixResult{mk("a", long, SplitMethod(4, false)), mk("b", fill(1<<16, 12), VectorMethod(4, false)),
		mk("c", append(fill(1<<17, 12), 5000), SplitMethod(4, false))}
	r, loss := Fit(ms, 1<<12)
	if loss != 0 {
		t.Errorf("Fit: loss %g with %v, want 0", loss, r)
	}
	ms[0].Runs = ms[0].Runs[:1]
	if l := Loss(r, ms, 1<<12); !math.IsInf(l, 1) {
		t.Errorf("Loss with the pick unmeasured = %g, want +Inf", l)
	}
}

// TestChooseMethodChoices holds the two method choices the fit makes:
// rule 1's long-row method (split or nonzero tiles, LongTile) and rule 3's
// spread method (binned, split or tiles, SpreadSplit and SpreadTile, tiles
// first), and that float4 follows V4MinMean for the tiles as for split.
func TestChooseMethodChoices(t *testing.T) {
	long := StatsOf(append(fill(4096, 3), 100_000)) // one row of 100,000 in rows of 3
	spread := StatsOf([]int{1, 3, 2, 27, 3, 1, 20, 2})
	base := Rules{LongFactor: 4, SpreadCV: 0.5, LaneWork: 8, V4MinMean: 8}
	for _, tt := range []struct {
		name  string
		edit  func(r *Rules)
		stats RowStats
		want  string
	}{
		{"long row to split", func(r *Rules) {}, long, SplitMethod(2, false)},
		{"long row to tiles", func(r *Rules) { r.LongTile = true }, long, MethodTile},
		{"long row to tiles, float4 from a median of 3", func(r *Rules) { r.LongTile, r.V4MinMean = true, 3 }, long, MethodTileV4},
		{"spread to binned", func(r *Rules) {}, spread, MethodBinned},
		{"spread to split", func(r *Rules) { r.SpreadSplit = true }, spread, SplitMethod(2, false)},
		{"spread to tiles", func(r *Rules) { r.SpreadTile = true }, spread, MethodTile},
		{"spread to tiles over split", func(r *Rules) { r.SpreadTile, r.SpreadSplit = true, true }, spread, MethodTile},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			tt.edit(&r)
			c := ChooseWith(r, tt.stats, 0)
			if c.Method != tt.want || c.Reason == "" {
				t.Errorf("%v: %s (%q), want %s", r, c.Method, c.Reason, tt.want)
			}
			if p := pickWith(r, tt.stats, 0); p != c.Method {
				t.Errorf("pickWith %s, ChooseWith %s", p, c.Method)
			}
		})
	}
}

// TestChooseSmall holds rule 2's test and method: a matrix whose natural
// launch (rows × width) fills under SmallFill of the resident threads is
// small; SmallTile sends it, and a small one with a long row, to the
// nonzero tiles; a matrix over the fill goes on to rules 3 and 4; a long
// row in a matrix that is not small keeps rule 1's own method.
func TestChooseSmall(t *testing.T) {
	even := StatsOf(fill(1000, 16))                       // width 2: 2000 threads
	long := StatsOf(append(fill(999, 3), 50_000))         // a long row in a small matrix
	bigLong := StatsOf(append(fill(1<<16, 3), 1_000_000)) // 131,074 threads: not small on 2^17
	base := Rules{LongFactor: 4, SpreadCV: 0.5, LaneWork: 8, V4MinMean: 32}
	for _, tt := range []struct {
		name     string
		edit     func(r *Rules)
		stats    RowStats
		resident int
		want     string
	}{
		{"small, wide launch", func(r *Rules) {}, even, 3000, VectorMethod(4, false)},
		{"small, tiles", func(r *Rules) { r.SmallTile = true }, even, 3000, MethodTile},
		{"small, tiles, float4 from 16", func(r *Rules) { r.SmallTile, r.V4MinMean = true, 16 }, even, 3000, MethodTileV4},
		{"fill 0.5: not small at 2000 of 3000", func(r *Rules) { r.SmallTile, r.SmallFill = true, 0.5 }, even, 3000, VectorMethod(2, false)},
		{"fill 0.5: small at 2000 of 5000", func(r *Rules) { r.SmallTile, r.SmallFill = true, 0.5 }, even, 5000, MethodTile},
		{"long row, small, tiles", func(r *Rules) { r.SmallTile = true }, long, 1 << 17, MethodTile},
		{"long row, small, no SmallTile", func(r *Rules) {}, long, 1 << 17, SplitMethod(2, false)},
		{"long row, not small", func(r *Rules) { r.SmallTile = true }, bigLong, 1 << 17, SplitMethod(2, false)},
		{"device size unknown: never small", func(r *Rules) { r.SmallTile = true }, even, 0, VectorMethod(2, false)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			tt.edit(&r)
			c := ChooseWith(r, tt.stats, tt.resident)
			if c.Method != tt.want || c.Reason == "" {
				t.Errorf("%v: %s (%q), want %s", r, c.Method, c.Reason, tt.want)
			}
			if p := pickWith(r, tt.stats, tt.resident); p != c.Method {
				t.Errorf("pickWith %s, ChooseWith %s", p, c.Method)
			}
		})
	}
}

// TestSmallRuleHeldout is the small rule's method and fill judged as the
// issue asks, on the recorded runs present (the corpus run, 2026-12-06
// 08:07 UTC, and 2026-12-04's 06:41 run; both record locality): leave one family out with the whole grid
// against the same procedure with the grid cut to the rule of before
// (SmallTile false, SmallFill 1), per family; the whole grid must do at
// least as well in all (it was kept because it did). Outside -short.
func TestSmallRuleHeldout(t *testing.T) {
	if testing.Short() {
		t.Skip("two leave-one-family-out sweeps a run")
	}
	var before []Rules
	for _, r := range baseRulesGrid() {
		if !r.SmallTile && r.SmallFill == 1 {
			before = append(before, r)
		}
	}
	for _, dir := range []string{"../../evidence/" + CorpusName, "../../evidence/libs-binning-h200-2026-12-04"} {
		rec, err := LoadCorpus(dir)
		if err != nil {
			t.Logf("%s: %v", dir, err)
			continue
		}
		old, err := leaveOneFamilyOut(rec.Ours, rec.Peer, before)
		if err != nil {
			t.Fatal(err)
		}
		now, err := LeaveOneFamilyOut(rec.Ours, rec.Peer)
		if err != nil {
			t.Fatal(err)
		}
		so, sn := SummarizeHeldout(old), SummarizeHeldout(now)
		within := func(ss []FamilySummary) (n int, geo float64) {
			var logs float64
			m := 0
			for _, s := range ss {
				n += s.WithinGoal
				logs += float64(s.Matrices) * math.Log(s.GeoBest)
				m += s.Matrices
			}
			return n, math.Exp(logs / float64(m))
		}
		no, go_ := within(so)
		nn, gn := within(sn)
		t.Logf("%s: leave one family out within 1.1× of our fastest %d → %d of %d, geometric mean %.3f× → %.3f×", filepath.Base(dir), no, nn, len(now), go_, gn)
		for i := range sn {
			t.Logf("  %-12s %d → %d of %d, geomean %.3f× → %.3f×, worst %.2f× → %.2f× (%s)", sn[i].Family, so[i].WithinGoal, sn[i].WithinGoal, sn[i].Matrices,
				so[i].GeoBest, sn[i].GeoBest, so[i].WorstBest, sn[i].WorstBest, sn[i].WorstKey)
		}
		if nn < no || gn > go_ {
			t.Errorf("%s: the whole grid judges worse than before: %d of %d (%.3f×) against %d (%.3f×)", dir, nn, len(now), gn, no, go_)
		}
	}
}

// TestUnseenHeldout: each held-out draw is judged by the rules fitted on
// the corpus without its family (Fit on the others, recomputed here), and
// a draw whose family the corpus lacks is an error.
func TestUnseenHeldout(t *testing.T) {
	mk := func(key string, lengths []int, fast string) MatrixResult {
		m := MatrixResult{Key: key, Rows: len(lengths), Stats: StatsOf(lengths)}
		for _, meth := range Methods() {
			ms := 2.0
			if meth == fast {
				ms = 1
			}
			m.Runs = append(m.Runs, KernelRun{Method: meth, TimeMs: ms, Correct: true})
		}
		return m
	}
	dev := Device{Name: "NVIDIA H200", Model: "h200"}
	long := append(fill(1<<12, 3), 5000)
	fit := &Recorded{Ours: &Result{Device: dev, Matrices: []MatrixResult{
		mk("road-2^12", fill(1<<12, 3), VectorMethod(2, false)),
		mk("denserows-2^12", long, SplitMethod(2, false)),
		mk("powerlaw20-2^12", long, MethodTile),
	}}}
	un := &Recorded{Ours: &Result{Device: dev, Matrices: []MatrixResult{
		mk("denserows-s2-2^12", long, SplitMethod(2, false)),
		mk("road-s2-2^12", fill(1<<12, 3), VectorMethod(2, false)),
	}}}
	hs, err := UnseenHeldout(fit, un)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 {
		t.Fatalf("%d judged, want 2", len(hs))
	}
	resident, _ := ResidentThreadsOf(fit.Ours)
	for _, h := range hs {
		var train []MatrixResult
		for _, m := range fit.Ours.Matrices {
			if Family(m.Key) != h.Family {
				train = append(train, m)
			}
		}
		if r, _ := Fit(train, resident); r != h.Rules {
			t.Errorf("%s: judged by %v, Fit without %s gives %v", h.Key, h.Rules, h.Family, r)
		}
	}
	un.Ours.Matrices = append(un.Ours.Matrices, mk("banded-s2-2^12", fill(1<<12, 17), VectorMethod(2, false)))
	if _, err := UnseenHeldout(fit, un); err == nil || !strings.Contains(err.Error(), "banded") {
		t.Errorf("a family the corpus lacks: %v, want an error naming it", err)
	}
}
