package libs

import (
	"math"
	"os"
	"strings"
	"testing"
)

// medianRec is one run of one matrix: the methods' times given (0: the
// method skipped; wrong: a method recorded wrong) and cuSPARSE's (0: its
// line wrong), for TestMedianRuns.
func medianRec(dir, gpu string, times map[string]float64, wrong string, peerMs float64) *Recorded {
	m := MatrixResult{Key: "powerlaw20-2^14", MinBytes: 1e6}
	for _, method := range []string{"vector2", "tile", "split2"} {
		t, ok := times[method]
		if !ok {
			continue
		}
		k := KernelRun{Method: method, TimeMs: t, GBs: 1e6 / (t * 1e-3) / 1e9, Correct: method != wrong}
		if t == 0 {
			k.Correct, k.Skipped, k.GBs = false, "over the pass limit", 0
		}
		m.Runs = append(m.Runs, k)
	}
	return &Recorded{
		Dir:  dir,
		Ours: &Result{Device: Device{Name: gpu}, Matrices: []MatrixResult{m}},
		Peer: []PeerRun{{Matrix: m.Key, Alg: "CUSPARSE_SPMV_ALG_DEFAULT", MeanMs: peerMs, MinMs: peerMs, Correct: peerMs > 0}},
	}
}

func TestMedianRuns(t *testing.T) {
	const h100 = "NVIDIA H100 80GB HBM3"
	a := medianRec("a", h100, map[string]float64{"vector2": 0.010, "tile": 0.008, "split2": 0.020}, "", 0.009)
	b := medianRec("b", h100, map[string]float64{"vector2": 0.014, "tile": 0.012, "split2": 0.030}, "split2", 0.011)
	c := medianRec("c", h100, map[string]float64{"vector2": 0.011, "tile": 0.020, "split2": 0}, "", 0) // split2 skipped; its peer line wrong
	tests := []struct {
		name string
		recs []*Recorded
		want map[string]float64 // method: median time
		peer float64
	}{
		{"one run is itself", []*Recorded{a}, map[string]float64{"vector2": 0.010, "tile": 0.008, "split2": 0.020}, 0.009},
		{"two runs: the mean of the two", []*Recorded{a, b}, map[string]float64{"vector2": 0.012, "tile": 0.010, "split2": 0.020}, 0.010},
		{"three runs: the middle one; a wrong or skipped run left out", []*Recorded{a, b, c}, map[string]float64{"vector2": 0.011, "tile": 0.012, "split2": 0.020}, 0.010},
		{"the order does not matter, a skipped first run's method timed", []*Recorded{c, a, b}, map[string]float64{"vector2": 0.011, "tile": 0.012, "split2": 0.020}, 0.010},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MedianRuns(tt.recs...)
			if err != nil {
				t.Fatal(err)
			}
			m := got.Ours.Matrices[0]
			for method, want := range tt.want {
				r := m.Run(method)
				if math.Abs(r.TimeMs-want) > 1e-12 || !r.Correct || r.Skipped != "" {
					t.Errorf("%s: %.4f ms (correct %v), want %.4f", method, r.TimeMs, r.Correct, want)
				}
				if gbs := 1e6 / (want * 1e-3) / 1e9; math.Abs(r.GBs-gbs) > 1e-9*gbs {
					t.Errorf("%s: %.3f GB/s, want %.3f (the minimum bytes over the median time)", method, r.GBs, gbs)
				}
			}
			p, ok := PeerBest(got.Peer, m.Key)
			if !ok || math.Abs(p.MeanMs-tt.peer) > 1e-12 {
				t.Errorf("cuSPARSE %.4f ms (found %v), want %.4f", p.MeanMs, ok, tt.peer)
			}
			if got.Dir != tt.recs[0].Dir {
				t.Errorf("Dir %q, want the first run's %q", got.Dir, tt.recs[0].Dir)
			}
		})
	}
	// The arguments are left as they were.
	if a.Ours.Matrices[0].Run("vector2").TimeMs != 0.010 || b.Ours.Matrices[0].Run("split2").Correct {
		t.Error("MedianRuns changed a run it was given")
	}
	if _, err := MedianRuns(a, medianRec("h200", "NVIDIA H200", map[string]float64{"vector2": 0.01}, "", 0.01)); err == nil ||
		!strings.Contains(err.Error(), "neither's") {
		t.Errorf("runs of two GPUs: err %v, want a refusal", err)
	}
	if _, err := MedianRuns(); err == nil {
		t.Error("no runs: no error")
	}
}

