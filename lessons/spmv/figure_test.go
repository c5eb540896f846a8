package spmv

import (
	"context"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/plots/chart"
)

// smallRun runs the lesson on the simulator at 512 rows (the smallest size
// that holds the skewed matrix's heavy row of 419).
func smallRun(t *testing.T) *Result {
	t.Helper()
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	res, err := Run(context.Background(), dev, Options{Rows: 512})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestFigureFromResult(t *testing.T) {
	res := smallRun(t)
	// A recorded GPU run: the simulator's result relabeled, with its times
	// changed so the measured bars differ from the modeled ones.
	rec := *res
	rec.Backend, rec.Driver, rec.Date = "gpu", "580.95.05", "2026-11-29T12:00:00Z"
	rec.Device.Name = "NVIDIA H200"
	rec.Runs = append([]KernelRun(nil), res.Runs...)
	for i := range rec.Runs {
		rec.Runs[i].TimeMs *= float64(i + 1)
		rec.Runs[i].Requests, rec.Runs[i].Sectors = nil, nil
	}
	d, err := spmvDataOf(res, &rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.rows) != 6 {
		t.Fatalf("%d rows, want 6 (probe and two kernels on two matrices)", len(d.rows))
	}
	for _, r := range d.rows {
		if r.kernel == ProbeRun {
			if r.modeled != 1 || r.measured != 1 {
				t.Errorf("%s probe: modeled %g, measured %g; want 1 (it is the unit)", r.matrix, r.modeled, r.measured)
			}
			continue
		}
		var useful float64
		for _, p := range res.Predictions {
			if p.Matrix == r.matrix && p.Kernel == r.kernel {
				useful = p.Useful
			}
		}
		if want := 1 / useful; r.predicted != want {
			t.Errorf("%s %s predicted %g, want 1/useful = %g", r.matrix, r.kernel, r.predicted, want)
		}
		if !(r.sectorsPerRequest >= 1 && r.sectorsPerRequest <= 32) {
			t.Errorf("%s %s: %g sectors per request, outside [1, 32]", r.matrix, r.kernel, r.sectorsPerRequest)
		}
	}
	if want := "NVIDIA H200, driver 580.95.05, 2026-11-29, recorded"; !strings.Contains(d.measuredLabel, want) {
		t.Errorf("measured label %q lacks %q", d.measuredLabel, want)
	}
	if !strings.Contains(d.modeledLabel, "simulated") || strings.Count(d.modeledLabel, "simulated") != 1 {
		t.Errorf("modeled label %q should say simulated once", d.modeledLabel)
	}
	fig, err := Figure(res, &rec)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := chart.SVG(fig, chart.DefaultWidth, 2*chart.DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SpMV (2^9 rows)", "modeled time ÷ probe", "measured time ÷ probe (NVIDIA H200, driver 580.95.05, 2026-11-29, recorded)", "sectors per request"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestFigureErrors(t *testing.T) {
	if _, err := Figure(nil, nil); err == nil {
		t.Error("nil result drawn")
	}
	pred, err := Predict(Options{Rows: 512})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Figure(pred, nil); err == nil || !strings.Contains(err.Error(), "no kernel runs") {
		t.Errorf("a prediction without runs: err %v", err)
	}
	res := smallRun(t)
	notGPU := *res
	if _, err := Figure(res, &notGPU); err == nil {
		t.Error("a simulator run accepted as the recorded GPU run")
	}
}

// TestMeasuredOn checks the result's parts reach lesson.MeasuredOn (whose
// own cases are tested in package lesson).
func TestMeasuredOn(t *testing.T) {
	for _, tc := range []struct {
		r    *Result
		want string
	}{
		{nil, "unknown GPU, driver unknown, undated"},
		{&Result{}, "unknown GPU, driver unknown, undated"},
		{&Result{Device: Device{Name: "NVIDIA H200"}, Driver: "580.95.05", Date: "2026-11-29T15:08:00Z"}, "NVIDIA H200, driver 580.95.05, 2026-11-29"},
		{&Result{Device: Device{Name: "NVIDIA H200"}, Driver: "CUDA 13.0 driver API", Date: "2026-11-29"}, "NVIDIA H200, CUDA 13.0 driver API, 2026-11-29"},
	} {
		if got := MeasuredOn(tc.r); got != tc.want {
			t.Errorf("MeasuredOn(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestVsNCU pairs a run's counters with a profiler's: only the runs with a
// recorded count, kernels by their table names, counts copied unchanged.
func TestVsNCU(t *testing.T) {
	res := smallRun(t)
	run, ok := res.Find("even", ThreadPerRowRun)
	if !ok || run.Requests == nil || run.Sectors == nil {
		t.Fatal("the simulator run has no thread-per-row counters on the even matrix")
	}
	probe, ok := res.Find("skewed", ProbeRun)
	if !ok || probe.Requests == nil || probe.Sectors == nil {
		t.Fatal("the simulator run has no probe counters on the skewed matrix")
	}
	hw := []NCUCount{
		{Matrix: "even", Kernel: ThreadPerRowRun, Requests: *run.Requests, Sectors: *run.Sectors + 10},
		{Matrix: "skewed", Kernel: ProbeRun, Requests: *probe.Requests, Sectors: *probe.Sectors},
	}
	rows := VsNCU(res, hw, "as compiled")
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (two runs have a recorded count)", len(rows))
	}
	if want := "skewed stream probe (floor): simulator "; !strings.HasPrefix(rows[1].Line(), want) || !strings.HasSuffix(rows[1].Line(), ": exact") {
		t.Errorf("Line() = %q, want it to start %q and end exact", rows[1].Line(), want)
	}
	r := rows[0]
	if r.Matrix != "even" || r.Kernel != "thread per row" || r.SimSectors != *run.Sectors || r.HWSectors != *run.Sectors+10 || r.Note != "as compiled" {
		t.Errorf("row %+v", r)
	}
	if want := "even thread per row: simulator "; !strings.HasPrefix(r.Line(), want) {
		t.Errorf("Line() = %q, want it to start %q", r.Line(), want)
	}
}
