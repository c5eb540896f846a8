package timecheck

import (
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/libs"
)

// TestLibsCases: a matrix and method in both runs is one case, modeled
// over measured; skipped, wrong or missing runs are left out; a case
// several measured runs timed takes the median of their times and names
// each; and a swapped pair of runs, or runs of two GPUs, are refused.
func TestLibsCases(t *testing.T) {
	run := func(backend gpuext.Kind, date string, ms map[string]float64) *libs.Result {
		r := &libs.Result{Backend: backend, Date: date, Device: libs.Device{Name: string(backend) + " device", Model: "h200"}}
		m := libs.MatrixResult{Key: "powerlaw20-2^17", Rows: 1 << 17}
		for meth, v := range ms {
			k := libs.KernelRun{Method: meth, TimeMs: v, Correct: true}
			switch meth {
			case "wrong":
				k.Correct = false
			case "skipped":
				k.Skipped = "too many passes"
			}
			m.Runs = append(m.Runs, k)
		}
		r.Matrices = []libs.MatrixResult{m}
		return r
	}
	sim := run(gpuext.Sim, "", map[string]float64{"tile": 0.010, "vector4": 0.020, "wrong": 0.01, "skipped": 0.01, "only-modeled": 0.01})
	gpu1 := run(gpuext.GPU, "day 1", map[string]float64{"tile": 0.008, "wrong": 0.01, "skipped": 0.01})
	gpu2 := run(gpuext.GPU, "day 2", map[string]float64{"tile": 0.100, "vector4": 0.025})
	gpu3 := run(gpuext.GPU, "day 3", map[string]float64{"tile": 0.0125, "wrong": 0.01})
	cases, err := LibsCases(sim, gpu1, gpu2, gpu3)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]SweepCase{}
	for _, c := range cases {
		got[c.Kernel] = c
	}
	for _, tc := range []struct {
		method          string
		measured, ratio float64
		source          string
	}{
		{"tile", 12.5e-6, 0.8, "day 1,day 2,day 3"}, // the median of 8, 100 and 12.5 µs
		{"vector4", 25e-6, 0.8, "day 2"},
	} {
		c, ok := got[tc.method]
		if !ok {
			t.Errorf("%s: no case", tc.method)
			continue
		}
		if c.Family != "libs-powerlaw20" || c.Input != "powerlaw20-2^17" || c.Size != 1<<17 {
			t.Errorf("%s: family %q input %q size %d", tc.method, c.Family, c.Input, c.Size)
		}
		if d := c.Measured - tc.measured; d > 1e-12 || d < -1e-12 || c.Ratio() < tc.ratio-1e-9 || c.Ratio() > tc.ratio+1e-9 {
			t.Errorf("%s: measured %g ratio %g, want %g and %g", tc.method, c.Measured, c.Ratio(), tc.measured, tc.ratio)
		}
		if want := strings.Split(tc.source, ","); len(c.Sources) != len(want) {
			t.Errorf("%s: sources %q, want the runs of %s", tc.method, c.Sources, tc.source)
		} else {
			for i, w := range want {
				if !strings.Contains(c.Sources[i], w) {
					t.Errorf("%s: source %d %q, want the %s run", tc.method, i, c.Sources[i], w)
				}
			}
		}
		if c.Date != "day 1" && tc.method == "tile" {
			t.Errorf("tile: date %q, want the first run's", c.Date)
		}
	}
	if len(cases) != 2 {
		t.Errorf("%d cases, want tile and vector4 only: %+v", len(cases), cases)
	}
	rep, err := NewSweepReport("h200", cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.ByFamily) != 1 || rep.ByFamily[0].Name != "libs-powerlaw20" || rep.ByFamily[0].Cases != 2 {
		t.Errorf("by family: %+v, want the one libs family", rep.ByFamily)
	}
	if _, err := LibsCases(gpu1, sim); err == nil {
		t.Error("a GPU run given as the modeled one: no error")
	}
	if _, err := LibsCases(sim, sim); err == nil {
		t.Error("a simulator run given as the measured one: no error")
	}
	other := run(gpuext.GPU, "day 4", map[string]float64{"tile": 0.009})
	other.Device.Name = "another GPU"
	if _, err := LibsCases(sim, gpu1, other); err == nil || !strings.Contains(err.Error(), "different GPUs") {
		t.Errorf("runs of two GPUs: %v, want an error naming them", err)
	}
	if _, err := LibsCases(sim, run(gpuext.GPU, "", map[string]float64{"merge_path": 1})); err == nil {
		t.Error("no matrix and method in common: no error")
	}
}

