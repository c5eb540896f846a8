package spmv

import (
	"math"
	"strings"
	"testing"

	"github.com/warplab/warplab/plots/chart"
)

// sampleSpMV is a figure's input with the shape of the seed's run: ratios
// are inputs here (what a lesson result would hold), not results of this
// package.
func sampleSpMV() spmvData {
	nan := math.NaN()
	return spmvData{
		size: "2^19 rows",
		rows: []spmvRow{
			{"even", "probe", nan, 1, 1, 3.67},
			{"even", "thread_per_row", 1, 0.62, 0.54, 22.2},
			{"even", "warp_per_row", 2, 1.3, 1.21, 1.77},
			{"skewed", "probe", nan, 1, 1, 4.17},
			{"skewed", "thread_per_row", 26.19, 1.8, 1.9, 1.07},
			{"skewed", "warp_per_row", 2.81, 1.6, 1.5, 1.78},
		},
		modeledLabel:  "modeled time ÷ probe (simulated NVIDIA H200)",
		measuredLabel: "measured time ÷ probe (NVIDIA H200, driver 580.95.05, 2026-11-29)",
		counterLabel:  "simulator, modeled",
		probeBlocks:   1056, measuredProbeBlocks: 1056,
	}
}

func TestFigureSVG(t *testing.T) {
	fig, err := spmvFigure(sampleSpMV())
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 2 {
		t.Fatalf("%d panels, want 2", len(fig.Panels))
	}
	svg, err := chart.SVG(fig, chart.DefaultWidth, 2*chart.DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	for _, want := range []string{
		"<svg", "lane-slot prediction next to time", "× the probe (log scale)",
		"sectors per request", "predicted: lane-slots ÷ nonzeros", "modeled time ÷ probe (simulated NVIDIA H200)",
		"measured time ÷ probe (NVIDIA H200, driver 580.95.05, 2026-11-29)", "26.2×", "thread per row", "warp per row",
		"stream probe = 1 (1056 blocks)", "22.2",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestFigureOmits(t *testing.T) {
	d := sampleSpMV()
	for i := range d.rows {
		d.rows[i].measured = math.NaN()
		d.rows[i].sectorsPerRequest = math.NaN()
	}
	fig, err := spmvFigure(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 1 {
		t.Errorf("%d panels without counters, want 1", len(fig.Panels))
	}
	svg, err := chart.SVG(fig, chart.DefaultWidth, chart.DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(svg), "measured time") {
		t.Error("legend names a measured series that has no numbers")
	}
}

func TestFigureDataErrors(t *testing.T) {
	for name, d := range map[string]spmvData{
		"no rows":    {size: "x"},
		"only probe": {rows: []spmvRow{{"even", "probe", math.NaN(), 1, 1, 4}}},
		"no predict": {rows: []spmvRow{{"even", "thread_per_row", math.NaN(), 1, 1, 4}}},
	} {
		if _, err := spmvFigure(d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
