package libs

import (
	"math"
	"strings"
	"testing"
)

// TestMeasureSpread: two made-up calls of the same methods; the spread of
// each size class is the median |log| change of a method's time over the
// call's fastest (of the compared methods), a method the predicate leaves
// out or a run that is wrong in either call adds nothing, and Within and
// MissLine read it.
func TestMeasureSpread(t *testing.T) {
	mk := func(key string, rows int, times map[string]float64) MatrixResult {
		m := MatrixResult{Key: key, Rows: rows}
		for _, meth := range []string{"vector2", "vector4", "split2", "split4", MethodTile} {
			if ms, ok := times[meth]; ok {
				m.Runs = append(m.Runs, KernelRun{Method: meth, TimeMs: ms, Correct: ms > 0})
			}
		}
		return m
	}
	a := &Recorded{Dir: "/x/a", Ours: &Result{Matrices: []MatrixResult{
		mk("road-2^14", 1<<14, map[string]float64{"vector2": 1, "vector4": 1.2, "split2": 1.5, "split4": 1, MethodTile: 0.5}),
		mk("road-2^20", 1<<20, map[string]float64{"vector2": 1, "vector4": 2, "split2": 4}),
		mk("only-in-a-2^20", 1<<20, map[string]float64{"vector2": 1, "vector4": 9}),
	}}}
	b := &Recorded{Dir: "/x/b", Ours: &Result{Matrices: []MatrixResult{
		// 2^14, over vector2 (the first of the fastest in a): vector4
		// 1.2 → 1.5, split2 1.5 → 1.5, split4 1 → 1.2; the tiles (left
		// out) moved by 4×.
		mk("road-2^14", 1<<14, map[string]float64{"vector2": 2, "vector4": 3, "split2": 3, "split4": 2.4, MethodTile: 4}),
		// 2^20: vector4 2 → 2.2; split2 wrong in b.
		mk("road-2^20", 1<<20, map[string]float64{"vector2": 1, "vector4": 2.2, "split2": -1}),
	}}}
	sp := MeasureSpread([]*Recorded{a, b}, SpreadMethods)
	if got := strings.Join(sp.Runs, ","); got != "a,b" {
		t.Errorf("runs %q, want a,b", got)
	}
	for _, tt := range []struct {
		size   int
		median float64
		pairs  int
	}{
		{14, math.Log(1.2), 3}, // 0, log 1.2, log 1.25
		{20, math.Log(1.1), 1},
	} {
		if math.Abs(sp.Median[tt.size]-tt.median) > 1e-12 || sp.Pairs[tt.size] != tt.pairs {
			t.Errorf("2^%d: median %v over %d ratios, want %v over %d", tt.size, sp.Median[tt.size], sp.Pairs[tt.size], tt.median, tt.pairs)
		}
	}
	if !sp.Within(20, 1.2) || sp.Within(20, 1.22) || sp.Within(17, 1.05) {
		t.Error("Within: want 1.2 inside 1.1 × 1.1 at 2^20, 1.22 outside, nothing at a size not measured")
	}
	line := sp.MissLine([]CorpusLine{
		{Key: "a-2^20", Rows: 1 << 20, Pick: KernelRun{TimeMs: 1.2}, Best: KernelRun{TimeMs: 1}},
		{Key: "b-2^20", Rows: 1 << 20, Pick: KernelRun{TimeMs: 1.3}, Best: KernelRun{TimeMs: 1}},
		{Key: "c-2^20", Rows: 1 << 20, Pick: KernelRun{TimeMs: 1.05}, Best: KernelRun{TimeMs: 1}},
	})
	if !strings.HasPrefix(line, "of the 2 misses, 1 is within") || !strings.Contains(line, "outside it: b-2^20 1.30×") {
		t.Errorf("MissLine: %q", line)
	}
}

// TestSpreadRuns: on the recorded calls (when present) the spread shrinks
// with the size, as the launch floor's share of the time does: the
// measured median at 2^20 rows is under 2%, at 2^14 over it.
func TestSpreadRuns(t *testing.T) {
	sp, err := FindSpread()
	if err != nil {
		t.Skipf("spread runs not recorded here: %v", err)
	}
	t.Logf("spread on %v: %v", sp.Runs, sp)
	if sp.Median[20] >= math.Log(1.02) || sp.Median[14] <= sp.Median[20] {
		t.Errorf("median spread 2^20 %v, 2^14 %v", sp.Median[20], sp.Median[14])
	}
}