// TestLibsCasesOf: several simulator runs (one a size) give one set of
// cases, a matrix in two of them counted once (the first's); runs of two
// GPUs are refused.
func TestLibsCasesOf(t *testing.T) {
	run := func(backend gpuext.Kind, model string, keys ...string) *libs.Result {
		r := &libs.Result{Backend: backend, Device: libs.Device{Name: string(backend), Model: model}}
		for _, k := range keys {
			r.Matrices = append(r.Matrices, libs.MatrixResult{Key: k, Rows: 1 << 14,
				Runs: []libs.KernelRun{{Method: "tile", TimeMs: 0.01, Correct: true}}})
		}
		return r
	}
	gpu := run(gpuext.GPU, "", "uniform-2^14", "uniform-2^17", "bayer10")
	// bayer10 in the second run too, as every corpus batch runs the
	// SuiteSparse files: measured once, one case (the first run's).
	second := run(gpuext.Sim, "h200", "uniform-2^17", "bayer10")
	second.Matrices[1].Runs[0].TimeMs = 0.02
	cases, err := LibsCasesOf([]*libs.Result{run(gpuext.Sim, "h200", "uniform-2^14", "bayer10"), second}, gpu)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 {
		t.Errorf("%d cases, want 3: %+v", len(cases), cases)
	}
	for _, c := range cases {
		if c.Input == "bayer10" && c.Modeled != 0.01e-3 {
			t.Errorf("bayer10 modeled %g s, want the first run's 1e-5", c.Modeled)
		}
	}
	for _, c := range []struct {
		name string
		sims []*libs.Result
	}{
		{"two GPUs", []*libs.Result{run(gpuext.Sim, "h200", "uniform-2^14"), run(gpuext.Sim, "t4", "uniform-2^17")}},
		{"none", nil},
	} {
		if _, err := LibsCasesOf(c.sims, gpu); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// TestSetLibsSizes: a libs report's cases grouped by the size their keys
// name, smallest first and the files last, each with its inputs' pairs.
func TestSetLibsSizes(t *testing.T) {
	c := func(input, kernel string, measured, modeled float64) SweepCase {
		return SweepCase{Family: LibsFamilyPrefix + libs.Family(input), Kernel: kernel, Input: input, GPU: "g",
			Size: 1000, SizeUnit: "rows", Measured: measured, Modeled: modeled}
	}
	cases := []SweepCase{
		c("stencil27-2^17", "tile", 10e-6, 10e-6), // 50³ rows: its key says 2^17
		c("stencil27-2^17", "vector2", 20e-6, 15e-6),
		c("bayer10", "tile", 10e-6, 20e-6),
		c("road-s2-2^14", "tile", 10e-6, 11e-6),
		c("uniform-2^17", "tile", 10e-6, 30e-6),
	}
	r, err := NewSweepReport("h200", cases)
	if err != nil {
		t.Fatal(err)
	}
	r.SetLibsSizes()
	want := []struct {
		name                 string
		cases, within, pairs int
	}{
		{"2^14 rows", 1, 1, 0},
		{"2^17 rows", 3, 2, 1}, // stencil27's two kernels, 2× apart: one pair
		{"files", 1, 0, 0},
	}
	if len(r.BySize) != len(want) {
		t.Fatalf("%d sizes, want %d: %+v", len(r.BySize), len(want), r.BySize)
	}
	for i, w := range want {
		s := r.BySize[i]
		if s.Name != w.name || s.Cases != w.cases || s.Within != w.within || s.Pairs != w.pairs {
			t.Errorf("size %d: %s %d cases, %d within, %d pairs; want %s %d, %d, %d", i, s.Name, s.Cases, s.Within, s.Pairs, w.name, w.cases, w.within, w.pairs)
		}
	}
	var b strings.Builder
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "per size:\n  2^14 rows") || strings.Contains(b.String(), "per regime") {
		t.Errorf("the table has no per-size block, or an empty per-regime one:\n%s", b.String())
	}
}