// TestChooserLeases reports the chooser on several recorded corpus runs of
// one GPU (WARPLAB_LIBS_LEASES: their folders, comma-separated): each
// run's fit, every rule set (DefaultRules, each run's fit, the fit on the
// runs' medians) judged on every run and on the medians, leave one family
// out and the held-out draws twice held out on each, every 1.1× line with
// how many of its misses are inside the leases' own run-to-run spread
// (MeasureSpread over every method). The lessons/libs
// README's two-lease figures come from it:
//
//	WARPLAB_LIBS_LEASES=$PWD/evidence/libs-corpus-planned-h100-2026-12-07,$PWD/evidence/libs-corpus-planned-1944-h100-2026-12-07 \
//	  go test ./lessons/libs -run TestChooserLeases -v
func TestChooserLeases(t *testing.T) {
	env := os.Getenv("WARPLAB_LIBS_LEASES")
	if env == "" {
		t.Skip("WARPLAB_LIBS_LEASES=DIR,DIR,... runs it")
	}
	var runs, unseen []*Recorded
	for _, d := range strings.Split(env, ",") {
		rec, err := LoadCorpus(d)
		if err != nil {
			t.Fatal(err)
		}
		un, err := LoadUnseen(d)
		if err != nil {
			t.Fatal(err)
		}
		runs, unseen = append(runs, rec), append(unseen, un)
	}
	med, err := MedianRuns(runs...)
	if err != nil {
		t.Fatal(err)
	}
	medUnseen, err := MedianRuns(unseen...)
	if err != nil {
		t.Fatal(err)
	}
	// The leases' own spread of the goal's ratio, every method (the
	// leases ran one build).
	sp := MeasureSpread(runs, func(string) bool { return true })
	t.Logf("run-to-run spread of pick over fastest: %v", sp)
	judged := append(append([]*Recorded{}, runs...), med)
	judgedUnseen := append(append([]*Recorded{}, unseen...), medUnseen)
	name := func(i int) string {
		if i == len(runs) {
			return "the medians"
		}
		return runs[i].Dir
	}
	type ruleSet struct {
		name  string
		rules Rules
	}
	sets := []ruleSet{{"DefaultRules", DefaultRules()}}
	for i, rec := range judged {
		resident, err := ResidentThreadsOf(rec.Ours)
		if err != nil {
			t.Fatal(err)
		}
		r, loss := Fit(rec.Ours.Matrices, resident)
		t.Logf("fit on %s: %v (loss %.4f)", name(i), r, loss)
		sets = append(sets, ruleSet{"the fit on " + name(i), r})
	}
	for i, rec := range judged {
		for _, s := range sets {
			lines, err := GoalLinesSpread(rec, s.rules, &sp)
			if err != nil {
				t.Fatal(err)
			}
			cl, err := CorpusLines(judgedUnseen[i], s.rules)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, l := range cl {
				if l.PickOverBest() <= 1.1 {
					n++
				}
			}
			t.Logf("on %s, %s: %s; held-out draws within 1.1× %d of %d; %s", name(i), s.name, lines[1], n, len(cl), lines[0])
		}
		hs, err := LeaveOneFamilyOut(rec.Ours, rec.Peer)
		if err != nil {
			t.Fatal(err)
		}
		uh, err := UnseenHeldout(rec, judgedUnseen[i])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("on %s: %s; held-out draws, twice held out: %s", name(i), HeldoutLine(hs, &sp), HeldoutLine(uh, &sp))
	}
}
