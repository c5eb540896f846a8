package timecheck

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/launchbench"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestRecordedFixture reads the small evidence tree in testdata/repo: three
// spmv files of one configuration (their median, which one slow recording
// of warp per row, 400 µs against 90 and 100, does not move), an ncu CSV
// beside one, a simulator JSON (ignored), CG's whole recordings of one
// grid (cg.json, cg-20-r1.json, cg-20-r2.json: 10, 12 and 40 µs a call,
// median 12; only GPU-timed kernels), a cg.json from before
// CGKernelsSince and a CG run1.json (neither counts), a launch-overhead
// run, and a JSON that is not a lesson's.
func TestRecordedFixture(t *testing.T) {
	runs, err := Recorded(filepath.Join("testdata", "repo"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		key      string
		measured float64
		ncu      float64
		half     string
		sources  int
	}{
		{"spmv|even 2^19|unroll 4, probe 320 blocks|thread_per_row", 46e-6, 39e-6, "train", 3},
		{"spmv|even 2^19|unroll 4, probe 320 blocks|warp_per_row", 100e-6, 88e-6, "train", 3},
		{"cg|20³|stage 1|stage 1 spmv", 12e-6, 0, "test", 3},
		{"launch|empty kernel|Go, back to back (host clock)|emptyKernel", 3.92e-6, 0, "calibration", 1},
	}
	if len(runs) != len(want) {
		for _, r := range runs {
			t.Logf("got %s", r.Key())
		}
		t.Fatalf("%d runs, want %d", len(runs), len(want))
	}
	for i, w := range want {
		r := runs[i]
		if r.Key() != w.key || !near(r.Measured, w.measured) || !near(r.NCU, w.ncu) || r.Half != w.half || len(r.Sources) != w.sources {
			t.Errorf("run %d: %s measured %g ncu %g half %s sources %v; want %s %g %g %s (%d sources)",
				i, r.Key(), r.Measured, r.NCU, r.Half, r.Sources, w.key, w.measured, w.ncu, w.half, w.sources)
		}
	}
	if g := runs[0].Group; g != runs[1].Group || g == runs[2].Group {
		t.Errorf("groups %q %q %q: the two spmv kernels pair, cg does not", runs[0].Group, runs[1].Group, runs[2].Group)
	}
}

// TestRecordedBadJSON: a lesson JSON that does not parse is an error that
// names its file, not a silently shorter table.
func TestRecordedBadJSON(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "evidence", "spmv-x-h200-2026-01-01")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "spmv.json"), []byte(`{"lesson": "spmv", "runs": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Recorded(root)
	if err == nil || !strings.Contains(err.Error(), "evidence/spmv-x-h200-2026-01-01/spmv.json") {
		t.Fatalf("err %v, want one naming the file", err)
	}
}

func TestSummarize(t *testing.T) {
	runs := []Run{
		// pair A: right order, both within 25%
		{Group: "A", Half: "train", Measured: 10, Modeled: 11},
		{Group: "A", Half: "train", Measured: 20, Modeled: 16},
		// pair B: wrong order; one outside (ratio 2)
		{Group: "B", Half: "test", Measured: 10, Modeled: 20},
		{Group: "B", Half: "test", Measured: 15, Modeled: 14},
		// a measured tie (within 1%) counts as right either way
		{Group: "C", Half: "test", Measured: 100, Modeled: 90},
		{Group: "C", Half: "test", Measured: 100.5, Modeled: 80},
		// not modeled, and a calibration run: both left out
		{Group: "C", Half: "test", Measured: 5},
		{Group: "launch", Half: "calibration", Measured: 4, Modeled: 40},
	}
	s := Summarize(runs)
	// errors: .1 .2 1 .0667 .1 .204; within: all but the 1.0
	if s.Runs != 6 || s.Within != 5 || !near(s.ShareWithin, 5.0/6) {
		t.Errorf("runs %d within %d share %g, want 6, 5, 5/6", s.Runs, s.Within, s.ShareWithin)
	}
	if want := (0.1 + 0.2) / 2; !near(s.MedianAbsErr, want) {
		t.Errorf("median |error| %g, want %g", s.MedianAbsErr, want)
	}
	if s.Pairs != 3 || s.PairsRight != 2 {
		t.Errorf("pairs %d right %d, want 3 and 2", s.Pairs, s.PairsRight)
	}
	if s.Goal() {
		t.Error("goal met with 83% within 25% and 67% of pairs right")
	}
	// Two runs at the host's launch floor: the GPU time under it decides;
	// with no GPU time to tell them apart the model picked neither, in
	// either order.
	floor := []Run{
		{Group: "D", Measured: 5.0, Modeled: 5.27, ModeledGPU: 3},
		{Group: "D", Measured: 5.5, Modeled: 5.27, ModeledGPU: 4},
		{Group: "E", Measured: 5.5, Modeled: 5.27},
		{Group: "E", Measured: 5.0, Modeled: 5.27},
		{Group: "F", Measured: 5.0, Modeled: 5.27},
		{Group: "F", Measured: 5.5, Modeled: 5.27},
	}
	if f := Summarize(floor); f.Pairs != 3 || f.PairsRight != 1 {
		t.Errorf("launch-floor pairs: %d right of %d, want 1 of 3 (GPU times decide D; E and F undecided)", f.PairsRight, f.Pairs)
	}
	good := Summarize(runs[:2])
	if !good.Goal() {
		t.Errorf("goal not met by %+v", good)
	}
}

// TestReportTableAndJSON: the table marks runs outside the band and names
// unmodeled ones; the JSON reads back to the same figures.
func TestReportTableAndJSON(t *testing.T) {
	runs := []Run{
		{Lesson: "spmv", Input: "even 2^19", Kernel: "a", Group: "g", Half: "train", Measured: 10e-6, Modeled: 30e-6, Bound: "dram"},
		{Lesson: "spmv", Input: "even 2^19", Kernel: "b", Group: "g", Half: "train", Measured: 20e-6, Modeled: 21e-6, Bound: "latency"},
		{Lesson: "cg", Input: "20³", Kernel: "c", Group: "h", Half: "test", Measured: 5e-6, Skipped: "matrix x.mtx not found"},
	}
	rep, err := NewReport("h200", runs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"3.00 *", "1.05 ", "not modeled: matrix x.mtx not found", "all        2 runs:   1 within 25% (50%)", "goal (≥90% within 25%, median ≤15%, ≥90% of pairs right): not met"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(&b)
	if err != nil {
		t.Fatal(err)
	}
	if back.All != rep.All || len(back.Runs) != 3 || back.Runs[0].Modeled != 30e-6 {
		t.Errorf("read back %+v, want %+v", back.All, rep.All)
	}
	if _, err := NewReport("nosuch", runs); err == nil {
		t.Error("NewReport accepted an unknown model")
	}
}

func TestCalibrateAndStale(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "evidence", "timemodel-microbench-h200-2026-12-01")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "sim", "calibration"), 0o755); err != nil {
		t.Fatal(err)
	}
	csv := "# device: x\nname,param,value,unit,note\nchase_l1,16384B/stride128,35,ns,n\n"
	if err := os.WriteFile(filepath.Join(dir, "microbench.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := StaleCalibration(root); !strings.Contains(s, "sim/calibration/h200.csv") {
		t.Errorf("stale %q, want a note naming sim/calibration/h200.csv", s)
	}
	src, dst, err := Calibrate(root)
	if err != nil || src != "evidence/timemodel-microbench-h200-2026-12-01/microbench.csv" || dst != "sim/calibration/h200.csv" {
		t.Fatalf("Calibrate: %s %s %v", src, dst, err)
	}
	if s := StaleCalibration(root); s != "" {
		t.Errorf("stale after Calibrate: %q", s)
	}
	if err := os.WriteFile(filepath.Join(dir, "microbench.csv"), []byte("name,param\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Calibrate(root); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("Calibrate of a bad CSV: %v, want an error naming line 1", err)
	}
}

// TestNewestMicrobench: a model's newest run by its folder's date, a
// timemodel-calib folder's microbench/ as a timemodel-microbench folder's
// own file; other folders are not runs.
func TestNewestMicrobench(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"timemodel-microbench-h200-2026-12-01/microbench.csv",
		"timemodel-calib-h200-2026-11-30/microbench/microbench.csv",
		"timemodel-microbench-h100-2026-12-01/microbench.csv",
		"timemodel-calib-h100-2026-12-07/microbench/microbench.csv",
		"timemodel-calib-t4-2026-12-07/microbench.csv", // not the layout
		"timemodel-sweep-a100-2026-12-09/microbench.csv",
	} {
		p := filepath.Join(root, "evidence", f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]string{}
	for k, f := range newestMicrobench(root) {
		got[k] = rel(root, f)
	}
	want := map[string]string{
		"h200": "evidence/timemodel-microbench-h200-2026-12-01/microbench.csv",
		"h100": "evidence/timemodel-calib-h100-2026-12-07/microbench/microbench.csv",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("newestMicrobench = %v, want %v", got, want)
	}
}

// TestRepositoryCalibrationCurrent: the simulator's calibration copy is the
// newest recorded microbenchmark run (none recorded: nothing to hold).
func TestRepositoryCalibrationCurrent(t *testing.T) {
	root := filepath.Join("..")
	if s := StaleCalibration(root); s != "" {
		t.Error(s)
	}
}

// TestEmbeddedMeasuredCurrent: the embedded report (what the lessons'
// figure draws) holds every recorded run with the measured time evidence/
// gives today, so a run recorded since, or a change in how runs are read,
// regenerates it.
func TestEmbeddedMeasuredCurrent(t *testing.T) {
	rep, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := Recorded(filepath.Join(".."))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Run{}
	for _, r := range rep.Runs {
		got[r.Key()] = r
	}
	for _, r := range runs {
		e, ok := got[r.Key()]
		if !ok || !near(e.Measured, r.Measured) || !near(e.NCU, r.NCU) {
			t.Errorf("%s: embedded measured %g ncu %g, evidence/ gives %g and %g; regenerate with `go run ./cmd/warplab timemodel check --json timecheck/recorded/check-h200.json`",
				r.Key(), e.Measured, e.NCU, r.Measured, r.NCU)
		}
	}
	if len(rep.Runs) != len(runs) {
		t.Errorf("embedded report has %d runs, evidence/ %d", len(rep.Runs), len(runs))
	}
	if rep.All != Summarize(rep.Runs) {
		t.Errorf("embedded summary %+v is not its runs' %+v", rep.All, Summarize(rep.Runs))
	}
}

// TestEmbeddedModeledCurrent (WARPLAB_LONG=1, minutes): the Day-37 seed
// pair at 2^19 simulated now gives the embedded modeled times, so the
// figure shows today's model.
func TestEmbeddedModeledCurrent(t *testing.T) {
	if os.Getenv("WARPLAB_LONG") != "1" {
		t.Skip("WARPLAB_LONG=1 runs the simulator on the seed pair (minutes)")
	}
	rep, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := Recorded(filepath.Join(".."))
	if err != nil {
		t.Fatal(err)
	}
	err = Simulate(context.Background(), runs, SimOptions{Only: func(r Run) bool {
		return r.Lesson == "spmv" && strings.HasSuffix(r.Input, " 2^19") && strings.Contains(r.Config, "unroll 4, probe 320")
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Run{}
	for _, r := range rep.Runs {
		want[r.Key()] = r
	}
	n := 0
	for _, r := range runs {
		if r.Modeled == 0 {
			continue
		}
		n++
		if w := want[r.Key()]; !near(w.Modeled, r.Modeled) {
			t.Errorf("%s: modeled now %g, embedded %g: regenerate the report", r.Key(), r.Modeled, w.Modeled)
		}
	}
	if n != 6 {
		t.Errorf("%d runs simulated, want the six Day-37 kernels", n)
	}
}

// TestEmbeddedPromise holds issue 11's promise on the recorded check
// (today's model, TestEmbeddedModeledCurrent): lecture 4 at N=512 within
// 25% for at least 7 of its 11 kernels, and all six Day-37 kernels at 2^19
// rows with the seed's 320-block probe within 25%. (Until the load rounds
// came from data dependences, 2026-12-01, the skewed matrix's
// thread-per-row and warp-per-row were 1.35 and 1.74 and logged here as
// known misses; docs/timemodel.md.) It also holds the model's TimedLaunch
// and its costs per argument to the launch records.
func TestEmbeddedPromise(t *testing.T) {
	rep, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	day37, tiling, tilingIn := 0, 0, 0
	for _, r := range rep.Runs {
		in := r.Ratio() > 0 && math.Abs(r.Ratio()-1) <= Within
		switch {
		case r.Lesson == "spmv" && strings.HasSuffix(r.Input, " 2^19") && r.Config == "unroll 4, probe 320 blocks":
			day37++
			if !in {
				t.Errorf("Day-37 %s %s: modeled/measured %.2f, outside 25%%", r.Input, r.Kernel, r.Ratio())
			}
		case r.Lesson == "tiling" && r.Input == "N=512":
			tiling++
			if in {
				tilingIn++
			}
		}
	}
	if day37 != 6 {
		t.Errorf("%d Day-37 runs in the report, want 6", day37)
	}
	if tiling != 11 || tilingIn < 7 {
		t.Errorf("lecture 4 at N=512: %d of %d within 25%%, want at least 7 of 11", tilingIn, tiling)
	}
	want := map[string]bool{"TimedLaunch": false, "TimedLaunchPerBuffer": false, "TimedLaunchPerScalar": false}
	spins := 0
	for _, c := range rep.Calibrated {
		if strings.HasPrefix(c.Name, "spin curve at ") { // sets nothing: the model's time per call against it
			spins++
			if math.Abs(c.Model/c.Value-1) > Within {
				t.Errorf("%s: the model's time per call %.2f µs, the launch records (%v) %.2f µs: outside 25%%", c.Name, c.Model*1e6, c.Sources, c.Value*1e6)
			}
			continue
		}
		seen, ok := want[c.Name]
		if !ok || seen {
			t.Errorf("calibration %s: unexpected or repeated", c.Name)
			continue
		}
		want[c.Name] = true
		if math.Abs(c.Value-c.Model) > 0.005*math.Max(c.Value, 1e-7) {
			t.Errorf("%s: the model uses %g, the launch records (%v) give %g", c.Name, c.Model, c.Sources, c.Value)
		}
	}
	for name, seen := range want {
		if !seen {
			t.Errorf("no %s calibration in the report", name)
		}
	}
	if spins < 10 {
		t.Errorf("%d points of the spin curve in the report, want the records' 15", spins)
	}
}

// TestLaunchRunsNewest: the launch records of the newest day (a timemodel
// run's launch-go*.txt, dated later) replace the launch-overhead run as the
// calibration run, with their median; the records that also time the
// argument kernels with the lessons' protocol, of every day, give the
// empty kernel's time per call (the protocol's, not the host loop's) and
// the costs per buffer and per scalar, by their medians, a negative one
// taken as 0; a
// record of another GPU than LaunchModel's counts for nothing, however new; a
// protocol block with a line missing is an error.
func TestLaunchRunsNewest(t *testing.T) {
	// Records as warplab bench launch prints them (launchbench's
	// WriteText): the empty kernel's back-to-back figure, and with the
	// lessons' protocol the three one-block figures when empty > 0.
	rec := func(async, empty, args, scalars float64) string {
		r := launchbench.Result{Launches: 20000, AsyncMicros: async, RoundTripMicros: 10,
			ArgsAsyncMicros: 7, WideAsyncMicros: 7, ScalarsAsyncMicros: 6}
		if empty > 0 {
			r.Repeats, r.TimedEmptyMicros, r.TimedArgsMicros, r.TimedWideMicros, r.TimedScalarsMicros = 101, empty, args, 9.99, scalars
		}
		var b strings.Builder
		if err := r.WriteText(&b, "NVIDIA H200", false); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	type file struct{ dir, name, body string }
	write := func(t *testing.T, files []file) string {
		root := t.TempDir()
		for _, f := range files {
			d := filepath.Join(root, "evidence", f.dir)
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, f.name), []byte(f.body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	base := []file{
		{"launch-overhead-h200-2026-11-29", "launch-overhead.txt", rec(3.92, 0, 0, 0)},
		{"timemodel-microbench-h200-2026-12-01", "launch-go.txt", rec(4.10, 0, 0, 0)},
		{"timemodel-launch-h200-2026-12-01", "launch-go-r1.txt", rec(4.50, 0, 0, 0)},
		{"timemodel-launch-h200-2026-12-01", "launch-go-r2.txt", rec(4.30, 0, 0, 0)},
	}
	tests := []struct {
		name              string
		files             []file
		empty             float64 // µs
		perBuf, perScalar float64 // µs; < 0: no such calibration
		sources           int
		days              []string // the days a source may be of (nil: 2026-12-01)
		wantErr           bool
	}{
		{name: "empty kernel only", files: base, empty: 4.30, perBuf: -1, sources: 3},
		{name: "with argument records", files: append(append([]file(nil), base...),
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r1.txt", rec(4.20, 4.00, 5.50, 4.30)},
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r2.txt", rec(4.40, 4.20, 5.00, 4.00)},
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r3.txt", rec(4.60, 4.30, 5.40, 4.10)},
		), empty: 4.20, perBuf: 0.68 / 3, perScalar: 0, sources: 3}, // the protocol's empty median; buffers (5.50−4.00−0.05)/5, (5.00−4.20+0.033)/5, (5.40−4.30+0.033)/5
		{name: "a newer record of another GPU left out", files: append(append([]file(nil), base...),
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r1.txt", rec(4.20, 4.00, 5.50, 4.30)},
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r2.txt", rec(4.40, 4.20, 5.00, 4.00)},
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r3.txt", rec(4.60, 4.30, 5.40, 4.10)},
			file{"libs-floor-h100-2026-12-06", "launch-go-r1.txt", strings.Replace(rec(6.00, 6.00, 8.00, 6.30), "NVIDIA H200", "NVIDIA H100 80GB HBM3", 1)},
		), empty: 4.20, perBuf: 0.68 / 3, perScalar: 0, sources: 3},
		// Protocol records of two days pool: empties 4.00, 4.20, 4.30,
		// 5.00; buffers 0.290, 0.167, 0.227, 0.220; scalars 0.05,
		// −0.033, −0.033, 0.1.
		{name: "protocol records of two days pooled", files: append(append([]file(nil), base...),
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r1.txt", rec(4.20, 4.00, 5.50, 4.30)},
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r2.txt", rec(4.40, 4.20, 5.00, 4.00)},
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r3.txt", rec(4.60, 4.30, 5.40, 4.10)},
			file{"timemodel-launchcurve-h200-2026-12-04", "launch-go-r1.txt", rec(5.00, 5.00, 6.20, 5.60)},
		), empty: 4.25, perBuf: (0.22 + 0.68/3) / 2, perScalar: (0.05 - 0.1/3) / 2, sources: 4, days: []string{"2026-12-01", "2026-12-04"}},
		{name: "a line missing", files: append(append([]file(nil), base...),
			file{"timemodel-launchargs-h200-2026-12-01", "launch-go-r1.txt", strings.Replace(rec(4.20, 4.00, 5.50, 4.30), "six scalar arguments, one block", "six scalars, one block", 1)},
		), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := launchRuns(write(t, tc.files))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error for %v", runs)
				}
				return
			}
			if err != nil || len(runs) == 0 {
				t.Fatalf("launch runs %+v, %v", runs, err)
			}
			days := tc.days
			if days == nil {
				days = []string{"2026-12-01"}
			}
			got := map[string]Run{}
			for _, r := range runs {
				got[r.Kernel] = r
				for _, s := range r.Sources {
					if !slices.ContainsFunc(days, func(d string) bool { return strings.HasSuffix(filepath.Dir(s), d) }) {
						t.Errorf("%s: source %s is not of %v", r.Kernel, s, days)
					}
				}
			}
			if e := got[LaunchEmpty]; !near(e.Measured, tc.empty*1e-6) || len(e.Sources) != tc.sources {
				t.Errorf("empty kernel %+v; want %.2f µs from %d records", e, tc.empty, tc.sources)
			}
			b, okB := got[LaunchPerBuffer]
			sc, okS := got[LaunchPerScalar]
			if tc.perBuf < 0 {
				if okB || okS {
					t.Errorf("argument calibrations %+v %+v from records without them", b, sc)
				}
				return
			}
			if !okB || math.Abs(b.Measured-tc.perBuf*1e-6) > 1e-12 {
				t.Errorf("per buffer %+v; want %.3f µs", b, tc.perBuf)
			}
			if !okS || math.Abs(sc.Measured-tc.perScalar*1e-6) > 1e-12 {
				t.Errorf("per scalar %+v; want %.3f µs", sc, tc.perScalar)
			}
		})
	}
}

// TestLaunchRunsSpin: the records that time the spin kernel give one run
// per spin time, the median over the records of its time per call; its
// timings at spins of at most floorSpinNs, less a scalar's cost, join the
// empty kernel's in the floor (LaunchEmpty).
func TestLaunchRunsSpin(t *testing.T) {
	rec := func(spin ...float64) string {
		r := launchbench.Result{Launches: 20000, AsyncMicros: 5, RoundTripMicros: 10, ArgsAsyncMicros: 7,
			WideAsyncMicros: 7, ScalarsAsyncMicros: 6, Repeats: 101, TimedEmptyMicros: 5, TimedArgsMicros: 6,
			TimedWideMicros: 6, TimedScalarsMicros: 5.3}
		for i, us := range spin {
			r.Spin = append(r.Spin, launchbench.SpinPoint{Nanos: []int{0, 2000, 8000}[i], Micros: us})
		}
		var b strings.Builder
		if err := r.WriteText(&b, "NVIDIA H200", false); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	tests := []struct {
		name    string
		records []string
		want    map[string]float64 // kernel -> µs
		empty   float64            // µs: LaunchEmpty
		wantErr bool
	}{
		// A scalar costs (5.3 − 5) / 6 = 0.05 µs: the pool is 5, 5, 5 and
		// 4.95, 5.95, 5.45.
		{"three records", []string{rec(5, 6, 10), rec(6, 7.5, 11), rec(5.5, 7, 10.5)},
			map[string]float64{"spin 0 ns": 5.5, "spin 2000 ns": 7, "spin 8000 ns": 10.5}, 5, false},
		// The host in its other mode for the spin curve: 5, 5, 5 and
		// 6.15, 6.25, 6.05; the 2 µs spins stay out.
		{"the spin kernel's floor pooled", []string{rec(6.2, 9, 10), rec(6.3, 9, 10), rec(6.1, 9, 10)},
			map[string]float64{"spin 0 ns": 6.2, "spin 2000 ns": 9, "spin 8000 ns": 10}, 5.525, false},
		{"no records with a spin curve", []string{rec()}, map[string]float64{}, 5, false},
		{"a bad number", []string{strings.Replace(rec(5, 6, 10), "10.00 us per call", "1e.00 us per call", 1)}, nil, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			d := filepath.Join(root, "evidence", "timemodel-launch-h200-2026-12-04")
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, r := range tc.records {
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("launch-go-r%d.txt", i+1)), []byte(r), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			runs, err := launchRuns(root)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error for %+v", runs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, r := range runs {
				if r.Kernel == LaunchEmpty && math.Abs(r.Measured*1e6-tc.empty) > 1e-9 {
					t.Errorf("floor %.4f µs, want %.4f", r.Measured*1e6, tc.empty)
				}
				if strings.HasPrefix(r.Kernel, LaunchSpin) {
					got[r.Kernel] = r.Measured * 1e6
					if len(r.Sources) != len(tc.records) {
						t.Errorf("%s: %d sources, want %d", r.Kernel, len(r.Sources), len(tc.records))
					}
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("spin runs %v, want %v", got, tc.want)
			}
			for k, w := range tc.want {
				if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-9 {
					t.Errorf("%s: %.3f µs, want %.3f", k, g, w)
				}
			}
		})
	}
}

// TestCGRecordingsSource holds CGKernelsSince to the code: the cg.cu that
// the CG runs recorded since then compiled (commit 45eb1ef, 28,249 bytes)
// must still begin today's cg.cu, byte for byte. When stages 1–8's kernels
// change, this fails: record CG again and move CGKernelsSince and the hash
// to the new recordings.
func TestCGRecordingsSource(t *testing.T) {
	const n, want = 28249, "26094d0fb97f56f752ca26213952e3d1715c42092fb169812a3f3235a0487aca"
	src, err := os.ReadFile(filepath.Join("..", "lessons", "cg", "cg.cu"))
	if err != nil {
		t.Fatal(err)
	}
	if len(src) < n {
		t.Fatalf("cg.cu has %d bytes, fewer than the %d the recorded CG runs compiled", len(src), n)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(src[:n])); got != want {
		t.Errorf("cg.cu's first %d bytes hash to %s, not %s: stages 1–8's kernels changed since the CG runs the check counts (CGKernelsSince %s)", n, got, want, CGKernelsSince)
	}
}
