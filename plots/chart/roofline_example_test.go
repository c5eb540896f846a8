package chart_test

import (
	"log"
	"testing"

	"gonum.org/v1/plot/cmpimg"

	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/timing"
)

// Roofline places kernels under a device's roofs. The device is spelled out
// here (an H200's peaks, as sim.Models has them today) rather than taken
// from the simulator, so the picture stays put if the model is retuned; the
// points are the tiling lesson's recorded H200 matmul rates, typed in, at
// the intensities their global loads request (0.25, and 0.25·TILE for TILE 16).
func ExampleRoofline() {
	h200 := sim.Model{GPU: timing.GPU{Key: "h200", Name: "NVIDIA H200", DRAMBandwidth: 4.8e12, FP32Flops: 67e12, TF32Flops: 494.7e12}}
	// The tiling lesson's recorded H200 run (NVIDIA H200, driver 580.159.04,
	// 2026-11-29), N = 512: 268,435,456 flop in 0.0584, 0.0508 and 0.0738 ms.
	pts := []chart.RooflinePoint{
		{Label: "matmulNaive", Intensity: 0.25, Flops: 4.594483566242699e+12, Kind: "measured"},
		{Label: "matmulTiled", Intensity: 4, Flops: 5.286493343368659e+12, Kind: "measured"},
		{Label: "matmulTiledCoarse4", Intensity: 6.4, Flops: 3.6361542952988486e+12, Kind: "measured"},
	}
	p, err := chart.Roofline(h200, pts)
	if err != nil {
		log.Panic(err)
	}
	if err := chart.WriteFile("testdata/roofline.png", p, chart.DefaultWidth, chart.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// Every figure here is compared, as a picture, with testdata/NAME_golden.png
// at cmpimg's default tolerance (every decoded pixel equal); after a
// deliberate change, `go test ./plots/chart -run Golden -regen` redraws the
// goldens, which a person looks at before they are committed.
func TestGoldenRoofline(t *testing.T) { cmpimg.CheckPlot(ExampleRoofline, t, "roofline.png") }
