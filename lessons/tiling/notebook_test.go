package tiling

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim"
)

func TestKernelSource(t *testing.T) {
	tests := []struct{ name, want string }{
		{KMatmulNaive, `extern "C" __global__ void matmulNaive(`},
		{"matmulTiledBody", "template <"},
		{"matmulTiledCoarseBody", "template <int COARSE>"},
		{KTransposeShared, `extern "C" __global__ void transposeShared(`},
		{KSpMVWarpShfl, "__shfl_down_sync"},
	}
	for _, tt := range tests {
		src, err := KernelSource(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(src, tt.want) || !strings.HasSuffix(src, "}\n") {
			t.Errorf("KernelSource(%s) lacks %q:\n%s", tt.name, tt.want, src)
		}
	}
}

// The notebook's caption gives the SpMV matrix's density as counted: the
// generator scales the base 1/8 by 1 to 2.5, about 1.75 × 1/8 = 21.9%.
func TestSpMVDensity(t *testing.T) {
	for _, n := range []int{NotebookN, RooflineN} {
		d, err := SpMVDensity(Options{N: n})
		if err != nil {
			t.Fatal(err)
		}
		if d < 0.20 || d > 0.24 {
			t.Errorf("N = %d: density %.3f, want about 0.219", n, d)
		}
	}
	if _, err := SpMVDensity(Options{N: -1}); err == nil {
		t.Error("N = -1: want an error")
	}
}

func TestNotebookTables(t *testing.T) {
	res, err := Simulate(Options{N: 64, NoDemos: true})
	if err != nil {
		t.Fatal(err)
	}
	runs, summary := RunsTable(res)
	if len(runs.Rows) != len(res.Runs) || !strings.HasPrefix(summary, "11 of 11 kernel outputs equal") {
		t.Errorf("RunsTable: %d rows, %q", len(runs.Rows), summary)
	}
	loads, lines := LoadsTable(res)
	if len(loads.Rows) != len(res.Loads) || len(lines) != len(res.Loads) || strings.Contains(strings.Join(lines, "\n"), "DIFFERENT") {
		t.Errorf("LoadsTable: %q", lines)
	}
	tr, lines := TransposesTable(res)
	if len(tr.Rows) != 3 || !strings.Contains(strings.Join(lines, "\n"), "transposeShared: shared stores 32.0 wavefronts/request (32-way)") {
		t.Errorf("TransposesTable: %q", lines)
	}
	sp, lines, err := SparseTable(res)
	if err != nil || len(sp.Rows) != 5 || !strings.Contains(sp.Caption, "% nonzero") {
		t.Errorf("SparseTable: %v %q %q", err, sp.Caption, lines)
	}
	_, lines = RooflineTable(res)
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "coarsening by 4: 4.00 → 6.40 flop per requested byte, 60% more") {
		t.Errorf("RooflineTable: last line %q", last)
	}
	// A stand-in with every counter 0: the transpose uses no shared memory, so 2 of 6 agree.
	hw := []HWCounters{{Kernel: KTransposeNaive, Source: "test"}}
	if _, _, _, err := NCUTable(res, []HWCounters{{Kernel: "nosuch", Source: "test"}}); err == nil {
		t.Error("NCUTable with an unknown kernel: want an error")
	}
	if _, lines, summary, err := NCUTable(res, hw); err != nil || !strings.HasPrefix(summary, "2 of 6 counters") || len(lines) == 0 {
		t.Errorf("NCUTable: %v %q %q", err, summary, lines)
	}
}

func TestMeasuredOrRecorded(t *testing.T) {
	res, how, err := MeasuredOrRecorded(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if how == "recorded run" && res.Label() != "NVIDIA H200, driver 580.159.04, 2026-11-29" {
		t.Errorf("label %q", res.Label())
	}
	tab := TimesTable(res, how)
	if len(tab.Rows) != len(res.Runs) || !strings.Contains(tab.Caption, how) {
		t.Errorf("TimesTable: %q", tab.Caption)
	}
	for _, k := range []string{KMatmulTiled, "matmulTiledCoarse4"} {
		r, ok := res.Find(k)
		t.Logf("%s: %.4f ms (%v)", k, r.TimeMs, ok)
	}
	d, err := SpMVDensity(Options{N: NotebookN})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("density at N = %d: %.4f", NotebookN, d)
}

func TestSimulateOn(t *testing.T) {
	res, err := SimulateOn("t4", Options{N: 64, NoSweep: true, NoDemos: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Device.Model != "t4" || res.Options.N != 64 {
		t.Errorf("SimulateOn(t4): model %q, N %d", res.Device.Model, res.Options.N)
	}
	if _, err := SimulateOn("nosuch", Options{}); err == nil {
		t.Error("SimulateOn(nosuch): want an error")
	}
}

// SimulateModels gives the H200 run first and one run per other model, each
// on its own model.
func TestSimulateModels(t *testing.T) {
	res, others, err := SimulateModels(Options{N: 32, Tile: 8, Coarse: 4, NoSweep: true, NoDemos: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Device.Model != "h200" {
		t.Errorf("res on %q, want h200", res.Device.Model)
	}
	var got []string
	for _, r := range others {
		got = append(got, r.Device.Model)
	}
	var want []string
	for _, m := range sim.Models() {
		if m.Key != "h200" {
			want = append(want, m.Key)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("others on %v, want %v", got, want)
	}
	if _, _, err := SimulateModels(Options{N: 30}); err == nil {
		t.Error("bad options: no error")
	}
}
