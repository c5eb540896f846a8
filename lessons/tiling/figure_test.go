package tiling

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/plots/chart"
	"gonum.org/v1/plot/vg"
)

// runTiling runs the lesson on the simulator at N = 64 (about half a second):
// the figures are drawn from a real result, not from numbers typed here.
func runTiling(t *testing.T) *Result {
	t.Helper()
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	res, err := Run(context.Background(), dev, Options{N: 64, NoDemos: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("lesson failures: %v", res.Failures)
	}
	return res
}

// writeArtifact keeps a PNG of a figure when WARPLAB_PLOT_DIR is set, for a
// person to look at.
func writeArtifact(t *testing.T, name string, d chart.Drawer, h float64) {
	if dir := os.Getenv("WARPLAB_PLOT_DIR"); dir != "" {
		if err := chart.WriteFile(filepath.Join(dir, name), d, chart.DefaultWidth, chart.DefaultHeight*vg.Length(h)); err != nil {
			t.Error(err)
		}
	}
}

func TestFigures(t *testing.T) {
	res := runTiling(t)
	tests := []struct {
		name   string
		fig    func() (*chart.Figure, error)
		panels int
		height float64
		want   []string
	}{
		{"loads", func() (*chart.Figure, error) { return LoadsFigure(res) }, 2, 2, []string{
			"Global element loads of A and B vs TILE, N = 64", "TILE (a block is TILE × TILE threads; log scale)",
			"formula, naive: 2N³ = 524,288", "formula, tiled: 2N³/TILE", "counted, matmulTiled",
			"32,768", "16,384", // tiled counts at TILE 16 and 32: 2·64³/16, 2·64³/32
			"Thread coarsening at TILE = 16", "formula, A: N³/(TILE·COARSE)", "formula, B: N³/TILE", "4,096", // A at COARSE 4: 64³/64
		}},
		{"transposes", func() (*chart.Figure, error) { return TransposesFigure(res) }, 2, 2, []string{
			"Transpose, N = 64: 32-byte sectors per global request", "sectors per request", "transposeNaive",
			"transposeSharedPadded", "32×33 (one column of padding)", "32.0", "4.0",
			"Shared memory: wavefronts per request, 32×32 vs 32×33 tile", "a 32-way bank conflict", "1.0",
		}},
		{"rooflines", func() (*chart.Figure, error) { return RooflinesFigure(res) }, 4, 4, []string{
			"Roofline: Tesla T4 (no run: attainable rates)", "Roofline: NVIDIA H200 (modeled at N = 64)",
			"no run: attainable rates", "flop per byte requested by global loads", "naive", "tiled", "coarse×4",
			"spmv warp/row, spmv shfl",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := tc.fig()
			if err != nil {
				t.Fatal(err)
			}
			if len(fig.Panels) != tc.panels {
				t.Errorf("%d panels, want %d", len(fig.Panels), tc.panels)
			}
			svg, err := chart.SVG(fig, chart.DefaultWidth, chart.DefaultHeight*vg.Length(tc.height))
			if err != nil {
				t.Fatal(err)
			}
			s := string(svg)
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("SVG lacks %q", w)
				}
			}
			writeArtifact(t, "tiling-"+tc.name+".png", fig, tc.height)
		})
	}
}

func TestRooflinesFigureMeasured(t *testing.T) {
	res := runTiling(t)
	gpu := &Result{Backend: "gpu", Device: Device{Name: "NVIDIA H200", Kind: "gpu", Model: "h200"},
		Driver: "580.159.04", Date: "2026-11-29"}
	for _, r := range res.Runs {
		r.Stats, r.DRAMBytes, r.ElementLoads = nil, nil, nil
		r.N, r.TimeMs, r.TimeKind = 512, r.TimeMs/100, "measured"
		gpu.Runs = append(gpu.Runs, r)
	}
	fig, err := RooflinesFigure(res, gpu)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := chart.SVG(fig, chart.DefaultWidth, 4*chart.DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"measured at N = 512", "measured on NVIDIA H200, driver 580.159.04, 2026-11-29, N = 512", "modeled at N = 64", "measured"} {
		if !strings.Contains(string(svg), w) {
			t.Errorf("SVG lacks %q", w)
		}
	}
	// A GPU result alone has no counters to place its kernels by.
	if _, err := RooflinesFigure(gpu); err == nil || !strings.Contains(err.Error(), "simulator") {
		t.Errorf("GPU-only roofline: error %v, want one that asks for a simulator run", err)
	}
}

func TestFigureErrors(t *testing.T) {
	res := runTiling(t)
	// A result read back from JSON has lost the simulator's Stats.
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	noSweep := *res
	noSweep.Loads = nil
	badRow := *res
	badRow.Loads = append([]LoadRow(nil), res.Loads...)
	badRow.Loads[1].Counted = 0
	for name, f := range map[string]func() error{
		"loads nil":        func() error { _, err := LoadsFigure(nil); return err },
		"loads no sweep":   func() error { _, err := LoadsFigure(&noSweep); return err },
		"loads zero count": func() error { _, err := LoadsFigure(&badRow); return err },
		"transposes nil":   func() error { _, err := TransposesFigure(nil); return err },
		"transposes JSON":  func() error { _, err := TransposesFigure(&back); return err },
		"transposes none":  func() error { _, err := TransposesFigure(&Result{}); return err },
		"rooflines nil":    func() error { _, err := RooflinesFigure(nil); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// From JSON the loads and rooflines still draw: they need no Stats.
	if _, err := LoadsFigure(&back); err != nil {
		t.Errorf("loads from JSON: %v", err)
	}
	if _, err := RooflinesFigure(&back); err != nil {
		t.Errorf("rooflines from JSON: %v", err)
	}
}
