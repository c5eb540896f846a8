package tiling_test

import (
	"encoding/json"
	"log"
	"os"

	"testing"

	"github.com/warplab/warplab/lessons/tiling"
	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/sim"
	"gonum.org/v1/plot/cmpimg"
)

// simTiling is the lecture-4 lesson run on the simulated H200 at N = 64
// (`warplab run tiling --backend sim --n 64 --no-demos --json`), kept in
// testdata and read back, so the figures drawn from it do not move when the
// simulator's internals do.
func simTiling() *tiling.Result {
	data, err := os.ReadFile("testdata/sim-64-h200.json")
	if err != nil {
		log.Panic(err)
	}
	var r tiling.Result
	if err := json.Unmarshal(data, &r); err != nil {
		log.Panic(err)
	}
	return &r
}

// LoadsFigure draws the load sweep's counts on the lecture's formulas.
func ExampleLoadsFigure() {
	fig, err := tiling.LoadsFigure(simTiling())
	if err != nil {
		log.Panic(err)
	}
	if err := chart.WriteFile("testdata/loads.png", fig, chart.DefaultWidth, 2*chart.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// TransposesFigure needs the simulator's shared-memory counters, which a
// result read back from JSON has lost; here they are put back as the
// simulator counted them at N = 64 (128 warp requests each way; the
// unpadded tile's column stores take 32 wavefronts each).
func ExampleTransposesFigure() {
	res := simTiling()
	shared := map[string]sim.Stats{
		tiling.KTransposeNaive: {},
		tiling.KTransposeShared: {
			SharedStore: sim.Banked{Requests: 128, Wavefronts: 4096, Ideal: 128, Conflicts: 3968},
			SharedLoad:  sim.Banked{Requests: 128, Wavefronts: 128, Ideal: 128},
		},
		tiling.KTransposeSharedPadded: {
			SharedStore: sim.Banked{Requests: 128, Wavefronts: 128, Ideal: 128},
			SharedLoad:  sim.Banked{Requests: 128, Wavefronts: 128, Ideal: 128},
		},
	}
	for i, r := range res.Runs {
		if st, ok := shared[r.Kernel]; ok {
			res.Runs[i].Stats = &st
		}
	}
	fig, err := tiling.TransposesFigure(res)
	if err != nil {
		log.Panic(err)
	}
	if err := chart.WriteFile("testdata/transposes.png", fig, chart.DefaultWidth, 2*chart.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// RooflinesFigure puts the simulator run's modeled rates on the H200 panel
// beside the recorded H200 run's measured ones; the other models, with no
// run, show attainable rates.
func ExampleRooflinesFigure() {
	rec, err := tiling.Recorded()
	if err != nil {
		log.Panic(err)
	}
	fig, err := tiling.RooflinesFigure(simTiling(), rec)
	if err != nil {
		log.Panic(err)
	}
	if err := chart.WriteFile("testdata/rooflines.png", fig, chart.DefaultWidth, 4*chart.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// The figures are compared, as pictures, with testdata/NAME_golden.png at
// cmpimg's default tolerance (every decoded pixel equal). A figure that
// changes on purpose gets new goldens from
//
//	go test ./lessons/tiling -run Golden -regen
//
// and a person looks at them before they are committed.

func TestGoldenLoadsFigure(t *testing.T) { cmpimg.CheckPlot(ExampleLoadsFigure, t, "loads.png") }

func TestGoldenTransposesFigure(t *testing.T) {
	cmpimg.CheckPlot(ExampleTransposesFigure, t, "transposes.png")
}

func TestGoldenRooflinesFigure(t *testing.T) {
	cmpimg.CheckPlot(ExampleRooflinesFigure, t, "rooflines.png")
}
