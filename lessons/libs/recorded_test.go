package libs

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordedForTest is the recorded H200 run as FindRecorded finds it; the
// test is skipped when there is none.
func recordedForTest(t *testing.T) *Recorded {
	t.Helper()
	rec, err := FindRecorded()
	if errors.Is(err, ErrNotRecorded) {
		t.Skip("no recorded run: evidence/" + RecordedName + " absent and WARPLAB_LIBS_RECORDED unset")
	}
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestRecordedFit holds the chooser to the half of the recorded H200 run it
// was fitted on (the seed pair) and reports the held-out half: MergeCost is
// merge path's measured cost on the even seed matrix (within 0.25), on
// every uneven matrix the rule's side of the binned/merge split is the one
// the recorded times favour, and today's pick on the seed pair is at or
// under cuSPARSE's best.
func TestRecordedFit(t *testing.T) {
	rec := recordedForTest(t)
	resident, err := ResidentThreadsOf(rec.Ours)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rec.Ours.Matrices {
		g, b := m.Run(MethodMerge), m.Run(MethodBinned)
		if strings.HasPrefix(m.Key, "even-") {
			if got := g.TimeMs / m.Best().TimeMs; math.Abs(got-MergeCost) > 0.25 {
				t.Errorf("%s: merge path %.2f× the fastest, MergeCost %.2f", m.Key, got, MergeCost)
			}
		}
		skewed, spread := shape(m.Stats)
		if !skewed && !spread || g.TimeMs == 0 || b.TimeMs == 0 {
			continue
		}
		rule := LongestRowPasses(m.Stats) > MergeCost*BalancedShare(m.Stats, resident)
		faster := g.TimeMs < b.TimeMs
		t.Logf("%s (%s): rule says merge %v, recorded merge %.4f ms, binned %.4f ms", m.Key, Half(m.Key), rule, g.TimeMs, b.TimeMs)
		if rule != faster && Half(m.Key) == Half("even-") {
			t.Errorf("%s: rule says merge path %v, recorded times say %v", m.Key, rule, faster)
		}
	}
	ps, err := Repicks(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		t.Logf("%s: now %s %.4f ms, %.2f× cuSPARSE", p.Key, p.Now.Method, p.Now.TimeMs, p.NowOverPeer)
		if p.Half == Half("even-") && (!p.HasPeer || p.NowOverPeer > 1) {
			t.Errorf("%s: today's pick %s is %.2f× cuSPARSE's best", p.Key, p.Now.Method, p.NowOverPeer)
		}
	}
}

// TestRecordedOrNote: with no evidence folder above the working directory
// and no WARPLAB_LIBS_RECORDED, a notebook cell gets nil, no error, and the
// line saying nothing is recorded.
func TestRecordedOrNote(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("WARPLAB_LIBS_RECORDED", "")
	var b strings.Builder
	rec, err := RecordedOrNote(&b)
	if rec != nil || err != nil {
		t.Fatalf("RecordedOrNote = %v, %v; want nil, nil", rec, err)
	}
	if !strings.Contains(b.String(), "No H200 run is recorded yet") {
		t.Errorf("note %q", b.String())
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "libs.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARPLAB_LIBS_RECORDED", bad)
	if _, err := RecordedOrNote(&b); err == nil {
		t.Error("malformed libs.json: no error")
	}
}
