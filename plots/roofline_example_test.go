package plots_test

import (
	"log"

	"github.com/warplab/warplab/lessons/tiling"
	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/sim"
)

// Roofline places kernels under a device's roofs. The device is spelled out
// here (an H200's peaks, as sim.Models has them today) rather than taken
// from the simulator, so the picture stays put if the model is retuned; the
// points are the recorded H200 run's measured matmul rates, at the
// intensities their global loads request (0.25, and 0.25·TILE for TILE 16).
func ExampleRoofline() {
	h200 := sim.Model{Key: "h200", Name: "NVIDIA H200", DRAMBandwidth: 4.8e12, FP32Flops: 67e12, TF32Flops: 494.7e12}
	rec, err := tiling.Recorded()
	if err != nil {
		log.Panic(err)
	}
	intensity := map[string]float64{tiling.KMatmulNaive: 0.25, tiling.KMatmulTiled: 4, "matmulTiledCoarse4": 6.4}
	var pts []plots.RooflinePoint
	for _, r := range rec.Runs {
		if ai, ok := intensity[r.Kernel]; ok {
			pts = append(pts, plots.RooflinePoint{Label: r.Kernel, Intensity: ai, Flops: float64(r.Flops) / (r.TimeMs * 1e-3), Kind: "measured"})
		}
	}
	p, err := plots.Roofline(h200, pts)
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/roofline.png", p, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}
